"""What a photo's own look says about how well it can be read, and how to take a better one.

Why: a player who gets questions or a wrong tile wants to know whether a second photo would do better, and how to
take it. Four things a phone photo can lack make misreadings measurably likelier (stop 58, `docs/grouping.md`):

- **small tiles**: the tiles' median short side in the photo's pixels under ``SMALL_TILE_PX`` (a hand photographed
  from afar, or a photo sent shrunk);
- **blur**: the tiles' median sharpness (``tile_sharpness``: their steepest edges over their contrast) under
  ``BLURRED_BELOW`` (a shaken phone, or a focus missed);
- **darkness**: the tiles' median brightness (the 90th percentile of each tile's grey levels, 0-255; a face is
  the brightest thing in its box) under ``DARK_BELOW``;
- **tiles cut off**: a tile whose box touches the photo's edge (a tile cut off may be missed or misread).

``advise(picture, detections)`` measures them from the photo as decoded and the boxes the detector found, and
answers one ``Advice`` for each that falls short (none where fewer than ``MIN_TILES`` tiles were found: too little
to judge by). Each carries what was measured, the limit and a message for the player. Advice never changes the
reading: it says how a second photo could be read more surely.

>>> import numpy as np
>>> from vision.detections import Detection, Detections
>>> from scorer.tiles import Tile
>>> photo = np.full((300, 400, 3), 40, np.uint8)
>>> boxes = [(20 + 34 * i, 100, 48 + 34 * i, 138) for i in range(5)]
>>> for x0, y0, x1, y1 in boxes:                          # small, sharp, bright tiles with a dark mark
...     photo[y0:y1, x0:x1] = 230; photo[y0 + 12:y1 - 12, x0 + 9:x1 - 9] = 60
>>> found = Detections(400, 300, tuple(Detection(Tile.parse("1p"), b, 0.9) for b in boxes))
>>> [a.kind.value for a in advise(photo, found)]
['small_tiles']
>>> measure_photo(photo, found).tile_px
28.0
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, Callable

import cv2
import numpy as np
from PIL import Image

from vision.detections import Detections

SMALL_TILE_PX = 36.0
"""Tiles whose median short side is under this many of the photo's pixels are called small. Real val photos (296):
the 39 under it were read exactly right about half as often as the others (18 of 39, 46 %, against 84 %); the
rendered held-out hands under it 65 % exact against 86 % (stop 58)."""
BLURRED_BELOW = 2.0
"""Tiles whose median sharpness (``tile_sharpness``) is under this are called blurred. Rendered photos blurred by the
renderer (out of focus or shaken) are told from sharp ones at an AUC of 0.946; the held-out hands under it were
read exactly 72 % of the time against 89 % above it. No real val photo as taken is under it (their lowest: 2.2);
blurred by 1.5 pixels, 96 of 99 are (stop 58)."""
DARK_BELOW = 110.0
"""Tiles whose median brightness (0-255) is under this are called dark. Rendered photos in low light are told from
the others at an AUC of 0.976; the held-out hands under it were read exactly 64 % of the time against 86 %. The real
val photos as taken all lie above 140."""
MIN_TILES = 3
"""With fewer tiles found than this, nothing is advised: a photo of no hand, or a hand the detector barely saw,
says nothing reliable about its tiles' size or look."""
EDGE_PX = 1.0
"""A box within this many pixels of the photo's edge touches it."""
SHARP_SCALE_PX = 96
"""A tile bigger than this (short side) is scaled down to it before its sharpness is measured: blur finer than that
scale loses the detector nothing (its classifier reads 48 x 64 crops), and a 12-megapixel photo's tiles, 150 pixels
and more, look soft at their own scale. Chosen at stop 58 among 64, 96, 128 and no scaling: the real val photos
blurred by 1.5 pixels were told at 96 and above (96 of 99, none of them as taken), 83 at 64; rendered photos blurred
by the renderer at an AUC of 0.946 (0.918 at 64)."""


