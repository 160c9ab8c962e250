"""Box arithmetic in numpy: IoU, non-maximum suppression, letterboxing and slicing.

Boxes are float arrays of shape (N, 4) holding x1, y1, x2, y2. Nothing here knows about models.

>>> import numpy as np
>>> round(float(iou_matrix(np.array([[0, 0, 10, 10.]]), np.array([[5, 0, 15, 10.]]))[0, 0]), 4)
0.3333
>>> letterbox_geometry(1280, 960, 640)
(0.5, 0, 80, 640, 480)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def box_area(boxes: np.ndarray) -> np.ndarray:
    return np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1], 0, None)


def _intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` with every box in ``b``: shape (len(a), len(b))."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    inter = _intersection(a, b)
    union = box_area(a)[:, None] + box_area(b)[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def ios_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over the *smaller* box's area: 1.0 when one box lies inside the other."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    inter = _intersection(a, b)
    smaller = np.minimum(box_area(a)[:, None], box_area(b)[None, :])
    return np.where(smaller > 0, inter / np.maximum(smaller, 1e-12), 0.0)


def ioa_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over the area of each box of ``a``: the share of it that lies in each box of ``b``."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    area = box_area(a)[:, None]
    return np.where(area > 0, _intersection(a, b) / np.maximum(area, 1e-12), 0.0)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float, *, ios_threshold: float | None = None) -> np.ndarray:
    """Greedy non-maximum suppression: indices of the kept boxes, best score first.

    A box is dropped when its IoU with a kept, better box exceeds ``iou_threshold`` or, if given, when
    the intersection covers more than ``ios_threshold`` of the smaller of the two (a fragment of a tile
    found inside the whole tile, as happens where slices cut a tile)."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        best = int(order[0])
        keep.append(best)
        rest = order[1:]
        if not rest.size:
            break
        drop = iou_matrix(boxes[best:best + 1], boxes[rest])[0] > iou_threshold
        if ios_threshold is not None:
            drop |= ios_matrix(boxes[best:best + 1], boxes[rest])[0] > ios_threshold
        order = rest[~drop]
    return np.asarray(keep, dtype=np.int64)


