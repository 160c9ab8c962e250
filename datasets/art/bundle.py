"""The tile art bundle: faces of every tile in several art styles, on disk and in memory.

On disk (``ART_DIR``), written by ``mjscan synth prepare-art`` (datasets/art/prepare.py)::

    ART_DIR/manifest.json
        {"version": 1, "face_size": [W, H], "held_out": "<style name>",
         "styles": [{"name": "...", "source": "kde:<theme>" | "gnome:<theme>" | "xmahjongg:<theme>" | "procedural:<seed>",
                     "license": "...", "faces": {"1m": "<style>/1m.png", ... all 42 codes},
                     "back": "<style>/back.png" or null}]}
    ART_DIR/<style>/<code>.png   RGBA, W x H: the tile's printed FACE only, seen straight on

A face image covers the whole top surface of the tile (no body, edges or shadow). Alpha 0 is the bare
tile surface: the renderer paints its face colour there and composites the image over it. Most styles
are print layers on a transparent background; a style may be opaque where the source paints its own
surface (KDE "jade": white print on red lacquer). ``back.png``, when present, is the face-down side's
pattern at the same size; otherwise the renderer paints a back colour of its own.

In memory: ``load_bundle(path) -> ArtBundle`` (immutable), with ``ArtStyle`` faces as numpy uint8
arrays of shape (H, W, 4) keyed by the spec's tile codes (``scorer.tiles.ALL_TILES`` order).
``ArtBundle.training_styles()`` are all styles but the held-out one, which only the synthetic test set
may use (``ArtBundle.held_out_style()``).

>>> CODES[:3], CODES[-1], len(CODES)
(('1m', '2m', '3m'), '8f', 42)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

import numpy as np
from PIL import Image

from scorer.tiles import ALL_TILES

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CODES: tuple[str, ...] = tuple(tile.code for tile in ALL_TILES)
"""The 42 face codes in the detector's class order (``back`` is class 42 and has no face)."""
DEFAULT_FACE_SIZE = (120, 160)
"""Width x height of every face in a bundle that prepare_art writes: 3:4, a real tile's face."""

_STYLE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_SOURCE = re.compile(r"^(kde|gnome|xmahjongg|procedural):\S+$")


@dataclass(frozen=True, eq=False)
class ArtStyle:
    """One art style: the 42 faces (code -> RGBA uint8 array, H x W x 4) and maybe a back."""

    name: str
    source: str
    license: str
    held_out: bool
    faces: Mapping[str, np.ndarray]
    back: np.ndarray | None = None

    def face(self, code: str) -> np.ndarray:
        """The face of one tile code; a KeyError names the code and the style."""
        try:
            return self.faces[code]
        except KeyError:
            raise KeyError(f"The art style {self.name!r} has no face for tile code {code!r}.") from None

    def __repr__(self) -> str:
        return (f"ArtStyle(name={self.name!r}, source={self.source!r}, held_out={self.held_out}, "
                f"faces={len(self.faces)}, back={'yes' if self.back is not None else 'no'})")


@dataclass(frozen=True, eq=False)
class ArtBundle:
    """All the art styles of one bundle; faces all have ``face_size`` = (width, height)."""

    face_size: tuple[int, int]
    styles: tuple[ArtStyle, ...]
    path: Path | None = field(default=None, compare=False)

    def training_styles(self) -> tuple[ArtStyle, ...]:
        """Every style but the held-out one: what training and validation images may use."""
        return tuple(style for style in self.styles if not style.held_out)

    def held_out_style(self) -> ArtStyle:
        """The one style kept for the synthetic test set."""
        for style in self.styles:
            if style.held_out:
                return style
        raise ValueError("This art bundle has no held-out style.")  # load_bundle never lets this happen

    def style(self, name: str) -> ArtStyle:
        for style in self.styles:
            if style.name == name:
                return style
        known = ", ".join(s.name for s in self.styles)
        raise KeyError(f"The art bundle has no style named {name!r}; it has: {known}.")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(style.name for style in self.styles)


# ----------------------------------------------------------------------------------------------- load

def load_bundle(path: str | Path) -> ArtBundle:
    """Read and check an art bundle folder; raise ValueError with a sentence saying what is wrong."""
    root = Path(path)
    manifest_path = root / MANIFEST
    if not root.is_dir():
        raise ValueError(f"The art bundle folder {root} does not exist: run `mjscan synth prepare-art --out {root}`.")
    if not manifest_path.is_file():
        raise ValueError(f"The art bundle {root} has no {MANIFEST}: run `mjscan synth prepare-art --out {root}`.")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"The art bundle manifest {manifest_path} is not readable JSON ({error}).") from None
    face_size, held_out, entries = _check_manifest(manifest, manifest_path)

    styles = []
    for entry in entries:
        name = entry["name"]
        faces = {}
        for code in CODES:
            faces[code] = _read_face(root, entry["faces"][code], face_size, f"the face {code} of style {name!r}")
        back = None
        if entry.get("back") is not None:
            back = _read_face(root, entry["back"], face_size, f"the back of style {name!r}")
        styles.append(ArtStyle(name=name, source=entry["source"], license=entry["license"],
                               held_out=(name == held_out), faces=MappingProxyType(faces), back=back))
    return ArtBundle(face_size=face_size, styles=tuple(styles), path=root)


