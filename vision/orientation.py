"""The face-axis reader: which way each tile's face is turned in the photo, read from its pixels (onnxruntime).

Why: the detector's boxes are axis-aligned, so a tile's box shape was all ``mark_sideways`` had to tell a
sideways (claimed) tile from its row. That fails where the photo is turned near 45 degrees (every box
squarish), in strong perspective and on stretched photos: on the held-out art style's meld scenes 10 % of
the tiles got a wrong flag. The print on a face (its characters, its frame, its pictures) says which way the
face stands, whatever the box: the reader is a small CNN that reads a square crop round each box, not turned,
and answers the face's axis.

The axis is the direction of the face's "up" (from its bottom edge to its top edge as it is read), as an angle
in degrees in 0..180 counter-clockwise from the photo's x axis: an upright face is at 90, a face lying across
the row at 0. An axis has no sign (a face upside down is at the same 90: nothing here tells who sits where),
so the network answers (cos 2a, sin 2a), which a half turn of the crop leaves alone and a quarter turn negates.

``sideways_from_axes`` turns the axes into sideways flags. A row's lying and standing tiles and its sideways
ones lie along the two arms of one cross (their axes agree in four times the angle, whatever the mix); the arm
more tiles lie along is the photo's axis, and a tile along the other arm is sideways:

>>> sideways_from_axes(np.array([88.0, 93.0, 90.0, 2.0, 85.0, 179.0])).tolist()
[False, False, False, True, False, True]
>>> sideways_from_axes(np.array([0.0, 22.5, 45.0, 67.5])) is None       # no cross stands out: a heap
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from PIL import Image

from vision.crops import MARGIN, as_rgb
from vision.onnx_session import open_session, read_both_ways

AXIS_SIZE = 48
"""The reader's square crop, in pixels a side."""
AXIS_NAMES = ("cos 2a", "sin 2a")
"""The reader's two outputs, in its ONNX metadata."""
SURE_AXIS = 0.5
"""A reading whose (cos 2a, sin 2a) is shorter than this is no axis (NaN): the network, trained towards unit
vectors, answers short ones where it cannot tell (a face seen at a grazing angle, a blank back). Measured on
the true boxes of 200 rendered meld scenes in the training styles (seed 11): of the 72 readings shorter than
0.5, 15 are more than 45 degrees off; of the 3,148 others, 19."""
MIN_AGREEMENT = 0.5
"""How well a photo's axes must agree on a cross (the length of their quadrupled-angle mean, 0..1) for the
photo to have an axis: tiles each within 20 degrees of its arms reach 0.77, a heap of tiles at every angle
stays near 0."""

NEIGHBOURS = 7
"""A tile is measured against the cross of this many nearest tiles (itself included). On the shipped detector's
boxes of 400 rendered meld scenes (seeds 10 and 11: held-out and training styles) 97.6 % and 97.7 % of the flags
come out right so, against 96.0 % and 96.5 % measured against the whole photo's cross alone, and 89.9 % and
90.5 % from the box shapes."""

DEFAULT_AXIS_READER = Path(__file__).resolve().parent.parent / "models" / "axis.onnx"


class AxisReaderError(Exception):
    """A face-axis model that cannot be used, with a message for people."""


def axis_crop(image: Image.Image, box, *, size: int = AXIS_SIZE, margin: float = MARGIN) -> np.ndarray:
    """The reader's crop of ``box`` (x1 y1 x2 y2 pixels): the square round its centre whose side is the box's
    longer side widened by ``margin`` each side, not turned, resized to ``size`` (uint8, size x size x 3);
    outside the photo is black."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1, 1.0) * (1 + 2 * margin)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left, top = int(round(cx - side / 2)), int(round(cy - side / 2))
    span = max(int(round(side)), 1)
    if span > max(image.size):  # a box larger than the photo: resize only the part inside (see _square_crop)
        return np.asarray(_square_crop(image, left, top, span, size), dtype=np.uint8)
    region = image.crop((left, top, left + span, top + span)).resize((size, size), Image.Resampling.BILINEAR)
    return np.asarray(region, dtype=np.uint8)


def _square_crop(image: Image.Image, left: int, top: int, span: int, size: int) -> Image.Image:
    """``image.crop`` of the square (left, top, span) resized to ``size``, outside the photo black, without making
    the square at full size first: for a box as long as a photo restored to 8,192 px (``vision.detector``) that
    square is some 90 megapixels (Pillow warns of a decompression bomb; twice that, it refuses)."""
    width, height = image.size
    inside = (max(left, 0), max(top, 0), min(left + span, width), min(top + span, height))
    out = Image.new("RGB", (size, size))
    scale = size / span
    target = [int(round((inside[0] - left) * scale)), int(round((inside[1] - top) * scale)),
              int(round((inside[2] - left) * scale)), int(round((inside[3] - top) * scale))]
    if target[2] > target[0] and target[3] > target[1]:
        part = image.crop(inside).resize((target[2] - target[0], target[3] - target[1]), Image.Resampling.BILINEAR)
        out.paste(part, (target[0], target[1]))
    return out


def axis_crops(image: np.ndarray | Image.Image, boxes: np.ndarray, *, size: int = AXIS_SIZE) -> np.ndarray:
    """``axis_crop`` of every box (N x 4): N x size x size x 3 uint8."""
    picture = image if isinstance(image, Image.Image) else Image.fromarray(np.ascontiguousarray(image))
    picture = as_rgb(picture)
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    out = np.zeros((len(boxes), size, size, 3), dtype=np.uint8)
    for i, box in enumerate(boxes):
        out[i] = axis_crop(picture, box, size=size)
    return out


def axes_from_outputs(outputs: np.ndarray) -> np.ndarray:
    """The reader's (cos 2a, sin 2a) rows -> axes in degrees, 0..180."""
    outputs = np.asarray(outputs, dtype=np.float64).reshape(-1, 2)
    axes = np.degrees(np.arctan2(outputs[:, 1], outputs[:, 0])) / 2 % 180.0
    return np.where(axes >= 180.0, 0.0, axes)  # a hair below 0 wraps to 180.0 in floating point


