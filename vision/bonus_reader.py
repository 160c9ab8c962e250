"""The bonus reader: a second look at the tiles the classifier takes for a flower or a season (onnxruntime).

Why: the eight bonus faces differ in small marks. A set may print one picture on all four flowers and tell
them apart by a corner numeral two or three pixels tall in the tile classifier's 48 x 64 crop, and a hand
holds one of each, so they are the rarest faces in the training photos. Measured on the true boxes with the
stop-15 classifier: 89.6 % of the real val photos' bonus tiles named right (86.1 % of the real training
photos' own), 77.9 % in the held-out art style, against 98-99 % for the other faces. The reader is a
classifier of its own for nine answers (the eight bonus faces, and "another tile"), reading a larger crop
(``READER_SIZE``) cut from the photo at its full resolution.

    reader = BonusReader("models/bonus.onnx")
    probs = reader.reread(image, boxes, probs)   # the tile classifier's N x 44 probabilities, re-read

``reread`` looks again only at the boxes whose bonus share (``bonus_share``) reaches ``TRIGGER``. There the
reader's answer is averaged with the tile classifier's own view of the same nine answers (``READER_WEIGHT``),
and that decides "a bonus tile, and which", while the tile classifier keeps "a tile at all" and how the other
faces share the rest (``combine``). Here the classifier says 1f, the reader 2f, and the mean 2f:

>>> import numpy as np
>>> probs = np.zeros((1, 44)); probs[0, 34] = 0.5; probs[0, 35] = 0.2; probs[0, 0] = 0.2; probs[0, 43] = 0.1
>>> reading = np.zeros((1, 9)); reading[0, 1] = 0.8; reading[0, 8] = 0.2
>>> combine(probs, reading)[0, [0, 34, 35, 43]].astype(float).round(2).tolist()     # 1m 1f 2f none
[0.19, 0.25, 0.46, 0.1]
>>> combine(probs, reading, weight=1.0)[0, [0, 34, 35, 43]].astype(float).round(2).tolist()
[0.18, 0.0, 0.72, 0.1]
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from PIL import Image

from vision.classes import BONUS_CLASS_IDS, CLASS_NAMES, NUM_CLASSES
from vision.crops import tile_crops, upright_crops
from vision.onnx_session import open_session, read_both_ways

OTHER = "other"
READER_NAMES: tuple[str, ...] = (*(CLASS_NAMES[i] for i in BONUS_CLASS_IDS), OTHER)
"""The reader's nine answers: the eight bonus faces, then "another tile"."""
READER_SIZE = (72, 96)
"""The reader's crop (width, height): half as large again as the tile classifier's each way, about the size a
bonus tile has in a phone photo of a hand (median short side 53 px in the real val photos), so that its small
marks are not scaled away."""
READER_WEIGHT = 0.5
"""The reader's share in the mean of its answer and the tile classifier's (``combine``). Measured on the true
boxes of the bonus tiles (models/README.md): the mean reads more of them right than either alone on the real
val photos (93.1 % against 89.6 % for the classifier and 90.8 % for the reader alone) and on the training
styles (91.7 %, 89.3 %, 90.9 %), and nearly as many as the reader alone in the held-out style (92.2 %, 77.9 %,
94.5 %); unlike the reader alone it misreads no more of the other tiles than the classifier does."""
TRIGGER = 0.1
"""A box is looked at again when at least this share of the tile classifier's "a tile" probability is on the
bonus faces."""

DEFAULT_READER = Path(__file__).resolve().parent.parent / "models" / "bonus.onnx"


class BonusReaderError(Exception):
    """A bonus reader model that cannot be used, with a message for people."""


def bonus_share(probs: np.ndarray) -> np.ndarray:
    """Of the tile classifier's probability that each box is a tile (N x 44, "none" last), the share on the
    eight bonus faces."""
    return classifier_view(probs)[:, :-1].sum(axis=1)


def classifier_view(probs: np.ndarray) -> np.ndarray:
    """The tile classifier's probabilities (N x 44) as the reader's nine answers: of "a tile", the share of each
    bonus face, then of the other faces together."""
    tiles = probs[:, :NUM_CLASSES]
    bonus = tiles[:, BONUS_CLASS_IDS] / np.maximum(tiles.sum(axis=1, keepdims=True), 1e-9)
    return np.concatenate([bonus, 1.0 - bonus.sum(axis=1, keepdims=True)], axis=1)


