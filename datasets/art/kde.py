"""Tile faces from the KDE Mahjongg tilesets (Debian package ``kdegames-mahjongg-data-kf5``).

A KDE tileset is one SVG file (``.svgz``, gzipped) whose tile faces are elements named by id:
``CHARACTER_1``..``CHARACTER_9``, ``BAMBOO_1``..``BAMBOO_9``, ``ROD_1``..``ROD_9``, ``WIND_1``..``WIND_4``,
``DRAGON_1``..``DRAGON_3``, ``FLOWER_1``..``FLOWER_4``, ``SEASON_1``..``SEASON_4``. KMahjongg (through
libkmahjongg's QSvgRenderer) stretches each element's bounds over the tile's face rectangle; every face
element carries an invisible rectangle of the face's size (``facesize`` or a ``<use>`` of it) that fixes
those bounds. We do the same: find that rectangle in page coordinates and render the page through it.

The ids do not say what they show in the spec's terms; we looked at every face of every tileset
(docs/art.md, the contact sheet) and wrote the mapping down in ``kde_ids``: ``ROD`` is the dots suit and
``BAMBOO`` the bamboo suit; ``WIND_1..4`` are North, South, East, West (the faces say 北 南 東 西 and
N S E W); ``DRAGON_1..3`` are White, Green, Red; ``FLOWER_n`` and ``SEASON_n`` carry their seat number,
except in "classic", whose FLOWER_1 is the orchid and FLOWER_2 the plum (the faces are labelled).

Only the four tilesets that show mahjong faces are used: default, classic, jade and traditional.
"alphabet" (letters and digits for children) and "egypt" (Egyptian pictures) draw the four flowers and
the four seasons alike, so their labels could not be told apart.
"""

from __future__ import annotations

import gzip
import io
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PIL import Image

from datasets.art.svgutil import (IDENTITY, Affine, XLINK_HREF, apply_to_rect, compose, length, local_name,
                                  parse_transform, rsvg_render)

KDE_TILESET_DIRS = (Path("/usr/share/kmahjongglib/tilesets"), Path("/usr/share/kmahjongg/pics"))

RAW_IDS = tuple(
    [f"CHARACTER_{i}" for i in range(1, 10)] + [f"BAMBOO_{i}" for i in range(1, 10)]
    + [f"ROD_{i}" for i in range(1, 10)] + [f"WIND_{i}" for i in range(1, 5)]
    + [f"DRAGON_{i}" for i in range(1, 4)] + [f"FLOWER_{i}" for i in range(1, 5)]
    + [f"SEASON_{i}" for i in range(1, 5)]
)


# KDE tilesets used, with their copyright line (from <theme>.copyright and the package's copyright file).
KDE_THEMES = {
    "default": "GPL-2.0-or-later; (C) 2006 Raquel Ravanini (libkmahjongg, Debian kdegames-mahjongg-data-kf5)",
    "classic": "GPL-2.0-or-later; (C) 2006 Robert Buchholz (libkmahjongg, Debian kdegames-mahjongg-data-kf5)",
    "jade": "GPL-2.0-or-later; (C) 2007 Eugene Trounev (libkmahjongg, Debian kdegames-mahjongg-data-kf5)",
    "traditional": "GPL-2.0-or-later; (C) 2007 James L. Hammons (libkmahjongg, Debian kdegames-mahjongg-data-kf5)",
}
# Tilesets whose faces are drawn light on the tile's own dark surface: we keep that surface in the face.
OPAQUE_THEMES = {"jade"}

_WIND_CODES = {1: "4z", 2: "2z", 3: "1z", 4: "3z"}  # 北 南 東 西
_DRAGON_CODES = {1: "5z", 2: "6z", 3: "7z"}  # White, Green 發, Red 中