def axis_apart(a, b):
    """The angle in degrees (0..90) between axes ``a`` and ``b`` (scalars or arrays): an axis has no sign, so 10 and
    170 lie 20 apart.

    >>> float(axis_apart(10.0, 170.0)), axis_apart(np.array([0.0, 45.0]), 90.0).tolist()
    (20.0, [90.0, 45.0])
    """
    return np.abs((np.asarray(a, dtype=np.float64) - b + 90.0) % 180.0 - 90.0)


def _cross_flags(axes: np.ndarray, min_agreement: float) -> np.ndarray | None:
    """Which of ``axes`` (all known) lie along the minor arm of the cross they agree on, or None (no cross, or
    as many along either arm)."""
    quadrupled = np.radians(4 * axes)
    mean = np.array([np.cos(quadrupled).mean(), np.sin(quadrupled).mean()])
    if np.hypot(*mean) < min_agreement:
        return None
    arm = np.degrees(np.arctan2(mean[1], mean[0])) / 4
    across = axis_apart(axes, arm) > 45.0  # along the other arm
    along = int((~across).sum())
    if 2 * along == len(axes):
        return None
    return across if 2 * along > len(axes) else ~across


def sideways_from_axes(axes: np.ndarray, *, min_tiles: int = 3, min_agreement: float = MIN_AGREEMENT,
                       centres: np.ndarray | None = None, neighbours: int = NEIGHBOURS) -> np.ndarray | None:
    """Each tile's sideways flag from its face axis (degrees; the module doc says how). None when the photo has
    fewer than ``min_tiles`` tiles with an axis, or its axes settle nothing (no cross, or as many tiles along
    either arm). A tile without an axis (NaN) is answered False: ``vision.detector.mark_sideways`` judges it by
    its box.

    With ``centres`` (N x 2, the tiles' centres) each tile is judged by the cross of its ``neighbours`` nearest
    tiles with an axis (itself among them) where they settle it, and by the whole photo's elsewhere: a steep
    view fans a row's axes out across the photo, flowers laid apart may lie at any angle, and a face the reader
    cannot see well leaves the whole photo's majority uncertain where a row's own is clear."""
    axes = np.asarray(axes, dtype=np.float64).reshape(-1)
    known = np.flatnonzero(np.isfinite(axes))
    if len(known) < min_tiles:
        return None
    flags = _cross_flags(axes[known], min_agreement)
    out = np.zeros(len(axes), dtype=bool)
    if flags is not None:
        out[known] = flags
    if centres is None or len(known) <= neighbours:
        return out if flags is not None else None
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    settled = flags is not None
    for index in known:
        near = known[np.argsort(np.hypot(*(centres[known] - centres[index]).T), kind="stable")[:neighbours]]
        local = _cross_flags(axes[near], min_agreement)
        if local is not None:
            out[index] = local[int(np.flatnonzero(near == index)[0])]
            settled = True
    return out if settled else None


ACROSS = 35.0
"""A tile is sideways by its neighbours (``across_neighbours``) when its axis lies at least this many degrees from
each of its two nearest tiles' axes ..."""
NEIGHBOURS_AGREE = 12.0
"""... which agree with each other within this many degrees ..."""
TOUCHING = 1.6
"""... and lie within this many tile sizes of it (centre to centre, over the two boxes' mean long side): a meld's
tiles touch."""