def _check_manifest(manifest, where: Path) -> tuple[tuple[int, int], str, list[dict]]:
    if not isinstance(manifest, dict):
        raise ValueError(f"The art bundle manifest {where} must hold a JSON object.")
    version = manifest.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(f"The art bundle manifest {where} has version {version!r}; this loader reads version "
                         f"{FORMAT_VERSION}: prepare the bundle again.")
    size = manifest.get("face_size")
    if (not isinstance(size, list) or len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                 and v > 0 for v in size)):
        raise ValueError(f"The art bundle manifest {where} needs \"face_size\": [width, height] in pixels, "
                         f"not {size!r}.")
    styles = manifest.get("styles")
    if not isinstance(styles, list) or not styles:
        raise ValueError(f"The art bundle manifest {where} lists no styles.")
    names = []
    for number, entry in enumerate(styles, 1):
        if not isinstance(entry, dict):
            raise ValueError(f"Style number {number} in the art bundle manifest {where} is not a JSON object.")
        name = entry.get("name")
        if not isinstance(name, str) or not _STYLE_NAME.match(name):
            raise ValueError(f"Style number {number} in the art bundle manifest {where} has no valid name "
                             f"(lower-case letters, digits, '-', '_', '.'): {name!r}.")
        if name in names:
            raise ValueError(f"The art bundle manifest {where} lists the style {name!r} twice.")
        names.append(name)
        source = entry.get("source")
        if not isinstance(source, str) or not _SOURCE.match(source):
            raise ValueError(f"The style {name!r} in {where} needs a source like \"kde:<theme>\", "
                             f"\"gnome:<theme>\", \"xmahjongg:<theme>\" or \"procedural:<seed>\", not {source!r}.")
        if not isinstance(entry.get("license"), str) or not entry["license"].strip():
            raise ValueError(f"The style {name!r} in {where} does not say its license.")
        faces = entry.get("faces")
        if not isinstance(faces, dict):
            raise ValueError(f"The style {name!r} in {where} has no \"faces\" object.")
        missing = [code for code in CODES if code not in faces]
        if missing:
            raise ValueError(f"The style {name!r} in {where} lacks the faces of {len(missing)} tile codes: "
                             f"{', '.join(missing)}.")
        unknown = sorted(set(faces) - set(CODES))
        if unknown:
            raise ValueError(f"The style {name!r} in {where} has faces for unknown tile codes: {', '.join(unknown)}.")
        for code in CODES:
            if not isinstance(faces[code], str):
                raise ValueError(f"The face {code} of style {name!r} in {where} must be a file path.")
        if entry.get("back") is not None and not isinstance(entry["back"], str):
            raise ValueError(f"The back of style {name!r} in {where} must be a file path or null.")
    held_out = manifest.get("held_out")
    if held_out not in names:
        raise ValueError(f"The art bundle manifest {where} must name its held-out style (one of "
                         f"{', '.join(names)}) in \"held_out\", not {held_out!r}.")
    if len(names) < 2:
        raise ValueError(f"The art bundle manifest {where} needs at least one training style besides the "
                         f"held-out one.")
    return (size[0], size[1]), held_out, styles


def _read_face(root: Path, relative: str, face_size: tuple[int, int], what: str) -> np.ndarray:
    path = (root / relative)
    if Path(relative).is_absolute() or ".." in Path(relative).parts:
        raise ValueError(f"The art bundle names {what} by the path {relative!r}, which leaves the bundle folder.")
    if not path.is_file():
        raise ValueError(f"The art bundle lacks the file {relative} ({what}).")
    try:
        with Image.open(path) as image:
            image.load()
            if image.mode != "RGBA":
                image = image.convert("RGBA")
            array = np.asarray(image, dtype=np.uint8).copy()
    except (OSError, SyntaxError, ValueError) as error:
        raise ValueError(f"The art bundle file {relative} ({what}) is not a readable image ({error}).") from None
    width, height = face_size
    if array.shape != (height, width, 4):
        raise ValueError(f"The art bundle file {relative} ({what}) is {array.shape[1]}x{array.shape[0]} pixels; "
                         f"every face must be {width}x{height}.")
    array.setflags(write=False)
    return array