def kde_ids(theme: str) -> dict[str, str]:
    """Tile code -> KDE element id for one tileset (checked by eye on every face; see docs/art.md)."""
    ids = {}
    for rank in range(1, 10):
        ids[f"{rank}m"] = f"CHARACTER_{rank}"
        ids[f"{rank}p"] = f"ROD_{rank}"
        ids[f"{rank}s"] = f"BAMBOO_{rank}"
    for number, code in _WIND_CODES.items():
        ids[code] = f"WIND_{number}"
    for number, code in _DRAGON_CODES.items():
        ids[code] = f"DRAGON_{number}"
    for number in range(1, 5):
        ids[f"{number}f"] = f"FLOWER_{number}"
        ids[f"{number + 4}f"] = f"SEASON_{number}"
    if theme == "classic":  # its flowers are labelled: FLOWER_1 "Orchid", FLOWER_2 "Plum", 3 "Mum", 4 "Bamboo"
        ids["1f"], ids["2f"] = "FLOWER_2", "FLOWER_1"
    return ids


def find_tileset(theme: str) -> Path | None:
    for folder in KDE_TILESET_DIRS:
        for suffix in (".svgz", ".svg"):
            path = folder / f"{theme}{suffix}"
            if path.is_file():
                return path
    return None


def read_svg(path: Path) -> ET.Element:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return ET.fromstring(data)


class SvgTileset:
    """One parsed tileset SVG that renders its face elements by id."""

    def __init__(self, root: ET.Element):
        self.root = root
        self.by_id = {el.attrib["id"]: el for el in root.iter() if "id" in el.attrib}
        self.parent = {child: parent for parent in root.iter() for child in parent}

    @classmethod
    def open(cls, path: Path) -> "SvgTileset":
        return cls(read_svg(path))

    def _ancestors_transform(self, element: ET.Element) -> Affine:
        chain = []
        node = element
        while node in self.parent and self.parent[node] is not self.root:
            node = self.parent[node]
            chain.append(node)
        m = IDENTITY
        for node in reversed(chain):
            m = compose(m, parse_transform(node.attrib.get("transform")))
        return m

    def _rects(self, element: ET.Element, m) -> list[tuple[float, float, float, float]]:
        """The face-size rectangles directly inside ``element`` (a rect, or a use of one), page coordinates."""
        found = []
        for child in element:
            kind = local_name(child)
            cm = compose(m, parse_transform(child.attrib.get("transform")))
            if kind == "rect":
                found.append(apply_to_rect(cm, length(child.get("x")), length(child.get("y")),
                                           length(child.get("width")), length(child.get("height"))))
            elif kind == "use":
                target = self.by_id.get(child.attrib.get(XLINK_HREF, child.attrib.get("href", ""))[1:])
                if target is not None and local_name(target) == "rect":
                    um = compose(cm, (1, 0, 0, 1, length(child.get("x")), length(child.get("y"))))
                    um = compose(um, parse_transform(target.attrib.get("transform")))
                    found.append(apply_to_rect(um, length(target.get("x")), length(target.get("y")),
                                               length(target.get("width")), length(target.get("height"))))
        return found

    def _frames(self, element: ET.Element) -> list[ET.Element]:
        frames = []
        for child in element:
            if local_name(child) == "rect":
                frames.append(child)
            elif local_name(child) == "use":
                target = self.by_id.get(child.attrib.get(XLINK_HREF, child.attrib.get("href", ""))[1:])
                if target is not None and local_name(target) == "rect":
                    frames.append(target)
        return frames

    def face_rect(self, element_id: str) -> tuple[float, float, float, float]:
        """The face rectangle of one element, (x0, y0, x1, y1) in page units."""
        element = self.by_id[element_id]
        m = compose(self._ancestors_transform(element), parse_transform(element.attrib.get("transform")))
        rects = self._rects(element, m)
        for frame in self._frames(element):
            # The frame only sets the bounds; some tilesets stroke it with a hairline: never draw it.
            frame.set("style", "fill:none;stroke:none")
        if not rects:
            raise ValueError(f"The tileset element {element_id} has no face-size rectangle to cut it by.")
        # The largest one: a stray small rect is part of the drawing, the face frame is the biggest.
        return max(rects, key=lambda r: (r[2] - r[0]) * (r[3] - r[1]))

    def render(self, element_id: str, width: int, height: int) -> np.ndarray:
        """Render one element over its face rectangle, stretched to ``width`` x ``height`` (RGBA)."""
        x0, y0, x1, y1 = self.face_rect(element_id)
        element = self.by_id[element_id]
        root = ET.Element(self.root.tag, {
            "width": str(width), "height": str(height),
            "viewBox": f"{x0} {y0} {x1 - x0} {y1 - y0}", "preserveAspectRatio": "none",
        })
        defs = ET.SubElement(root, f"{{{_svg_ns(self.root)}}}defs")
        for child in self.root:
            defs.append(child)  # shared, not copied: serialised below, the tree itself is not changed
        transform = self._ancestors_transform(element)
        group = ET.SubElement(root, f"{{{_svg_ns(self.root)}}}g", {"transform": "matrix(%r,%r,%r,%r,%r,%r)" % transform})
        ET.SubElement(group, f"{{{_svg_ns(self.root)}}}use", {XLINK_HREF: f"#{element_id}"})
        data = ET.tostring(root)
        return rsvg_render(data, width, height)