def _finite(owner: Any, name: str, at_least: float | None = None) -> float:
    """``owner.name`` as a float, checked: a finite number (not a bool), and ``at_least`` or more where given."""
    value = getattr(owner, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (at_least is not None and value < at_least):
        bound = "" if at_least is None else f" of {at_least:g} or more"
        raise ValueError(f"{type(owner).__name__}.{name} must be a finite number{bound}, not {value!r}")
    return float(value)


class AdviceKind(enum.Enum):
    SMALL_TILES = "small_tiles"
    BLURRED = "blurred"
    DARK = "dark"
    CUT_OFF = "cut_off"


@dataclass(frozen=True)
class Advice:
    """One shortcoming of the photo: its kind, the measured value, the limit it fell short of, and a message for
    the player saying how to take a better photo."""

    kind: AdviceKind
    measured: float
    limit: float
    message: str

    def __post_init__(self) -> None:
        if not isinstance(self.kind, AdviceKind):
            raise ValueError(f"Advice.kind must be an AdviceKind, not {self.kind!r}")
        for name in ("measured", "limit"):
            object.__setattr__(self, name, _finite(self, name))
        if not isinstance(self.message, str) or not self.message:
            raise ValueError("Advice.message must be a non-empty text")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "measured": round(self.measured, 3), "limit": self.limit,
                "message": self.message}


@dataclass(frozen=True)
class PhotoQuality:
    """What ``measure_photo`` found: the tiles' median short side (photo pixels), median sharpness and median
    brightness, how many boxes touch the photo's edge, and how many tiles were measured."""

    tile_px: float
    sharpness: float
    brightness: float
    tiles_at_edge: int
    tiles: int

    def __post_init__(self) -> None:
        for name in ("tile_px", "sharpness", "brightness"):
            object.__setattr__(self, name, _finite(self, name, at_least=0.0))
        for name in ("tiles_at_edge", "tiles"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"PhotoQuality.{name} must be a whole number of 0 or more, not {value!r}")
        if self.tiles_at_edge > self.tiles:
            raise ValueError("PhotoQuality: more tiles at the edge than tiles")

    def advice(self) -> tuple[Advice, ...]:
        """An ``Advice`` for each measure that falls short, in the order a player would fix them."""
        found: list[Advice] = []
        if self.tile_px < SMALL_TILE_PX:
            found.append(Advice(AdviceKind.SMALL_TILES, self.tile_px, SMALL_TILE_PX,
                                f"The tiles are only about {self.tile_px:.0f} pixels across in this photo (under "
                                f"{SMALL_TILE_PX:.0f}, tiles are misread more often): come closer, or send the "
                                "photo at its full size."))
        if self.sharpness < BLURRED_BELOW:
            found.append(Advice(AdviceKind.BLURRED, self.sharpness, BLURRED_BELOW,
                                "The tiles look blurred: hold the phone still and let it focus on the tiles."))
        if self.brightness < DARK_BELOW:
            found.append(Advice(AdviceKind.DARK, self.brightness, DARK_BELOW,
                                "The tiles look dark: take the photo in more light."))
        if self.tiles_at_edge:
            found.append(Advice(AdviceKind.CUT_OFF, self.tiles_at_edge, 0,
                                f"{self.tiles_at_edge} tile{'s' if self.tiles_at_edge > 1 else ''} touch"
                                f"{'' if self.tiles_at_edge > 1 else 'es'} the photo's edge: keep the whole hand "
                                "inside the frame, with a margin round it."))
        return tuple(found)


def tile_sharpness(grey: np.ndarray) -> float:
    """A grey crop's sharpness: the 95th percentile of its Sobel gradient's magnitude over its contrast (the 95th
    less the 5th percentile of its grey levels, plus 8 so that a blank crop's noise does not count as an edge): 3.8 for the sharp
    mark below and 1.4 for it blurred over two pixels; the real val photos' tiles give 2.2 to 4.

    >>> mark = np.full((40, 30), 220, np.float32); mark[10:30, 8:22] = 40
    >>> round(tile_sharpness(mark), 1), round(tile_sharpness(cv2.GaussianBlur(mark, (0, 0), 2.0)), 1)
    (3.8, 1.4)
    """
    grey = np.asarray(grey, dtype=np.float32)
    gradient = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    low, high = _percentiles(grey, (5, 95))
    return float(_percentiles(gradient, (95,))[0] / (high - low + 8.0))


