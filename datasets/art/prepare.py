"""Build the tile art bundle (datasets/art/bundle.py) from installed tilesets and our own painter.

API (what ``mjscan synth prepare-art --out DIR`` calls):

    prepare_art(out_dir, *, progress=True, styles=None, install=True) -> Path
        Writes the bundle into ``out_dir`` (created if needed; files of other names there are left alone)
        and answers ``Path(out_dir)``. ``progress`` draws a progress bar on stderr. ``styles`` limits the
        bundle to some style names of ``STYLES`` (the held-out one is always included; tests use this);
        None means the default twelve (the opt-in ``xm-`` styles are built only when named). Needs the Debian packages of ``APT_PACKAGES``: missing ones are installed with
        apt-get when ``install`` is true and we run as root; otherwise it raises ``MissingPackagesError``,
        whose message is a sentence ending with the exact ``apt-get install`` line to run.

    main(argv=None) -> int
        ``python -m datasets.art.prepare --out DIR [--quiet] [--contact-sheet PNG] [--no-install]``;
        exit status 0, or 2 with the message on stderr when packages are missing or the bundle fails.

Styles: the KDE Mahjongg tilesets default, classic, jade and traditional (datasets/art/kde.py), the GNOME
Mahjongg themes smooth and postmodern (datasets/art/gnome.py), and six painted schemes
(datasets/art/painter.py). "gnome-smooth" is held out for the synthetic test set (docs/art.md says why).
Opt-in, built only when named: xmahjongg's photographed "real" set and Dorothy Robinson's pixel-art set
(``xm-real``, ``xm-dorothys``; datasets/art/xmahjongg.py, stop 41).
Painted faces are deterministic for a given set of fonts and Pillow version.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from datasets.art.bundle import DEFAULT_FACE_SIZE, MANIFEST, StyleToWrite, write_bundle

HELD_OUT = "gnome-smooth"

APT_PACKAGES = ("kdegames-mahjongg-data-kf5", "gnome-mahjongg", "librsvg2-bin", "fonts-noto-cjk",
                "fonts-arphic-ukai", "fonts-arphic-uming", "fonts-wqy-zenhei", "fonts-dejavu-core")
APT_LINE = "sudo apt-get install --no-install-recommends " + " ".join(APT_PACKAGES)

# Font kind (datasets/art/fonts.py) -> the Debian package that provides it.
_FONT_PACKAGES = {"serif": "fonts-noto-cjk", "serif-bold": "fonts-noto-cjk", "sans": "fonts-noto-cjk",
                  "sans-bold": "fonts-noto-cjk", "kai": "fonts-arphic-ukai", "ming": "fonts-arphic-uming",
                  "hei": "fonts-wqy-zenhei", "latin": "fonts-dejavu-core", "latin-bold": "fonts-dejavu-core",
                  "latin-serif": "fonts-dejavu-core"}
# What missing_packages calls a brush font that npm provides: this prefix and the font kind.
NPM_PREFIX = "npm:"
# Font family prefix -> license, for the manifest of painted styles.
_FONT_LICENSES = (("Noto ", "SIL OFL 1.1"), ("Source Han", "SIL OFL 1.1"), ("AR PL", "Arphic Public License"),
                  ("WenQuanYi", "GPL-2 with font embedding exception"), ("DejaVu", "Bitstream Vera license"),
                  ("Liu Jian Mao Cao", "SIL OFL 1.1"), ("Zhi Mang Xing", "SIL OFL 1.1"),
                  ("Ma Shan Zheng", "SIL OFL 1.1"), ("ZCOOL ", "SIL OFL 1.1"))


class MissingPackagesError(RuntimeError):
    """The Debian packages the bundle is made from are not installed (the message has the apt line)."""


@dataclass(frozen=True)
class StyleSpec:
    name: str
    kind: str  # kde | gnome | xmahjongg | painted | random
    theme: str  # KDE/GNOME theme name, the painter scheme's name, or a random scheme's "seed/generation"


def random_specs(count: int, seed: int, generation: int = 1) -> tuple[StyleSpec, ...]:
    """``count`` random painted styles (datasets.art.painter.random_scheme) of ``generation``, seeds ``seed`` ..
    ``seed + count - 1``."""
    from datasets.art.painter import random_style_name

    return tuple(StyleSpec(random_style_name(k, generation), "random", f"{k}/{generation}")
                 for k in range(seed, seed + count))


def _scheme(spec: StyleSpec):
    from datasets.art.painter import SCHEMES, random_scheme

    if spec.kind == "random":
        seed, generation = spec.theme.split("/")
        return random_scheme(int(seed), int(generation))
    return next(s for s in SCHEMES if s.name == spec.theme)


def _style_specs() -> tuple[StyleSpec, ...]:
    from datasets.art.painter import SCHEMES

    return (tuple(StyleSpec(f"kde-{theme}", "kde", theme) for theme in ("default", "classic", "jade", "traditional"))
            + tuple(StyleSpec(f"gnome-{theme}", "gnome", theme) for theme in ("smooth", "postmodern"))
            + tuple(StyleSpec(scheme.name, "painted", scheme.name) for scheme in SCHEMES))


def _opt_in_specs() -> tuple[StyleSpec, ...]:
    """Styles built only when named (``--style``): added at stop 41, after the default bundle's 12, so that a default
    bundle and every recipe rendered from one stay as they were."""
    return tuple(StyleSpec(f"xm-{theme}", "xmahjongg", theme) for theme in ("real", "dorothys"))


STYLES: tuple[str, ...] = tuple(spec.name for spec in _style_specs() + _opt_in_specs())


# --------------------------------------------------------------------------------------- packages

def missing_packages(specs: Sequence[StyleSpec] | None = None) -> list[str]:
    """The Debian packages whose files the given styles need and that are not there (by looking for the files)."""
    from datasets.art import fonts, gnome, kde, xmahjongg

    specs = _style_specs() if specs is None else specs
    missing = []

    def need(package: str, present: bool) -> None:
        if not present and package not in missing:
            missing.append(package)

    kinds = {spec.kind for spec in specs}
    if kinds & {"kde", "gnome"}:
        need("librsvg2-bin", shutil.which("rsvg-convert") is not None)
    for spec in specs:
        if spec.kind == "kde":
            need("kdegames-mahjongg-data-kf5", kde.find_tileset(spec.theme) is not None)
        elif spec.kind == "gnome":
            need("gnome-mahjongg", gnome.find_theme(spec.theme) is not None)
        elif spec.kind == "xmahjongg":
            need("xmahjongg", xmahjongg.find_tileset(spec.theme) is not None)
        else:
            scheme = _scheme(spec)
            fonts.catalogue.cache_clear()
            need(_FONT_PACKAGES[scheme.font], fonts.find_font(scheme.font) is not None)
            need(_FONT_PACKAGES[scheme.index_font], fonts.latin_font(scheme.index_font) is not None)
            if scheme.brush is not None:  # a calligraphy font from npm (fonts.NPM_FONTS), not from Debian
                need(NPM_PREFIX + scheme.brush, fonts.find_font(scheme.brush, fonts.BRUSH_CHARACTERS) is not None)
    return missing


def _install_npm_fonts(missing: list[str], install: bool, log: Callable[[str], None]) -> list[str]:
    """Fetch the brush fonts among ``missing`` from npm (no root needed); answer the rest (Debian packages)."""
    from datasets.art import fonts

    kinds = [name[len(NPM_PREFIX):] for name in missing if name.startswith(NPM_PREFIX)]
    if kinds and not install:
        raise MissingPackagesError(f"The tile art needs brush fonts from npm that are not installed: "
                                   f"{', '.join(fonts.NPM_FONTS[k][0] for k in kinds)}. Run without --no-install to "
                                   f"fetch them into {fonts.NPM_FONT_DIR}.")
    for kind in kinds:
        log(f"Fetching the {kind} font from npm ({fonts.NPM_FONTS[kind][0]})")
        try:
            fonts.install_npm_font(kind)
        except fonts.FontInstallError as error:
            raise MissingPackagesError(str(error)) from error
    return [name for name in missing if not name.startswith(NPM_PREFIX)]


def ensure_packages(specs: Sequence[StyleSpec], *, install: bool = True, log: Callable[[str], None] = print) -> None:
    """Install what is missing with apt-get (as root), or raise MissingPackagesError with the apt line."""
    missing = _install_npm_fonts(missing_packages(specs), install, log)
    if not missing:
        return
    line = "apt-get install -y --no-install-recommends " + " ".join(missing)
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if install and is_root and shutil.which("apt-get"):
        log(f"Installing the Debian packages the tile art needs: {' '.join(missing)}")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        command = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:  # stale package lists: update once, then try again
            subprocess.run(["apt-get", "update"], env=env, capture_output=True, text=True)
            result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            tail = "\n".join(result.stderr.strip().splitlines()[-5:])
            raise MissingPackagesError(f"apt-get could not install the packages the tile art needs ({tail}). "
                                       f"Run: {line}")
        from datasets.art import fonts

        fonts.catalogue.cache_clear()
        still = missing_packages(specs)
        if still:
            raise MissingPackagesError(f"After apt-get, these packages' files are still missing: {' '.join(still)}.")
        return
    why = "" if is_root or not install else " (installing them needs root)"
    raise MissingPackagesError(f"The tile art is made from Debian packages that are not installed{why}: "
                               f"{', '.join(missing)}. Install them with: sudo {line}")


# --------------------------------------------------------------------------------------- progress

class Progress:
    """A plain progress bar on stderr (tqdm is not among the project's dependencies)."""

    def __init__(self, total: int, enabled: bool = True, width: int = 30):
        self.total, self.done, self.enabled, self.width = max(1, total), 0, enabled, width
        self.started = time.monotonic()
        self.note = ""
        self._shown = (-1, None, 0.0)

    def update(self, steps: int = 1, note: str | None = None) -> None:
        self.done = min(self.total, self.done + steps)
        if note is not None:
            self.note = note
        percent = 100 * self.done // self.total
        now = time.monotonic()
        last_percent, last_note, last_time = self._shown
        if percent == last_percent and self.note == last_note and now - last_time < 1.0:
            return
        self._shown = (percent, self.note, now)
        if self.enabled:
            filled = int(self.width * self.done / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            elapsed = time.monotonic() - self.started
            sys.stderr.write(f"\rtile art [{bar}] {percent:3d}% {elapsed:5.1f}s {self.note:<24.24}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


# --------------------------------------------------------------------------------------- building

def _font_license(family: str | None) -> str:
    if family is None:
        return "no font"
    for prefix, license_ in _FONT_LICENSES:
        if family.startswith(prefix):
            return f"{family}: {license_}"
    return f"{family}: see its package's copyright file"


def _build(spec: StyleSpec, face_size: tuple[int, int], tick: Callable[[int], None]) -> StyleToWrite:
    width, height = face_size
    if spec.kind == "kde":
        from datasets.art.kde import KDE_THEMES, kde_faces

        faces = kde_faces(spec.theme, width, height, on_face=lambda: tick(1))
        tick(1)  # no back
        return StyleToWrite(spec.name, f"kde:{spec.theme}", KDE_THEMES[spec.theme], faces, None)
    if spec.kind == "gnome":
        from datasets.art.gnome import GNOME_THEMES, gnome_faces

        faces = gnome_faces(spec.theme, width, height)
        tick(43)
        return StyleToWrite(spec.name, f"gnome:{spec.theme}", GNOME_THEMES[spec.theme], faces, None)
    if spec.kind == "xmahjongg":
        from datasets.art.xmahjongg import license_of, xmahjongg_faces

        faces = xmahjongg_faces(spec.theme, width, height)
        tick(43)
        return StyleToWrite(spec.name, f"xmahjongg:{spec.theme}", license_of(spec.theme), faces, None)
    from datasets.art.bundle import CODES
    from datasets.art.painter import FacePainter

    scheme = _scheme(spec)
    painter = FacePainter(scheme, face_size)
    faces = {}
    for code in CODES:
        faces[code] = painter.paint(code)
        tick(1)
    back = painter.paint_back()
    tick(1)
    fonts_used = sorted({_font_license(painter.font.family if painter.font else None),
                         _font_license(painter.index_font.family if painter.index_font else None)}
                        | ({_font_license(painter.brush_font.family)} if painter.brush_font else set()))
    license_ = "Generated by mjscan's face painter (datasets/art/painter.py); fonts: " + "; ".join(fonts_used)
    return StyleToWrite(spec.name, scheme.source, license_, faces, back)


def prepare_art(out_dir: str | os.PathLike, *, progress: bool = True, styles: Sequence[str] | None = None,
                install: bool = True, face_size: tuple[int, int] = DEFAULT_FACE_SIZE, random_styles: int = 0,
                random_seed: int = 0, random_generation: int = 1) -> Path:
    """Build the tile art bundle in ``out_dir`` and answer its path (see the module docstring).

    ``random_styles`` > 0 builds that many random painted styles (seeds ``random_seed`` on) instead of the
    fixed ones, plus those named in ``styles``; the held-out style always comes along. ``random_generation``
    picks the painter's option set (datasets.art.painter.RANDOM_GENERATIONS)."""
    specs = _style_specs()
    if styles is not None or random_styles:
        unknown = sorted(set(styles or ()) - set(STYLES))
        if unknown:
            raise ValueError(f"Unknown art style(s): {', '.join(unknown)}. The styles are: {', '.join(STYLES)}.")
        wanted = set(styles or ()) | {HELD_OUT}
        specs = tuple(spec for spec in specs + _opt_in_specs() if spec.name in wanted)
    if random_styles < 0:
        raise ValueError(f"The number of random styles must be 0 or more, not {random_styles}.")
    specs += random_specs(random_styles, random_seed, random_generation)
    ensure_packages(specs, install=install, log=lambda text: print(text, file=sys.stderr))

    out = Path(out_dir)
    bar = Progress(total=43 * len(specs) + 1, enabled=progress)
    built = []
    try:
        for spec in specs:
            bar.update(0, spec.name)
            built.append(_build(spec, face_size, lambda steps: bar.update(steps)))
        previous = _previous_styles(out)
        write_bundle(out, built, held_out=HELD_OUT, face_size=face_size)
        for name in previous - {style.name for style in built}:  # styles an earlier bundle had
            shutil.rmtree(out / name, ignore_errors=True)
        bar.update(1, "written")
    finally:
        bar.close()
    return out


def _previous_styles(out: Path) -> set[str]:
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return {entry["name"] for entry in manifest.get("styles", []) if isinstance(entry, dict)
                and isinstance(entry.get("name"), str) and "/" not in entry["name"] and entry["name"] not in ("", ".", "..")}
    except (OSError, ValueError, AttributeError):
        return set()


def main(argv: Sequence[str] | None = None) -> int:
    from datasets.art.painter import RANDOM_GENERATIONS

    parser = argparse.ArgumentParser(prog="python -m datasets.art.prepare",
                                     description="Build the tile art bundle the synthetic renderer paints tiles with.")
    parser.add_argument("--out", required=True, help="the bundle folder to write (e.g. art/)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--no-install", action="store_true", help="never run apt-get; say what to install instead")
    parser.add_argument("--style", action="append", choices=STYLES, help="only this style (repeatable)")
    parser.add_argument("--contact-sheet", metavar="PNG", help="also write a contact sheet of every style's faces")
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="build N random painted styles instead of the fixed ones (with --style, besides those)")
    parser.add_argument("--random-seed", type=int, default=0, metavar="S", help="the first random style's seed")
    parser.add_argument("--random-generation", type=int, default=1, choices=RANDOM_GENERATIONS, metavar="G",
                        help="the painter's option set for random styles: 1, 2 (adds flowers without seat "
                             "numbers, the 1s as one stick, other White frames), 3 (the 1s as one stick of any "
                             "ink and size), 4 (numerals and bonus characters by brush; fetches the brush fonts "
                             "from npm), 5 (half of them in a printed display face instead; fetched the same "
                             "way) or 6 (5, with every mark outlined, four styles in five)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        out = prepare_art(args.out, progress=not args.quiet, styles=args.style, install=not args.no_install,
                          random_styles=args.random, random_seed=args.random_seed,
                          random_generation=args.random_generation)
    except MissingPackagesError as error:
        print(f"mjscan: {error}", file=sys.stderr)
        return 2
    from datasets.art.bundle import contact_sheet, load_bundle

    bundle = load_bundle(out)
    size = sum(path.stat().st_size for path in out.rglob("*.png") if path.parent.name in bundle.names)
    print(f"Wrote {len(bundle.styles)} art styles ({len(bundle.training_styles())} for training, held out: "
          f"{bundle.held_out_style().name}) to {out}: {size / 1e6:.1f} MB in {time.monotonic() - started:.1f} s.")
    if args.contact_sheet:
        print(f"Contact sheet: {contact_sheet(bundle, args.contact_sheet)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