# ---------------------------------------------------------------------------------------------- write

@dataclass(frozen=True)
class StyleToWrite:
    """A style about to be written: faces as RGBA arrays (any size; resized on writing)."""

    name: str
    source: str
    license: str
    faces: Mapping[str, np.ndarray]
    back: np.ndarray | None = None


def fit_face(array: np.ndarray, face_size: tuple[int, int]) -> np.ndarray:
    """Resize an RGBA face to ``face_size`` (premultiplied, so transparent edges do not darken)."""
    width, height = face_size
    array = np.asarray(array, dtype=np.uint8)
    if array.ndim != 3 or array.shape[2] != 4:
        raise ValueError(f"A face must be an RGBA array (H x W x 4), not one of shape {array.shape}.")
    if array.shape[:2] == (height, width):
        return array
    rgba = array.astype(np.float32) / 255.0
    premultiplied = np.dstack([rgba[..., :3] * rgba[..., 3:4], rgba[..., 3:4]])
    channels = [np.asarray(Image.fromarray(premultiplied[..., c], mode="F").resize((width, height), Image.LANCZOS))
                for c in range(4)]
    out = np.clip(np.dstack(channels), 0.0, 1.0)
    alpha = out[..., 3:4]
    colour = np.where(alpha > 1e-4, out[..., :3] / np.maximum(alpha, 1e-4), 0.0)
    return np.clip(np.rint(np.dstack([colour, alpha]) * 255.0), 0, 255).astype(np.uint8)


def write_bundle(out_dir: str | Path, styles: Iterable[StyleToWrite], held_out: str,
                 face_size: tuple[int, int] = DEFAULT_FACE_SIZE) -> Path:
    """Write styles as a bundle (faces resized to ``face_size``) and its manifest; answer the folder."""
    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for style in styles:
        missing = [code for code in CODES if code not in style.faces]
        if missing:
            raise ValueError(f"The style {style.name!r} lacks faces for {', '.join(missing)}.")
        folder = root / style.name
        folder.mkdir(exist_ok=True)
        faces = {}
        for code in CODES:
            Image.fromarray(fit_face(style.faces[code], face_size), "RGBA").save(folder / f"{code}.png")
            faces[code] = f"{style.name}/{code}.png"
        back = None
        if style.back is not None:
            Image.fromarray(fit_face(style.back, face_size), "RGBA").save(folder / "back.png")
            back = f"{style.name}/back.png"
        elif (folder / "back.png").exists():
            (folder / "back.png").unlink()
        entries.append({"name": style.name, "source": style.source, "license": style.license,
                        "faces": faces, "back": back})
    manifest = {"version": FORMAT_VERSION, "face_size": list(face_size), "held_out": held_out, "styles": entries}
    _check_manifest(json.loads(json.dumps(manifest)), root / MANIFEST)
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return root


# ------------------------------------------------------------------------------------- contact sheet

def contact_sheet(bundle: ArtBundle, path: str | Path, *, surface=(236, 230, 212), gap: int = 4,
                  label_width: int = 150) -> Path:
    """A PNG with one row per style: its 42 faces in code order, then its back, over a face colour.

    The header row names the codes; the held-out style's name is marked with '*'."""
    from PIL import ImageDraw

    width, height = bundle.face_size
    columns = len(CODES) + 1
    header = 18
    sheet = Image.new("RGB", (label_width + columns * (width + gap) + gap,
                              header + len(bundle.styles) * (height + gap) + gap), (60, 60, 70))
    draw = ImageDraw.Draw(sheet)
    for column, code in enumerate(CODES + ("back",)):
        draw.text((label_width + gap + column * (width + gap) + width // 2 - 8, 3), code, fill=(255, 255, 255))
    for row, style in enumerate(bundle.styles):
        y = header + gap + row * (height + gap)
        label = ("* " if style.held_out else "") + style.name
        draw.text((6, y + height // 2 - 12), label, fill=(255, 255, 255))
        draw.text((6, y + height // 2 + 2), style.source[:22], fill=(190, 190, 200))
        for column, code in enumerate(CODES + ("back",)):
            array = style.faces[code] if code != "back" else style.back
            x = label_width + gap + column * (width + gap)
            if array is None:
                draw.rectangle([x, y, x + width - 1, y + height - 1], outline=(120, 120, 130))
                draw.text((x + 6, y + height // 2), "no back", fill=(200, 200, 200))
                continue
            tile = Image.new("RGBA", (width, height), surface + (255,))
            tile.alpha_composite(Image.fromarray(np.ascontiguousarray(array), "RGBA"))
            sheet.paste(tile.convert("RGB"), (x, y))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out