def _percentiles(values: np.ndarray, shares: tuple[float, ...]) -> list[float]:
    """The values at these percentiles, each the nearest rank (``np.percentile``'s "nearest" method, by one partial
    sort: several times faster than ``np.percentile`` on a tile's few thousand pixels)."""
    flat = np.ravel(values)
    ranks = [min(flat.size - 1, round(share / 100 * (flat.size - 1))) for share in shares]
    ordered = np.partition(flat, ranks)
    return [float(ordered[rank]) for rank in ranks]


def measure_photo(picture: Any, detections: Detections) -> PhotoQuality | None:
    """The tiles' size, sharpness and brightness in ``picture`` (the photo as decoded, upright: an H x W x 3 RGB
    array or a PIL image, at any scale; ``detections``' boxes are in the full photo's pixels), or None where fewer
    than ``MIN_TILES`` tiles were found. Boxes under the detector's threshold that the reading added count too: they
    are tiles of the hand."""
    width, height, grey_of = _grey_cutter(picture)
    scale_x, scale_y = width / detections.width, height / detections.height
    sides, sharpness, brightness, at_edge = [], [], [], 0
    for tile in detections.tiles:
        x0, y0, x1, y1 = tile.box
        sides.append(min(x1 - x0, y1 - y0))
        if x0 <= EDGE_PX or y0 <= EDGE_PX or x1 >= detections.width - EDGE_PX or y1 >= detections.height - EDGE_PX:
            at_edge += 1
        left, top = max(0, int(x0 * scale_x)), max(0, int(y0 * scale_y))
        right, bottom = min(width, math.ceil(x1 * scale_x)), min(height, math.ceil(y1 * scale_y))
        if right - left < 4 or bottom - top < 4:
            continue
        crop = grey_of((left, top, right, bottom))
        brightness.append(_percentiles(crop, (90,))[0])
        shrink = SHARP_SCALE_PX / min(crop.shape)
        if shrink < 1:
            crop = cv2.resize(crop, (max(4, round(crop.shape[1] * shrink)), max(4, round(crop.shape[0] * shrink))),
                              interpolation=cv2.INTER_AREA)
        sharpness.append(tile_sharpness(crop))
    if len(sides) < MIN_TILES or not sharpness:
        return None
    return PhotoQuality(float(np.median(sides)), float(np.median(sharpness)), float(np.median(brightness)),
                        at_edge, len(sides))


def _grey_cutter(picture: Any) -> tuple[int, int, Callable[[tuple[int, int, int, int]], np.ndarray]]:
    """The picture's width and height, and what cuts a box (left, top, right, bottom) out of it in grey: only the
    tiles are converted, not the whole photo (a 12-megapixel photo decodes to 2000 x 1500 pixels)."""
    if isinstance(picture, Image.Image):
        def cut(box: tuple[int, int, int, int]) -> np.ndarray:
            return np.asarray(picture.crop(box).convert("L"))
        return picture.width, picture.height, cut
    rgb = np.asarray(picture)
    if rgb.ndim != 3 or rgb.shape[2] < 3:
        raise ValueError(f"a picture must be H x W x 3 (RGB), not {rgb.shape}")

    def cut_array(box: tuple[int, int, int, int]) -> np.ndarray:
        left, top, right, bottom = box
        return cv2.cvtColor(np.ascontiguousarray(rgb[top:bottom, left:right, :3], dtype=np.uint8), cv2.COLOR_RGB2GRAY)
    return rgb.shape[1], rgb.shape[0], cut_array


def advise(picture: Any, detections: Detections) -> tuple[Advice, ...]:
    """How to take a better photo, where ``picture`` falls short (see the module's doc); () where it does not, or
    where too few tiles were found to judge."""
    quality = measure_photo(picture, detections)
    return () if quality is None else quality.advice()