def _svg_ns(root: ET.Element) -> str:
    return root.tag[1:].split("}")[0] if root.tag.startswith("{") else "http://www.w3.org/2000/svg"



def read_desktop(path: Path) -> dict[str, str]:
    """The ``[KMahjonggTileset]`` keys of a tileset's .desktop file (untranslated keys only)."""
    values = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep and "[" not in key:
                values[key.strip()] = value.strip()
    return values


def _tile_surface(svg_path: Path, width: int, height: int) -> np.ndarray:
    """The face area of the tileset's TILE_1 (the tile's own surface), ``width`` x ``height`` RGBA."""
    desktop = read_desktop(svg_path.with_suffix(".desktop"))
    tile_w, tile_h = float(desktop.get("TileWidth", 96)), float(desktop.get("TileHeight", 116))
    face_w, face_h = float(desktop.get("TileFaceWidth", 69)), float(desktop.get("TileFaceHeight", 89))
    svg = gzip.decompress(svg_path.read_bytes()) if svg_path.suffix == ".svgz" else svg_path.read_bytes()
    result = subprocess.run(["rsvg-convert", "--export-id=TILE_1", "--zoom=6", "--format=png"],
                            input=svg, capture_output=True, check=True)
    tile = Image.open(io.BytesIO(result.stdout)).convert("RGBA")
    tw, th = tile.size
    # TILE_1 draws its body below and left of the face: the face is the top-right face_w x face_h part.
    x0, y0 = tw * (1 - face_w / tile_w), 0.0
    x1, y1 = float(tw), th * face_h / tile_h
    inset_x, inset_y = 0.06 * (x1 - x0), 0.05 * (y1 - y0)
    box = (int(x0 + inset_x), int(y0 + inset_y), int(x1 - inset_x), int(y1 - inset_y))
    surface = tile.crop(box).resize((width, height), Image.LANCZOS)
    array = np.asarray(surface).copy()
    array[..., 3] = 255
    return array


def kde_faces(theme: str, width: int, height: int, on_face=None) -> dict[str, np.ndarray]:
    """All 42 faces of one KDE tileset, code -> RGBA array ``height`` x ``width``."""
    path = find_tileset(theme)
    if path is None:
        raise FileNotFoundError(f"The KDE tileset {theme!r} is not installed (package kdegames-mahjongg-data-kf5).")
    tileset = SvgTileset.open(path)
    surface = _tile_surface(path, width, height) if theme in OPAQUE_THEMES else None
    faces = {}
    for code, element_id in kde_ids(theme).items():
        face = tileset.render(element_id, width, height)
        if surface is not None:
            face = _over(face, surface)
        faces[code] = face
        if on_face is not None:
            on_face()
    return faces


def _over(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Composite RGBA ``top`` over an opaque RGBA ``bottom``."""
    a = top[..., 3:4].astype(np.float32) / 255.0
    rgb = top[..., :3].astype(np.float32) * a + bottom[..., :3].astype(np.float32) * (1 - a)
    out = np.empty_like(bottom)
    out[..., :3] = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    out[..., 3] = 255
    return out
