"""Finding the fonts the face painter writes with: CJK fonts for the tiles' characters, a Latin one for indices.

Fonts are looked up by family name in the usual font folders (no fontconfig needed). Each painter style
asks for a kind of font ("serif", "sans", "kai", "ming", "hei") and gets the first installed family of that
kind; failing that, any installed font that has every character a tile face needs; failing that, None,
and the painter draws its characters with plain shapes instead (datasets/art/painter.py).

The Debian packages behind the families named here: fonts-noto-cjk (Noto Serif/Sans CJK), fonts-arphic-ukai
(AR PL UKai), fonts-arphic-uming (AR PL UMing), fonts-wqy-zenhei (WenQuanYi Zen Hei), fonts-dejavu-core.

The brush kinds ("brush-cursive", "brush-running", "brush-kai") are calligraphy fonts of Google Fonts (SIL OFL 1.1)
that no Debian package holds, and so are the display kinds of generation 5 ("display-xiaowei", "display-qingke",
"display-kuaile": ZCOOL XiaoWei, QingKe HuangYou and KuaiLe, SIL OFL 1.1); ``install_npm_font`` fetches them from
npm (the ``@expo-google-fonts`` packages carry the TrueType files) into ``NPM_FONT_DIR``. They are simplified-Chinese
fonts: they write the numerals, 万, the seasons and most flowers, but most lack 萬, 東, 發 or 蘭, so a painter writes
only what they cover with them (``BRUSH_CHARACTERS``) and the rest with its style's own font.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
FONT_SUFFIXES = (".ttf", ".ttc", ".otf", ".otc")

# Every character a painted face may show.
TILE_CHARACTERS = "一二三四五伍六七八九萬万東南西北中發白梅蘭菊竹春夏秋冬"

# Font kind -> families in order of preference (family name, style), as FreeType reports them.
FAMILIES: dict[str, tuple[tuple[str, str], ...]] = {
    "serif": (("Noto Serif CJK TC", "Regular"), ("Noto Serif CJK HK", "Regular"), ("Noto Serif CJK JP", "Regular"),
              ("Source Han Serif TC", "Regular"), ("Noto Serif CJK SC", "Regular")),
    "serif-bold": (("Noto Serif CJK TC", "Bold"), ("Noto Serif CJK JP", "Bold"), ("Source Han Serif TC", "Bold"),
                   ("Noto Serif CJK SC", "Bold")),
    "sans": (("Noto Sans CJK TC", "Regular"), ("Noto Sans CJK HK", "Regular"), ("Noto Sans CJK JP", "Regular"),
             ("Source Han Sans TC", "Regular"), ("Noto Sans CJK SC", "Regular")),
    "sans-bold": (("Noto Sans CJK TC", "Bold"), ("Noto Sans CJK JP", "Bold"), ("Source Han Sans TC", "Bold"),
                  ("Noto Sans CJK SC", "Bold")),
    "kai": (("AR PL UKai TW", "Book"), ("AR PL UKai HK", "Book"), ("AR PL UKai CN", "Book"),
            ("AR PL KaitiM Big5", "Regular"), ("TW-Kai", "Regular")),
    "ming": (("AR PL UMing TW", "Light"), ("AR PL UMing HK", "Light"), ("AR PL UMing CN", "Light"),
             ("AR PL Mingti2L Big5", "Regular")),
    "hei": (("WenQuanYi Zen Hei", "Regular"), ("WenQuanYi Micro Hei", "Regular"), ("Droid Sans Fallback", "Regular")),
    "brush-cursive": (("Liu Jian Mao Cao", "Regular"),),
    "brush-running": (("Zhi Mang Xing", "Regular"),),
    "brush-kai": (("Ma Shan Zheng", "Regular"),),
    "display-xiaowei": (("ZCOOL XiaoWei", "Regular"),),
    "display-qingke": (("ZCOOL QingKe HuangYou", "Regular"),),
    "display-kuaile": (("ZCOOL KuaiLe", "Regular"),),
    "latin": (("DejaVu Sans", "Book"), ("DejaVu Sans", "Regular"), ("Liberation Sans", "Regular"),
              ("Noto Sans", "Regular"), ("FreeSans", "Regular")),
    "latin-bold": (("DejaVu Sans", "Bold"), ("Liberation Sans", "Bold"), ("Noto Sans", "Bold"),
                   ("FreeSans", "Bold")),
    "latin-serif": (("DejaVu Serif", "Book"), ("DejaVu Serif", "Regular"), ("Liberation Serif", "Regular"),
                    ("FreeSerif", "Regular")),
}

# The characters a brush font must write to be used at all (the characters suit's numerals, the flowers' and
# seasons' Chinese seat numbers): what real sets most often print in a calligrapher's hand.
BRUSH_CHARACTERS = "一二三四五伍六七八九"
BRUSH_KINDS = ("brush-cursive", "brush-running", "brush-kai")
# Generation 5's numeral hands beside the brush ones (stop 30): printed display faces, a narrow old-style serif, a
# heavy square one and a rounded one, as shop-made sets print their numerals. Any of them may stand where a brush
# kind may (``Scheme.brush``): the same characters, the same rule for what they lack.
DISPLAY_KINDS = ("display-xiaowei", "display-qingke", "display-kuaile")
NUMERAL_KINDS = BRUSH_KINDS + DISPLAY_KINDS

# Brush or display kind -> the npm package (pinned) and the TrueType file in it.
NPM_FONTS: dict[str, tuple[str, str]] = {
    "brush-cursive": ("@expo-google-fonts/liu-jian-mao-cao@0.2.3", "LiuJianMaoCao_400Regular.ttf"),
    "brush-running": ("@expo-google-fonts/zhi-mang-xing@0.4.1", "ZhiMangXing_400Regular.ttf"),
    "brush-kai": ("@expo-google-fonts/ma-shan-zheng@0.4.3", "MaShanZheng_400Regular.ttf"),
    "display-xiaowei": ("@expo-google-fonts/zcool-xiaowei@0.4.1", "ZCOOLXiaoWei_400Regular.ttf"),
    "display-qingke": ("@expo-google-fonts/zcool-qingke-huangyou@0.4.1", "ZCOOLQingKeHuangYou_400Regular.ttf"),
    "display-kuaile": ("@expo-google-fonts/zcool-kuaile@0.4.2", "ZCOOLKuaiLe_400Regular.ttf"),
}
NPM_FONT_DIR = "~/.local/share/fonts/mjscan"

APT_PACKAGES = ("fonts-noto-cjk", "fonts-arphic-ukai", "fonts-arphic-uming", "fonts-wqy-zenhei", "fonts-dejavu-core")


@dataclass(frozen=True, order=True)
class FontRef:
    """One face of a font file: the path, its index inside a collection, and its family and style."""

    path: str
    index: int
    family: str
    style: str

    def load(self, size: int) -> ImageFont.FreeTypeFont:
        return _load(self.path, self.index, int(size))


@lru_cache(maxsize=256)
def _load(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=index)


def font_files(dirs=FONT_DIRS) -> list[Path]:
    found = []
    for folder in dirs:
        root = Path(os.path.expanduser(folder))
        if root.is_dir():
            found.extend(p for p in root.rglob("*") if p.suffix.lower() in FONT_SUFFIXES and p.is_file())
    return sorted(set(found))


@lru_cache(maxsize=1)
def catalogue() -> tuple[FontRef, ...]:
    """Every face of every installed font file (sorted, so the same machine answers the same)."""
    refs = []
    for path in font_files():
        for index in range(16):
            try:
                font = ImageFont.truetype(str(path), 16, index=index)
            except (OSError, ValueError):
                break
            family, style = font.getname()
            refs.append(FontRef(str(path), index, family or path.stem, style or "Regular"))
            if path.suffix.lower() not in (".ttc", ".otc"):
                break
    return tuple(sorted(refs))


def _glyph_bytes(font: ImageFont.FreeTypeFont, char: str) -> bytes | None:
    box = font.getbbox(char)
    if box is None or box[2] <= box[0] or box[3] <= box[1]:
        return None
    image = Image.new("L", (box[2] - box[0] + 2, box[3] - box[1] + 2))
    ImageDraw.Draw(image).text((1 - box[0], 1 - box[1]), char, font=font, fill=255)
    return image.tobytes() + bytes(str(image.size), "ascii")


def covers(ref: FontRef, characters: str = TILE_CHARACTERS) -> bool:
    """Whether the font draws every one of ``characters`` (not as empty or as the missing-glyph box)."""
    return _covers(ref, characters)


@lru_cache(maxsize=128)
def _covers(ref: FontRef, characters: str) -> bool:
    try:
        font = ref.load(48)
    except OSError:
        return False
    missing = {_glyph_bytes(font, "\U0010fffd"), _glyph_bytes(font, "\uffff"), None}
    return all(_glyph_bytes(font, char) not in missing for char in characters)


def find_font(kind: str, characters: str = TILE_CHARACTERS) -> FontRef | None:
    """The first installed family of ``kind`` that has ``characters``; None when there is none."""
    fonts = catalogue()
    for family, style in FAMILIES.get(kind, ()):
        for ref in fonts:
            if ref.family == family and ref.style == style and covers(ref, characters):
                return ref
    return None


def any_cjk_font() -> FontRef | None:
    """Some installed font that has every tile character (the preferred kinds first)."""
    for kind in ("serif", "sans", "kai", "ming", "hei", "serif-bold", "sans-bold"):
        ref = find_font(kind)
        if ref is not None:
            return ref
    for ref in catalogue():
        if covers(ref):
            return ref
    return None


def latin_font(kind: str = "latin") -> FontRef | None:
    """A font for corner indices (digits and capitals)."""
    return find_font(kind, "0123456789ESWNCFP") or find_font("latin", "0123456789ESWNCFP")


def default_font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's own font (scalable from Pillow 10.1), the last resort for digits and letters."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


class FontInstallError(RuntimeError):
    """A font could not be fetched from npm (the message says what to run by hand)."""


def install_npm_font(kind: str, folder: str | os.PathLike = NPM_FONT_DIR) -> Path:
    """Fetch the brush ``kind``'s TrueType file from npm (``NPM_FONTS``) into ``folder`` and answer its path.

    ``npm pack`` downloads the package's tarball without installing anything; the one font file is taken out of
    it. Raises FontInstallError (with the command to run by hand) when npm is missing or fails."""
    if kind not in NPM_FONTS:
        raise ValueError(f"No npm font for the kind {kind!r}; these have one: {', '.join(NPM_FONTS)}.")
    package, filename = NPM_FONTS[kind]
    target = Path(os.path.expanduser(folder)) / filename
    by_hand = f"npm pack {package} and copy {filename} from its tarball into {target.parent}"
    if target.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise FontInstallError(f"The {kind} font comes from npm, which is not installed: install Node.js, or {by_hand}.")
    with tempfile.TemporaryDirectory() as scratch:
        result = subprocess.run([npm, "pack", package, "--pack-destination", scratch, "--silent"],
                                capture_output=True, text=True)
        tarballs = list(Path(scratch).glob("*.tgz"))
        if result.returncode != 0 or not tarballs:
            tail = "\n".join(result.stderr.strip().splitlines()[-3:])
            raise FontInstallError(f"npm could not fetch {package} ({tail}); {by_hand}.")
        with tarfile.open(tarballs[0]) as tar:
            member = next((m for m in tar.getmembers() if m.isfile() and Path(m.name).name == filename), None)
            if member is None:
                raise FontInstallError(f"{package} has no {filename}; {by_hand}.")
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)  # a half-written font is never found
    catalogue.cache_clear()
    return target
