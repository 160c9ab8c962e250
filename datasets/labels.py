"""The detector's label formats: the 43 class names in the spec's order, YOLO txt lines, data.yaml.

>>> CLASS_NAMES[0], CLASS_NAMES[33], CLASS_NAMES[41], CLASS_NAMES[42], len(CLASS_NAMES)
('1m', '7z', '8f', 'back', 43)
>>> class_id("back"), class_id("9s")
(42, 26)
>>> yolo_line(class_id("1m"), (10, 20, 30, 60), 100, 200)
'0 0.200000 0.200000 0.200000 0.200000'
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from scorer.tiles import ALL_TILES
from vision.detections import yolo_line  # vision's label format (what the detector's tools read)

BACK = "back"
CLASS_NAMES: tuple[str, ...] = tuple(t.code for t in ALL_TILES) + (BACK,)
"""ids 0..42: 1m..9m, 1p..9p, 1s..9s, 1z..7z, 1f..8f, back (the spec's detector order)."""
_IDS = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_id(code: str) -> int:
    """The detector class id of a tile code, or of ``back`` (a face-down tile)."""
    return _IDS[code]


def read_yolo(path: str | Path, width: int, height: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    """Read a YOLO txt file back into (class, (x1, y1, x2, y2) in pixels) pairs."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        cls, cx, cy, w, h = line.split()
        cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
        out.append((int(cls), (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return out


def data_yaml(root: str | Path, train: str = "images", val: str = "images", names: Iterable[str] = CLASS_NAMES) -> str:
    """An ultralytics dataset file: the root, the image folders and the 43 names by id."""
    lines = [f"path: {Path(root).resolve()}", f"train: {train}", f"val: {val}", f"nc: {len(tuple(names))}", "names:"]
    lines += [f"  {i}: '{name}'" for i, name in enumerate(names)]
    return "\n".join(lines) + "\n"
