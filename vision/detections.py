"""What the detector answers: typed, immutable detections, and the spec's detection JSON.

    {"image": {"width": 4032, "height": 3024},
     "tiles": [{"code": "3m", "box": [x1, y1, x2, y2], "confidence": 0.97, "sideways": false}]}

Boxes are in the original photo's pixels after EXIF orientation is applied. A tile may also carry
``"alternatives": [{"code": "2m", "confidence": 0.02}]``, the classifier's next likeliest readings (an
extension of the spec's format; readers that do not know it can ignore it), and ``"axis": 87.5``, the angle its
face's print runs at in the photo (degrees, counter-clockwise from the x axis; since stop 37). ``from_dict`` validates
(it raises ``ValueError`` with a message naming the bad field); ``to_dict`` writes plain JSON types.

>>> d = Detections(640, 480, (Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.9),))
>>> d.to_dict()["tiles"][0]["code"], Detections.from_dict(d.to_dict()) == d
('3m', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

from scorer.tiles import Tile
from vision.classes import BACK, TileClass, class_code, class_id, parse_class

Box = tuple[float, float, float, float]


def yolo_line(cls: int, box: tuple[float, float, float, float], width: int, height: int) -> str:
    """One YOLO label line: ``class cx cy w h`` with the box (x1, y1, x2, y2 in pixels) normalised.

    >>> yolo_line(0, (10, 20, 30, 60), 100, 200)
    '0 0.200000 0.200000 0.200000 0.200000'
    """
    x1, y1, x2, y2 = box
    return (f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
            f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")


@dataclass(frozen=True, slots=True)
class Detection:
    """One detected tile face: its class, its box (x1, y1, x2, y2) in photo pixels, the model's
    confidence in 0..1, and whether it lies sideways (turned 90 degrees to its row)."""

    code: TileClass
    box: Box
    confidence: float
    sideways: bool = False
    # the classifier's next likeliest readings of the same box, likeliest first, each with a confidence on the
    # same scale as ``confidence`` (the localiser's score times the classifier's probability); the grouping
    # tries them when the tiles as read make no winning hand (vision/repair.py)
    alternatives: tuple[tuple[TileClass, float], ...] = ()
    # the axis its face's print runs at in the photo (vision.orientation: degrees in 0..180, counter-clockwise from
    # the photo's x axis, 90 for a face standing upright), or None where no reader is sure of it; the grouping
    # measures it against the tile's own row (vision/grouping.py, rule 5: the sideways flags it reads)
    axis: float | None = None
    # the classifier is sure the box is a tile but not which face (a face in an art style it never saw): the detector
    # kept it at its threshold, the reading a guess (stop 54: the grouping asks about such a flower or season)
    unsure_face: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.code, Tile) or self.code == BACK):
            raise ValueError(f"a detection's code must be a Tile or 'back', not {self.code!r}")
        try:
            box = tuple(float(v) for v in self.box)
        except (TypeError, ValueError):
            raise ValueError(f"a box must be four numbers x1, y1, x2, y2, not {self.box!r}") from None
        if len(box) != 4 or not all(math.isfinite(v) for v in box):
            raise ValueError(f"a box must be four finite numbers x1, y1, x2, y2, not {self.box!r}")
        if box[2] < box[0] or box[3] < box[1]:
            raise ValueError(f"a box needs x1 <= x2 and y1 <= y2, not {box}")
        confidence = float(self.confidence)
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"a confidence must lie in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "box", box)
        object.__setattr__(self, "confidence", confidence)
        object.__setattr__(self, "sideways", bool(self.sideways))
        object.__setattr__(self, "unsure_face", bool(self.unsure_face))
        alternatives = []
        for entry in self.alternatives:
            try:
                code, chance = entry
                chance = float(chance)
            except (TypeError, ValueError):
                raise ValueError(f"an alternative must be a (code, confidence) pair, not {entry!r}") from None
            if not (isinstance(code, Tile) or code == BACK):
                raise ValueError(f"an alternative's code must be a Tile or 'back', not {code!r}")
            if code == self.code:
                raise ValueError(f"an alternative reading cannot be the tile's own code {class_code(code)}")
            if not 0.0 <= chance <= confidence:
                raise ValueError(f"an alternative's confidence must lie in 0..{confidence} (the tile's own), "
                                 f"not {chance!r}")
            alternatives.append((code, chance))
        object.__setattr__(self, "alternatives", tuple(alternatives))
        if self.axis is not None:
            try:
                axis = float(self.axis)
            except (TypeError, ValueError):
                raise ValueError(f"a face's axis must be a number of degrees, not {self.axis!r}") from None
            if not math.isfinite(axis):
                raise ValueError(f"a face's axis must be a finite number of degrees, not {self.axis!r}")
            object.__setattr__(self, "axis", axis % 180.0)

    @property
    def code_str(self) -> str:
        """``"3m"`` or ``"back"``."""
        return class_code(self.code)

    @property
    def class_id(self) -> int:
        """The detector's class id (0..42)."""
        return class_id(self.code)

    @property
    def is_back(self) -> bool:
        return self.code == BACK

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    def to_dict(self) -> dict[str, Any]:
        data = {"code": self.code_str, "box": [round(v, 2) for v in self.box],
                "confidence": round(self.confidence, 4), "sideways": self.sideways}
        if self.alternatives:
            data["alternatives"] = [{"code": class_code(code), "confidence": round(chance, 4)}
                                    for code, chance in self.alternatives]
        if self.axis is not None:
            data["axis"] = round(self.axis, 1)
        if self.unsure_face:
            data["unsure_face"] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Detection":
        if not isinstance(data, Mapping):
            raise ValueError(f"a tile must be a JSON object, not {type(data).__name__}")
        for key in ("code", "box", "confidence"):
            if key not in data:
                raise ValueError(f"a tile needs '{key}'")
        if not isinstance(data["code"], str):
            raise ValueError(f"a tile's code must be a string, not {data['code']!r}")
        box = data["box"]
        if not isinstance(box, (list, tuple)) or len(box) != 4 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in box):
            raise ValueError(f"a tile's box must be a list of four numbers, not {box!r}")
        confidence = data["confidence"]
        if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
            raise ValueError(f"a tile's confidence must be a number, not {confidence!r}")
        sideways = data.get("sideways", False)
        if not isinstance(sideways, bool):
            raise ValueError(f"a tile's sideways must be true or false, not {sideways!r}")
        alternatives = data.get("alternatives", [])
        if not isinstance(alternatives, list) or not all(
                isinstance(a, Mapping) and isinstance(a.get("code"), str) and isinstance(a.get("confidence"), (int, float))
                and not isinstance(a.get("confidence"), bool) for a in alternatives):
            raise ValueError("a tile's alternatives must be a list of {\"code\": ..., \"confidence\": ...} objects")
        axis = data.get("axis")
        if axis is not None and (not isinstance(axis, (int, float)) or isinstance(axis, bool)):
            raise ValueError(f"a tile's axis must be a number of degrees, not {axis!r}")
        unsure_face = data.get("unsure_face", False)
        if not isinstance(unsure_face, bool):
            raise ValueError(f"a tile's unsure_face must be true or false, not {unsure_face!r}")
        return cls(parse_class(data["code"]), tuple(box), confidence, sideways,  # type: ignore[arg-type]
                   tuple((parse_class(a["code"]), a["confidence"]) for a in alternatives), axis, unsure_face)