def class_aware_nms(boxes: np.ndarray, scores: np.ndarray, classes: np.ndarray, iou_threshold: float = 0.5,
                    cross_class_iou: float | None = 0.8, ios_threshold: float | None = None) -> np.ndarray:
    """NMS within each class, then across classes at a higher IoU (tiles do not overlap, so two boxes
    over the same place with different classes are one tile read two ways: the better score wins).
    Answers the kept indices, best score first."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    classes = np.asarray(classes).reshape(-1)
    if not len(boxes):
        return np.zeros(0, dtype=np.int64)
    kept = []
    for value in np.unique(classes):
        members = np.flatnonzero(classes == value)
        kept.extend(members[nms(boxes[members], scores[members], iou_threshold, ios_threshold=ios_threshold)])
    kept_arr = np.asarray(kept, dtype=np.int64)
    kept_arr = kept_arr[np.argsort(-scores[kept_arr], kind="stable")]
    if cross_class_iou is not None and len(kept_arr) > 1:
        kept_arr = kept_arr[nms(boxes[kept_arr], scores[kept_arr], cross_class_iou, ios_threshold=ios_threshold)]
    return kept_arr


def vote_boxes(boxes: np.ndarray, scores: np.ndarray, keep: np.ndarray, *, iou_threshold: float = 0.85,
               power: float = 4.0) -> np.ndarray:
    """The boxes NMS kept (``keep``, indices into ``boxes``), each moved to the mean of every box that overlaps it
    at IoU ``iou_threshold`` or more (itself among them), weighted by score to the ``power``: "box voting". The
    localiser's neighbouring anchors and its two scales each draw the same tile a little differently; their
    consensus is tighter than the best-scored one alone. Answers len(keep) x 4.

    >>> boxes = np.array([[0, 0, 10, 20], [0.5, 0, 10.5, 20], [50, 50, 60, 70]], dtype=np.float32)
    >>> vote_boxes(boxes, np.array([0.9, 0.9, 0.8]), np.array([0, 2])).round(2).tolist()
    [[0.25, 0.0, 10.25, 20.0], [50.0, 50.0, 60.0, 70.0]]
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    keep = np.asarray(keep, dtype=np.int64).reshape(-1)
    if not len(keep):
        return np.zeros((0, 4), dtype=np.float64)
    weights = np.where(iou_matrix(boxes[keep], boxes) >= iou_threshold,
                       np.asarray(scores, dtype=np.float64).reshape(1, -1) ** power, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    voted = weights @ boxes / np.maximum(total, 1e-300)
    return np.where(total > 0, voted, boxes[keep])  # a degenerate box overlaps nothing, itself included


def lower_bottom_edges(boxes: np.ndarray, share: float, height: float) -> np.ndarray:
    """The boxes with each bottom edge moved down by ``share`` of the box's height, and not below ``height``.

    >>> lower_bottom_edges(np.array([[10, 20, 40, 120.]]), 0.01, 480).tolist()
    [[10.0, 20.0, 40.0, 121.0]]
    >>> lower_bottom_edges(np.array([[10, 400, 40, 479.]]), 0.05, 480).tolist()
    [[10.0, 400.0, 40.0, 480.0]]
    """
    out = np.array(boxes, dtype=np.float32 if np.asarray(boxes).dtype == np.float32 else np.float64, copy=True)
    if len(out):
        out[:, 3] = np.minimum(out[:, 3] + share * (out[:, 3] - out[:, 1]), height)
    return out


def letterbox_geometry(width: int, height: int, size: int, stride: int | None = None
                       ) -> tuple[float, int, int, int, int]:
    """How ultralytics' LetterBox fits a width x height image into a size x size square: (scale, left pad, top
    pad, resized width, resized height). With ``stride``, into the smallest canvas whose sides are the resized
    image's padded to a multiple of the stride (LetterBox(auto=True), as ultralytics predicts): see
    ``letterbox_canvas``.

    >>> letterbox_geometry(4032, 3024, 640, stride=32), letterbox_canvas(640, 480, 640, stride=32)
    ((0.15873015873015872, 0, 0, 640, 480), (640, 480))
    >>> letterbox_geometry(600, 400, 640, stride=32), letterbox_canvas(640, 427, 640, stride=32)
    ((1.0666666666666667, 0, 10, 640, 427), (640, 448))
    """
    scale = min(size / width, size / height)
    # at least a pixel a side: a sliver of a picture (20000 x 3) would round to none
    new_w, new_h = max(1, int(round(width * scale))), max(1, int(round(height * scale)))
    canvas_w, canvas_h = letterbox_canvas(new_w, new_h, size, stride)
    left = int(round((canvas_w - new_w) / 2 - 0.1))
    top = int(round((canvas_h - new_h) / 2 - 0.1))
    return scale, left, top, new_w, new_h


def letterbox_canvas(new_w: int, new_h: int, size: int, stride: int | None = None) -> tuple[int, int]:
    """The model input's width and height for an image resized to new_w x new_h: the square (size x size), or
    with ``stride`` each side padded only to a multiple of it (a 4:3 photo at 640: 640 x 480, a quarter of the
    square's work saved)."""
    if stride is None:
        return size, size
    return new_w + (size - new_w) % stride, new_h + (size - new_h) % stride


def unletterbox(boxes: np.ndarray, scale: float, left: int, top: int, width: int, height: int) -> np.ndarray:
    """Map boxes from the letterboxed square back to the original image's pixels, clipped to it."""
    out = np.asarray(boxes, dtype=np.float64).reshape(-1, 4).copy()
    out[:, [0, 2]] = (out[:, [0, 2]] - left) / scale
    out[:, [1, 3]] = (out[:, [1, 3]] - top) / scale
    out[:, [0, 2]] = out[:, [0, 2]].clip(0, width)
    out[:, [1, 3]] = out[:, [1, 3]].clip(0, height)
    return out


@dataclass(frozen=True, slots=True)
class Slice:
    """A window of the photo: x0, y0, x1, y1 in photo pixels."""

    x0: int
    y0: int
    x1: int
    y1: int


def _starts(length: int, window: int, count: int) -> list[int]:
    if count <= 1 or window >= length:
        return [0]
    step = (length - window) / (count - 1)
    return [int(round(i * step)) for i in range(count)]


def plan_slices(width: int, height: int, model_size: int, *, factor: float = 2.0, overlap: float = 0.25,
                max_per_side: int = 4) -> list[Slice]:
    """Overlapping windows for a photo too big for one pass (SAHI-style); [] when one pass will do.

    Slicing starts when the long side exceeds ``factor`` x the model's input size. Each window is
    square-ish, about ``factor`` x the model size (so it is shrunk at most ``factor`` times), with at
    most ``max_per_side`` windows along a side (bigger windows beyond that) and ``overlap`` of a window
    shared with its neighbour, so that a tile cut by one window's edge lies whole in the next."""
    long_side = max(width, height)
    if long_side <= factor * model_size:
        return []
    window = factor * model_size
    # windows along each side so that neighbours share `overlap` of a window
    def count(length: int, side: float) -> int:
        return max(1, math.ceil((length - side) / (side * (1 - overlap))) + 1) if length > side else 1

    while count(width, window) > max_per_side or count(height, window) > max_per_side:
        window *= 1.15
    side = int(math.ceil(window))
    nx, ny = count(width, side), count(height, side)
    w, h = min(side, width), min(side, height)
    return [Slice(x, y, x + w, y + h) for y in _starts(height, h, ny) for x in _starts(width, w, nx)]