def combine(probs: np.ndarray, reading: np.ndarray, weight: float = READER_WEIGHT) -> np.ndarray:
    """The tile classifier's probabilities (N x 44) with "a bonus tile, and which" decided by the mean of the
    reader's answer (N x 9) and the classifier's own (``classifier_view``), the reader's weighing ``weight``: the
    tile classifier keeps "none" and how the other faces share what the mean leaves them. Where the tile
    classifier gives the other faces nothing, the bonus faces take it all."""
    out = np.array(probs, dtype=np.float32, copy=True)
    tile = 1.0 - out[:, NUM_CLASSES]
    reading = weight * np.asarray(reading, dtype=np.float32) + (1.0 - weight) * classifier_view(out)
    bonus = reading[:, :len(BONUS_CLASS_IDS)]
    others = np.ones(NUM_CLASSES, dtype=bool)
    others[list(BONUS_CLASS_IDS)] = False
    rest = out[:, :NUM_CLASSES][:, others]
    rest_sum = rest.sum(axis=1)
    some_rest = rest_sum > 1e-6
    other_share = np.where(some_rest, reading[:, -1], 0.0)
    bonus = bonus / np.maximum(bonus.sum(axis=1, keepdims=True), 1e-9) * (1.0 - other_share)[:, None]
    block = out[:, :NUM_CLASSES]
    block[:, others] = np.where(some_rest[:, None], rest / np.maximum(rest_sum, 1e-9)[:, None], 0.0) \
        * (other_share * tile)[:, None]
    block[:, list(BONUS_CLASS_IDS)] = bonus * tile[:, None]
    out[:, :NUM_CLASSES] = block
    return out


class BonusReader:
    """Load once; ``reread`` is thread-safe (onnxruntime sessions may run from several threads)."""

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, threads: int | None = None,
                 trigger: float = TRIGGER, weight: float = READER_WEIGHT):
        path = Path(model_path) if model_path is not None else DEFAULT_READER
        if not path.is_file():
            raise BonusReaderError(f"No bonus reader model at '{path}'.")
        self.session = open_session(path, threads=threads, error=BonusReaderError, what="the bonus reader")
        self.model_path = path
        self.trigger = float(trigger)
        self.weight = float(weight)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        height, width = model_input.shape[2:]
        if not (isinstance(height, int) and isinstance(width, int)):
            raise BonusReaderError(f"The bonus reader '{path}' does not fix its crops' size.")
        self.size = (width, height)
        names = json.loads(self.session.get_modelmeta().custom_metadata_map.get("names", "null") or "null")
        if names != list(READER_NAMES):
            raise BonusReaderError(f"The bonus reader '{path}' does not name the eight bonus faces and "
                                   f"'{OTHER}' in that order.")

    def probabilities(self, crops: np.ndarray, batch: int = 32) -> np.ndarray:
        """N x H x W x 3 uint8 crops (``self.size``) -> N x 9 probabilities, each crop also read turned upside
        down (the same tile: the reader is trained on both ways up) and the two readings averaged."""
        if not len(crops):
            return np.zeros((0, len(READER_NAMES)), dtype=np.float32)
        return read_both_ways(self.session, self.input_name, crops, batch)

    def reread(self, image: Image.Image, boxes: np.ndarray, probs: np.ndarray, axes: np.ndarray | None = None,
               axis_reader=None) -> np.ndarray:
        """The tile classifier's probabilities (N x 44) of ``boxes`` (N x 4 pixels of ``image``), with the boxes
        it takes for a bonus tile (``bonus_share`` >= ``trigger``) read again (``combine``, the reader weighing
        ``weight``). With the faces' ``axes`` (N degrees, ``vision.orientation``; NaN where unknown) each box is
        also read from a crop turned so that its face stands upright (``vision.crops.upright_crops``, as the
        detector's classifier crops are), and the two readings are averaged: a flower laid apart at an angle of its
        own, or a row turned in the photo, then reads as the reader's training crops mostly show it. Measured at
        stop 20 (models/README.md): on the true boxes of the real val photos' bonus tiles 93.6 % right as cut,
        96.5 % upright, 95.4 % both; in the rendered meld scenes both reads the most hands exactly. Without ``axes``,
        an ``axis_reader`` (``vision.orientation.AxisReader``) reads those of the boxes looked at again, and no
        others (the ``--fast`` reading reads no axes before naming)."""
        probs = np.asarray(probs, dtype=np.float32)
        rows = np.flatnonzero(bonus_share(probs) >= self.trigger) if len(probs) else np.zeros(0, np.int64)
        if not len(rows):
            return probs
        out = probs.copy()
        chosen = np.asarray(boxes, dtype=np.float32)[rows]
        crops = tile_crops(image, chosen, size=self.size)
        if axes is not None:
            axes = np.asarray(axes, dtype=np.float64)[rows]
        elif axis_reader is not None:
            axes = np.asarray(axis_reader.axes(image, chosen), dtype=np.float64)
        if axes is None:
            reading = self.probabilities(crops)
        else:
            turned = upright_crops(image, chosen, axes, size=self.size)[0]
            both = self.probabilities(np.concatenate([crops, turned]))
            reading = (both[:len(rows)] + both[len(rows):]) / 2
        out[rows] = combine(probs[rows], reading, self.weight)
        return out