@dataclass(frozen=True, slots=True)
class Detections:
    """Every tile found in one photo (width x height pixels, after EXIF orientation)."""

    width: int
    height: int
    tiles: tuple[Detection, ...] = field(default=())

    def __post_init__(self) -> None:
        if isinstance(self.width, bool) or isinstance(self.height, bool) or int(self.width) != self.width \
                or int(self.height) != self.height or self.width <= 0 or self.height <= 0:
            raise ValueError(f"an image needs a positive whole width and height, not {self.width}x{self.height}")
        object.__setattr__(self, "width", int(self.width))
        object.__setattr__(self, "height", int(self.height))
        tiles = tuple(self.tiles)
        if not all(isinstance(t, Detection) for t in tiles):
            raise ValueError("Detections.tiles must hold Detection values")
        object.__setattr__(self, "tiles", tiles)

    def __len__(self) -> int:
        return len(self.tiles)

    def __iter__(self) -> Iterator[Detection]:
        return iter(self.tiles)

    def above(self, confidence: float) -> "Detections":
        """The detections at or above a confidence."""
        return replace(self, tiles=tuple(t for t in self.tiles if t.confidence >= confidence))

    def codes(self) -> list[str]:
        return [t.code_str for t in self.tiles]

    def to_dict(self) -> dict[str, Any]:
        return {"image": {"width": self.width, "height": self.height},
                "tiles": [t.to_dict() for t in self.tiles]}

    def to_yolo(self) -> str:
        """The tiles as a YOLO label file (``class cx cy w h`` a line, normalised to the photo, boxes clipped to it):
        the layout ``eval-detector``, ``mjscan train`` and labelling tools read, in the spec's class order.

        >>> found = Detections(200, 100, (Detection(Tile.parse("1m"), (10, 20, 30, 60), 0.9),
        ...                               Detection(BACK, (190, 90, 230, 120), 0.5)))
        >>> print(found.to_yolo(), end="")
        0 0.100000 0.400000 0.100000 0.400000
        42 0.975000 0.950000 0.050000 0.100000
        """
        lines = []
        for tile in self.tiles:
            x1, y1, x2, y2 = tile.box
            box = (min(max(x1, 0.0), self.width), min(max(y1, 0.0), self.height),
                   min(max(x2, 0.0), self.width), min(max(y2, 0.0), self.height))
            if box[2] > box[0] and box[3] > box[1]:
                lines.append(yolo_line(class_id(tile.code), box, self.width, self.height))
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Detections":
        if not isinstance(data, Mapping):
            raise ValueError(f"a detection must be a JSON object, not {type(data).__name__}")
        image = data.get("image")
        if not isinstance(image, Mapping) or not all(
                isinstance(image.get(k), int) and not isinstance(image.get(k), bool) for k in ("width", "height")):
            raise ValueError("a detection needs 'image': {'width': W, 'height': H} with whole numbers")
        tiles = data.get("tiles", [])
        if not isinstance(tiles, list):
            raise ValueError("a detection's 'tiles' must be a list")
        parsed = []
        for number, tile in enumerate(tiles):
            try:
                parsed.append(Detection.from_dict(tile))
            except ValueError as error:
                raise ValueError(f"tile {number}: {error}") from None
        return cls(image["width"], image["height"], tuple(parsed))
