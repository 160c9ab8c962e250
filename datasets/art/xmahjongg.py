"""Tile faces from xmahjongg's tilesets (Debian package ``xmahjongg``, GPL-2.0-or-later).

Two of its GIF tilesets are full 42-face sets that no other style draws like (stop 41):

- ``real``: photographs of a real Chinese set (Mark Sanctuary, 1999): thick carved dots, a bird 1s, 伍萬, seasons
  painted as flowers with a red 春 rose, a framed White. The only photographed set among the styles: every other
  one is drawn or painted, and the held-out hands' misreadings are of faces no painter draws like (stop 38).
- ``dorothys``: Dorothy Robinson's pixel-art set (2000): corner indices, English names on the honours and bonus
  tiles, pictures of the seasons.

A sheet is a grid of tiles drawn with their bevel; the positions below were checked by eye on every face. The
surface a face is printed on is ``real``'s blank tile (photographed too); ``dorothys`` has none, and since it is
pixel art in a palette, its surface is each pixel's commonest colour over the sheet's 42 faces (the print differs
from tile to tile, the surface does not). The face is the flat area inside the bevel of that blank
(``gnome.face_box``), and each face becomes a print layer against it (``gnome.key_out``) as GNOME faces are.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from PIL import Image

XMAHJONGG_DIRS = (Path("/usr/share/games/xmahjongg/tiles"), Path("/usr/local/share/games/xmahjongg/tiles"))
XMAHJONGG_LICENSE = ("GPL-2.0-or-later (Debian xmahjongg, /usr/share/doc/xmahjongg/copyright, Files: *; its README "
                     "credits the tileset to {author})")


PHOTO_INSET = 0.06
"""The share of the face box left out on each side for the photographed set: without it the faces' edges keep the
photographs' dark cell borders and shading (mean opacity 0.35-0.45 along the left and bottom edges)."""


def _suit(row: int, suit: str) -> dict[str, tuple[int, int]]:
    return {f"{rank}{suit}": (row, rank - 1) for rank in range(1, 10)}


class Sheet(NamedTuple):
    """How one tileset's GIF is laid out."""

    columns: int
    rows: int  # of faces (a second set of rows, highlighted, is not used)
    positions: dict[str, tuple[int, int]]  # code -> (row, column)
    author: str
    blank: tuple[int, int] | None  # the blank tile's (row, column), where the sheet has one


XMAHJONGG_THEMES: dict[str, Sheet] = {
    "real": Sheet(9, 5, {**_suit(0, "p"), **_suit(1, "s"), **_suit(2, "m"),
                    "5f": (3, 0), "6f": (3, 1), "7f": (3, 2), "8f": (3, 3),
                    "4z": (3, 4), "2z": (3, 5), "1z": (3, 6), "3z": (3, 7),
                    "1f": (4, 0), "2f": (4, 1), "3f": (4, 2), "4f": (4, 3),
                    "6z": (4, 4), "5z": (4, 5), "7z": (4, 6)},
             "Mark Sanctuary, 1999", (4, 7)),
    "dorothys": Sheet(21, 4, {**_suit(0, "p"), "4z": (0, 9), "3z": (0, 10), "2z": (0, 11), "1z": (0, 12),
                         "7z": (0, 13), "6z": (0, 14),
                         **{f"{rank}m": (0, 14 + rank) for rank in range(1, 7)},
                         **{f"{rank}m": (1, rank - 7) for rank in range(7, 10)},
                         **{f"{rank}s": (1, rank + 2) for rank in range(1, 10)},
                         "5f": (1, 12), "6f": (1, 13), "7f": (1, 14), "8f": (1, 15), "5z": (1, 16),
                         "4f": (1, 17), "2f": (1, 18), "1f": (1, 19), "3f": (1, 20)},
                 "Dorothy Robinson, 2000", None),
}


def find_tileset(theme: str) -> Path | None:
    for folder in XMAHJONGG_DIRS:
        path = folder / f"{theme}.gif"
        if path.is_file():
            return path
    return None


def license_of(theme: str) -> str:
    return XMAHJONGG_LICENSE.format(author=XMAHJONGG_THEMES[theme].author)


def sheet_tiles(theme: str, sheet: np.ndarray) -> dict[str, np.ndarray]:
    """Code -> the tile's cell of the sheet (RGBA), bevel and all."""
    layout = XMAHJONGG_THEMES[theme]
    return {code: _cell(sheet, layout, row, column) for code, (row, column) in layout.positions.items()}


def _cell(sheet: np.ndarray, layout: Sheet, row: int, column: int) -> np.ndarray:
    height, width = sheet.shape[:2]
    cell_w, cell_h = width / layout.columns, height / layout.rows
    x0, y0 = round(column * cell_w), round(row * cell_h)
    return sheet[y0:y0 + int(cell_h), x0:x0 + int(cell_w)]


def commonest(tiles: list[np.ndarray]) -> np.ndarray:
    """Each pixel's commonest RGBA value over ``tiles`` (equal shapes, uint8)."""
    stack = np.stack(tiles).astype(np.uint32)
    packed = (stack[..., 0] << 24) | (stack[..., 1] << 16) | (stack[..., 2] << 8) | stack[..., 3]
    flat = packed.reshape(len(tiles), -1)
    best = np.empty(flat.shape[1], np.uint32)
    for k in range(flat.shape[1]):
        values, counts = np.unique(flat[:, k], return_counts=True)
        best[k] = values[np.argmax(counts)]
    rgba = np.stack([(best >> 24) & 255, (best >> 16) & 255, (best >> 8) & 255, best & 255], axis=1)
    return rgba.reshape(tiles[0].shape).astype(np.uint8)


def xmahjongg_faces(theme: str, width: int, height: int, *, floor: float = 24.0) -> dict[str, np.ndarray]:
    """All 42 faces of one xmahjongg tileset as print layers, code -> RGBA array ``height`` x ``width``.
    ``floor``: differences from the surface under this are the surface (the photographed set's tiles differ a little
    in light, and the GIF's palette dithers)."""
    from datasets.art.bundle import fit_face
    from datasets.art.gnome import face_box, key_out

    if theme not in XMAHJONGG_THEMES:
        raise ValueError(f"The xmahjongg tileset {theme!r} is not one we know how to cut up.")
    path = find_tileset(theme)
    if path is None:
        raise FileNotFoundError(f"The xmahjongg tileset {theme!r} is not installed (package xmahjongg).")
    sheet = np.asarray(Image.open(path).convert("RGBA")).copy()
    tiles = sheet_tiles(theme, sheet)
    blank_at = XMAHJONGG_THEMES[theme].blank
    surface = _cell(sheet, XMAHJONGG_THEMES[theme], *blank_at) if blank_at else commonest(list(tiles.values()))
    x0, y0, x1, y1 = face_box(surface)
    if blank_at:  # a photographed tile lies a little differently in each cell: keep clear of the cells' edges
        dx, dy = round(PHOTO_INSET * (x1 - x0)), round(PHOTO_INSET * (y1 - y0))
        x0, y0, x1, y1 = x0 + dx, y0 + dy, x1 - dx, y1 - dy
    blank = surface[y0:y1, x0:x1]
    faces = {}
    for code, tile in tiles.items():
        layer = key_out(tile[y0:y1, x0:x1], blank, floor=floor)
        faces[code] = np.asarray(fit_face(layer, (width, height)))
    return faces
