"""Tile faces from the GNOME Mahjongg themes (Debian package ``gnome-mahjongg``).

A GNOME theme is one image (PNG, or SVG rendered with rsvg-convert) of 43 tiles side by side, drawn
with their bevel, in two rows: normal, then highlighted (selected). We use the top row. Column order
(gnome-mahjongg's own, checked by eye on every face; see docs/art.md):

    0-8 dots 1-9, 9-12 winds 北 西 南 東, 13 中, 14 發, 15-23 characters 1-9, 24-32 bamboo 1-9,
    33-36 a group of four bonus tiles, 37 the White dragon, 38-41 another group of four, 42 a blank tile.

The bonus groups differ per theme: "smooth" has the flowers 蘭 菊 梅 竹 then the seasons 春 夏 秋 冬;
"postmodern" has weather pictures numbered 一..四 (the seasons) then flower pictures numbered 一..四.
"postmodern"'s White dragon is the GNOME foot logo, which no real set has: we use its blank tile (a
blank White dragon, as Japanese sets have) instead. "edu_kang_xi" shows Kangxi radicals, not mahjong
faces, and is not used.

The face is the flat top inside the bevel. We find it on the blank tile, then turn every face into a
print layer: each pixel's difference from the blank tile's same pixel becomes its opacity, so the
theme's ivory surface and its shading become transparent and the renderer paints its own surface.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image

GNOME_THEME_DIRS = (Path("/usr/share/gnome-mahjongg/themes"), Path("/usr/local/share/gnome-mahjongg/themes"))
COLUMNS = 43
BLANK = 42

GNOME_LICENSE = "GPL-2.0-or-later; gnome-mahjongg authors (Debian gnome-mahjongg, /usr/share/doc/gnome-mahjongg/copyright)"
GNOME_THEMES = {
    "smooth": "GPL-2.0-or-later (Debian gnome-mahjongg copyright, Files: *); the Smooth tile set by Jim Evins, "
              "sources at github.com/jimevins/smooth-tileset",
    "postmodern": GNOME_LICENSE,
}

_COMMON = {**{f"{rank}p": rank - 1 for rank in range(1, 10)},
           "4z": 9, "3z": 10, "2z": 11, "1z": 12, "7z": 13, "6z": 14,
           **{f"{rank}m": 14 + rank for rank in range(1, 10)},
           **{f"{rank}s": 23 + rank for rank in range(1, 10)}}


def gnome_columns(theme: str) -> dict[str, int]:
    """Tile code -> column of the theme image (see the module docstring)."""
    columns = dict(_COMMON)
    if theme == "smooth":
        columns.update({"2f": 33, "3f": 34, "1f": 35, "4f": 36, "5z": 37, "5f": 38, "6f": 39, "7f": 40, "8f": 41})
    elif theme == "postmodern":
        columns.update({"5f": 33, "6f": 34, "7f": 35, "8f": 36, "5z": BLANK,
                        "1f": 38, "2f": 39, "3f": 40, "4f": 41})
    else:
        raise ValueError(f"The GNOME theme {theme!r} is not one we know how to cut up.")
    return columns


def find_theme(theme: str) -> Path | None:
    for folder in GNOME_THEME_DIRS:
        for suffix in (".svg", ".png"):
            path = folder / f"{theme}{suffix}"
            if path.is_file():
                return path
    return None


def _load_sheet(path: Path, tile_width: int) -> np.ndarray:
    """The theme image as RGBA, for SVG rendered so that one tile is ``tile_width`` pixels wide."""
    if path.suffix == ".svg":
        result = subprocess.run(["rsvg-convert", "--format=png", f"--width={tile_width * COLUMNS}",
                                 "--keep-aspect-ratio", str(path)], capture_output=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"rsvg-convert could not render {path}: {result.stderr.decode(errors='replace')}")
        image = Image.open(io.BytesIO(result.stdout))
    else:
        image = Image.open(path)
    return np.asarray(image.convert("RGBA")).copy()


def face_box(blank: np.ndarray) -> tuple[int, int, int, int]:
    """The flat face (x0, y0, x1, y1) inside a blank tile: where it is close to the colour at its centre."""
    h, w = blank.shape[:2]
    luminance = blank[..., :3].astype(np.float32).mean(axis=2)
    centre = np.median(luminance[h // 3: 2 * h // 3, w // 3: 2 * w // 3])
    flat = (np.abs(luminance - centre) < 14) & (blank[..., 3] == 255)
    rows = np.flatnonzero(flat.mean(axis=1) > 0.5)
    cols = np.flatnonzero(flat.mean(axis=0) > 0.5)
    if len(rows) < h // 2 or len(cols) < w // 2:
        raise ValueError("Could not find the flat face of the theme's blank tile.")
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def key_out(face: np.ndarray, blank: np.ndarray, *, floor: float = 8.0, full: float = 90.0) -> np.ndarray:
    """Turn a face into a print layer: opacity from its difference to the blank face, colour un-mixed."""
    f = face[..., :3].astype(np.float32)
    b = blank[..., :3].astype(np.float32)
    difference = np.abs(f - b).max(axis=2)
    alpha = np.clip((difference - floor) / (full - floor), 0.0, 1.0)
    safe = np.maximum(alpha, 1e-3)[..., None]
    colour = np.clip(b + (f - b) / safe, 0, 255)
    out = np.zeros(face.shape[:2] + (4,), np.uint8)
    out[..., :3] = np.rint(colour).astype(np.uint8)
    out[..., 3] = np.rint(alpha * 255).astype(np.uint8)
    out[alpha == 0, :3] = 0
    return out


def gnome_faces(theme: str, width: int, height: int) -> dict[str, np.ndarray]:
    """All 42 faces of one GNOME theme as print layers, code -> RGBA array ``height`` x ``width``."""
    path = find_theme(theme)
    if path is None:
        raise FileNotFoundError(f"The GNOME Mahjongg theme {theme!r} is not installed (package gnome-mahjongg).")
    sheet = _load_sheet(path, tile_width=3 * width // 2)
    tile_w = sheet.shape[1] // COLUMNS
    tile_h = sheet.shape[0] // 2

    def tile(column: int) -> np.ndarray:
        return sheet[:tile_h, column * tile_w:(column + 1) * tile_w]

    x0, y0, x1, y1 = face_box(tile(BLANK))
    blank = tile(BLANK)[y0:y1, x0:x1]
    faces = {}
    for code, column in gnome_columns(theme).items():
        layer = key_out(tile(column)[y0:y1, x0:x1], blank)
        image = Image.fromarray(layer, "RGBA")
        faces[code] = np.asarray(_resize_rgba(image, width, height))
    return faces


def _resize_rgba(image: Image.Image, width: int, height: int) -> Image.Image:
    from datasets.art.bundle import fit_face

    return Image.fromarray(fit_face(np.asarray(image), (width, height)), "RGBA")