def across_neighbours(axes: np.ndarray, boxes: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``flags`` with every tile set sideways that lies across its two nearest tiles (see ``ACROSS``), both of them
    unflagged and agreeing with each other. Why: the cross of a tile's nearest tiles (``sideways_from_axes``)
    assumes two arms, but in a steep view a meld lying on the table beside a standing row shows three directions
    (standing faces, lying faces, the lying sideways face), and the cross settles nothing there. A claimed tile's
    own meld still says it: its two neighbours lie alike and it lies across them.

    >>> boxes = np.array([[0, 0, 10, 14], [11, 2, 25, 12], [26, 0, 36, 14], [60, 0, 70, 14]], dtype=float)
    >>> across_neighbours(np.array([50.0, 150.0, 52.0, 90.0]), boxes, np.zeros(4, dtype=bool)).tolist()
    [False, True, False, False]
    """
    axes = np.asarray(axes, dtype=np.float64).reshape(-1)
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    out = np.asarray(flags, dtype=bool).copy()
    if len(axes) < 3:
        return out
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    for i in np.flatnonzero(np.isfinite(axes) & ~out):
        distance = np.hypot(*(centres - centres[i]).T) / ((sizes + sizes[i]) / 2)
        distance[i] = np.inf
        first, second = np.argsort(distance, kind="stable")[:2]
        if distance[second] > TOUCHING or flags[first] or flags[second] \
                or not (np.isfinite(axes[first]) and np.isfinite(axes[second])):
            continue
        if axis_apart(axes[first], axes[second]) <= NEIGHBOURS_AGREE \
                and axis_apart(axes[i], axes[[first, second]]).min() >= ACROSS:
            out[i] = True
    return out


BONUS_PEERS = 2
"""A flower or season is judged against the other flowers and seasons of the photo (``among_bonus``) when at least
this many of them have an axis read; with fewer it is not sideways."""


def among_bonus(axes: np.ndarray, bonus: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """``flags`` with each flower and season (``bonus``) judged against the other flowers and seasons only: sideways
    when its axis lies ``ACROSS`` or more from most of theirs (``BONUS_PEERS`` of them at least), else not.

    Why: a flower is never a claimed tile; it lies face up apart from the hand, beside the other flowers. In a
    steep view a tile lying flat shows its axis turned far from the standing row's (perspective), so the cross of
    the photo (``sideways_from_axes``) took the flowers for sideways tiles: 37 of the 254 wrong flags of four
    held-out meld sets of 200 photos (stop 22; the renderer lays no flower sideways).

    >>> among_bonus(np.array([90.0, 40.0, 45.0, 50.0, 135.0]), np.array([False, True, True, True, True]),
    ...             np.array([False, True, True, True, True])).tolist()
    [False, False, False, False, True]
    """
    axes = np.asarray(axes, dtype=np.float64).reshape(-1)
    bonus = np.asarray(bonus, dtype=bool).reshape(-1)
    out = np.asarray(flags, dtype=bool).copy()
    members = np.flatnonzero(bonus)
    for i in members:
        peers = axes[[j for j in members if j != i and np.isfinite(axes[j])]]
        if len(peers) < BONUS_PEERS or not np.isfinite(axes[i]):
            out[i] = False
            continue
        out[i] = (axis_apart(axes[i], peers) >= ACROSS).sum() > len(peers) / 2
    return out


class AxisReader:
    """Load once; ``axes`` is thread-safe (onnxruntime sessions may run from several threads)."""

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, threads: int | None = None):
        path = Path(model_path) if model_path is not None else DEFAULT_AXIS_READER
        if not path.is_file():
            raise AxisReaderError(f"No face-axis model at '{path}'.")
        self.session = open_session(path, threads=threads, error=AxisReaderError, what="the face-axis model")
        self.model_path = path
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        height, width = model_input.shape[2:]
        if height != width or not isinstance(height, int):
            raise AxisReaderError(f"The face-axis model '{path}' does not take square crops of a fixed size.")
        self.size = int(height)
        names = json.loads(self.session.get_modelmeta().custom_metadata_map.get("names", "null") or "null")
        if names != list(AXIS_NAMES):
            raise AxisReaderError(f"The face-axis model '{path}' does not answer {' and '.join(AXIS_NAMES)}.")

    def outputs(self, crops: np.ndarray, batch: int = 64) -> np.ndarray:
        """N x size x size x 3 uint8 crops -> N x 2 (cos 2a, sin 2a), each crop also read turned a half turn (the
        same axis) and the two readings averaged."""
        if not len(crops):
            return np.zeros((0, 2), dtype=np.float32)
        return read_both_ways(self.session, self.input_name, crops, batch)

    def axes(self, image: Image.Image | np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Each box's face axis in degrees (0..180, ``axes_from_outputs``), NaN where the reader is unsure
        (``SURE_AXIS``)."""
        outputs = self.outputs(axis_crops(image, boxes, size=self.size))
        sure = np.hypot(outputs[:, 0], outputs[:, 1]) >= SURE_AXIS
        return np.where(sure, axes_from_outputs(outputs), np.nan)

