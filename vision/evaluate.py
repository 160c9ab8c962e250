"""Measuring the detector on a labelled set, with our own code on the ONNX pipeline (not ultralytics' val).

``evaluate(predictions, truths)`` works on plain arrays, so any detector can be scored the same way
(the benchmark scores a third-party model with it); ``evaluate_folder`` runs our ``Detector`` over a
folder in YOLO layout (``images/`` + ``labels/``, optionally the renderer's ``sidecars/``).

The figures:

- **AP per class** (COCO-style): detections of a class from every photo, best score first, each matched
  greedily to the unmatched ground-truth box of that class with the highest IoU at or above the
  threshold; precision made monotone, read at 101 recall points (0, 0.01, .. 1) and averaged.
  **mAP50** is the mean over the classes present in the ground truth at IoU 0.5, **mAP50-95** the mean
  over IoU 0.50, 0.55, .. 0.95. A class with ground truth and no detection has AP 0.
- **Precision and recall** at the shipped confidence threshold (IoU 0.5, right class).
- **Confusions**: at the threshold, boxes are matched to ground truth by IoU >= 0.5 whatever the class
  (best IoU first); a match of another class is a confusion (truth -> read as). Unmatched truths are
  missed, unmatched detections extra. This fills the confusion matrix (43 classes + background).
- **Photos read exactly right**: every ground-truth tile matched with its class, no extra detection.
- **Sideways accuracy** (renderer sets only): of the true tiles matched by a detection, the share whose
  ``sideways`` flag agrees with the sidecar's.
- **The same AP under ultralytics' protocol** (``Report.multi_label``), when the predictions carry each box's
  next readings (``ImagePrediction.alternatives``): ultralytics' ``val`` (``multi_label=True``, at most 300
  detections a photo) lets each box stand for every class it scores, so a tile read 3m at 0.6 and 2m at 0.2
  is also a 2m detection at 0.2, low in the 2m curve. The top-1 figures above (each box one class) are the
  stricter and stay the headline; these make ours comparable with figures ultralytics prints for a YOLO.

>>> import numpy as np
>>> truth = [ImageTruth(np.array([[0, 0, 10, 10.]]), np.array([3]))]
>>> pred = [ImagePrediction(np.array([[0, 0, 10, 10.]]), np.array([0.9]), np.array([3]))]
>>> report = evaluate(pred, truth)
>>> report.map50, report.map50_95
(1.0, 1.0)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from vision.boxes import iou_matrix
from vision.classes import CLASS_NAMES, NUM_CLASSES

IOU_THRESHOLDS = np.round(np.arange(0.5, 0.96, 0.05), 2)
RECALL_POINTS = np.linspace(0.0, 1.0, 101)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".heic")


@dataclass(frozen=True)
class ImageTruth:
    """Ground truth of one photo: boxes (N x 4, pixels) and class ids; optional sideways flags."""

    boxes: np.ndarray
    classes: np.ndarray
    sideways: np.ndarray | None = None
    name: str = ""


@dataclass(frozen=True)
class ImagePrediction:
    """A detector's answer for one photo: boxes (N x 4, pixels), scores and class ids; optional sideways."""

    boxes: np.ndarray
    scores: np.ndarray
    classes: np.ndarray
    sideways: np.ndarray | None = None
    sideways_grouped: np.ndarray | None = None  # the grouping step's judgement of the same detections
    alternatives: np.ndarray | None = None
    """N x K x 2: each box's next readings (class id, confidence), as ``vision.detector.alternative_readings``
    gives them (rows with a class below 0 are empty); only the multi-label AP reads them."""


@dataclass
class Report:
    images: int
    truths: int
    map50: float
    map50_95: float
    ap50: dict[str, float]
    ap50_95: dict[str, float]
    confidence: float
    precision: float
    recall: float
    exact_photos: float
    confusions: list[tuple[str, str, int]]
    matrix: np.ndarray = field(repr=False)
    missed: int = 0
    extra: int = 0
    sideways_accuracy: float | None = None
    sideways_counted: int = 0
    sideways_grouped_accuracy: float | None = None
    classes: tuple[int, ...] = ()
    map_by_iou: dict[str, float] = field(default_factory=dict)
    """The mean AP over the classes at each IoU threshold ("0.50" .. "0.95"): where mAP50-95 is lost."""
    box_iou: float | None = None
    """The mean IoU of the boxes matched to a true tile (any class, IoU >= 0.5) at the threshold."""
    multi_label: dict[str, Any] | None = None
    """The AP figures under ultralytics' protocol (each box also stands for its next readings; ``with_next_readings``):
    "mAP50", "mAP50-95", "map_by_iou", "ap50"; None when the predictions carry no next readings."""
    edge_offsets: tuple[float, float, float, float] | None = None
    """The median offset of those boxes' left, top, right and bottom edges from the true boxes', as shares of the
    true box's width or height (positive: to the right or down): a bias the localiser could be corrected by."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "images": self.images, "truths": self.truths,
            "mAP50": round(self.map50, 4), "mAP50-95": round(self.map50_95, 4),
            "confidence": self.confidence, "precision": round(self.precision, 4), "recall": round(self.recall, 4),
            "exact_photos": round(self.exact_photos, 4), "missed": self.missed, "extra": self.extra,
            "sideways_accuracy": None if self.sideways_accuracy is None else round(self.sideways_accuracy, 4),
            "sideways_counted": self.sideways_counted,
            "sideways_grouped_accuracy": None if self.sideways_grouped_accuracy is None
            else round(self.sideways_grouped_accuracy, 4),
            "ap50": {k: round(v, 4) for k, v in self.ap50.items()},
            "ap50_95": {k: round(v, 4) for k, v in self.ap50_95.items()},
            "confusions": [{"truth": t, "read_as": p, "count": n} for t, p, n in self.confusions],
            "map_by_iou": {k: round(v, 4) for k, v in self.map_by_iou.items()},
            "box_iou": None if self.box_iou is None else round(self.box_iou, 4),
            "edge_offsets": None if self.edge_offsets is None else dict(zip(
                ("left", "top", "right", "bottom"), (round(v, 4) for v in self.edge_offsets))),
            "multi_label": None if self.multi_label is None else {
                "mAP50": round(self.multi_label["mAP50"], 4), "mAP50-95": round(self.multi_label["mAP50-95"], 4),
                "map_by_iou": {k: round(v, 4) for k, v in self.multi_label["map_by_iou"].items()},
                "ap50": {k: round(v, 4) for k, v in self.multi_label["ap50"].items()}},
        }

    def summary(self, top: int = 10) -> str:
        lines = [f"photos {self.images}, true tiles {self.truths}",
                 f"mAP50 {self.map50:.4f}   mAP50-95 {self.map50_95:.4f}",
                 f"at confidence {self.confidence:g}: precision {self.precision:.4f}, recall {self.recall:.4f}, "
                 f"missed {self.missed}, extra {self.extra}",
                 f"photos read exactly right: {self.exact_photos:.1%}"]
        if self.multi_label is not None:
            lines.insert(2, f"mAP50 {self.multi_label['mAP50']:.4f}   mAP50-95 {self.multi_label['mAP50-95']:.4f}   "
                            "under ultralytics' val protocol (each box also stands for its next readings)")
        if self.sideways_accuracy is not None:
            lines.append(f"sideways flag right on {self.sideways_accuracy:.1%} of {self.sideways_counted} matched tiles"
                         " (the detector's box-shape rule)")
        if self.sideways_grouped_accuracy is not None:
            lines.append(f"sideways right on {self.sideways_grouped_accuracy:.1%} of them after grouping "
                         "(vision.grouping, relative to each tile's row)")
        if self.map_by_iou:
            shown = ("0.50", "0.75", "0.85", "0.90", "0.95")
            lines.append("mAP by IoU threshold: " + ", ".join(f"{k} {self.map_by_iou[k]:.3f}" for k in shown
                                                             if k in self.map_by_iou))
        if self.box_iou is not None and self.edge_offsets is not None:
            lines.append(f"boxes matched at {self.confidence:g}: mean IoU {self.box_iou:.3f}; edges off the labels' "
                         "(median, share of the true box; + is right or down): " + ", ".join(
                             f"{name} {100 * v:+.2f} %" for name, v in zip(("left", "top", "right", "bottom"),
                                                                          self.edge_offsets)))
        if self.confusions:
            lines.append("most confused (truth -> read as: count): " + ", ".join(
                f"{t}->{p}: {n}" for t, p, n in self.confusions[:top]))
        ordered = sorted(self.ap50.items(), key=lambda kv: kv[1])
        lines.append("AP50 per class (worst first): " + ", ".join(f"{k} {v:.2f}" for k, v in ordered))
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# The metrics on arrays


def average_precision(tp: np.ndarray, scores: np.ndarray, positives: int) -> float:
    """COCO's 101-point interpolated AP of one class at one IoU threshold.

    ``tp``: 1/0 per detection (matched or not), ``scores`` their confidences, ``positives`` the number
    of ground-truth boxes. No ground truth: nan (the class is left out of the mean).

    >>> average_precision(np.array([1, 1]), np.array([0.9, 0.8]), 2)
    1.0
    >>> round(average_precision(np.array([1]), np.array([0.9]), 2), 4)   # one of two found: half the curve
    0.505
    """
    if positives == 0:
        return float("nan")
    if len(tp) == 0:
        return 0.0
    order = np.argsort(-np.asarray(scores), kind="stable")
    hits = np.asarray(tp, dtype=np.float64)[order]
    tps = np.cumsum(hits)
    fps = np.cumsum(1.0 - hits)
    recall = tps / positives
    precision = tps / np.maximum(tps + fps, np.finfo(np.float64).eps)
    # the precision envelope: the best precision at this recall or beyond
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    index = np.searchsorted(recall, RECALL_POINTS, side="left")
    values = np.where(index < len(precision), precision[np.minimum(index, len(precision) - 1)], 0.0)
    return float(values.mean())


def _match(ious: np.ndarray, threshold: float) -> np.ndarray:
    """Greedy matching of detections (rows, best score first) to truths (columns): for each detection
    the index of its truth, or -1."""
    matched = np.full(ious.shape[0], -1, dtype=np.int64)
    taken = np.zeros(ious.shape[1], dtype=bool)
    for row in range(ious.shape[0]):
        candidates = np.where(taken, -1.0, ious[row])
        if candidates.size == 0:
            continue
        best = int(candidates.argmax())
        if candidates[best] >= threshold:
            matched[row] = best
            taken[best] = True
    return matched


class _Curves:
    """Each class's detections (their hits at every IoU threshold and their scores) and true boxes, photo by photo,
    for the AP curves."""

    def __init__(self, wanted: np.ndarray) -> None:
        self.hits: dict[int, list[np.ndarray]] = {int(c): [] for c in wanted}
        self.scores: dict[int, list[np.ndarray]] = {int(c): [] for c in wanted}
        self.positives = {int(c): 0 for c in wanted}

    def add(self, p_boxes: np.ndarray, p_scores: np.ndarray, p_classes: np.ndarray, t_boxes: np.ndarray,
            t_classes: np.ndarray) -> None:
        """One photo: predictions best score first, truths (both already limited to the wanted classes)."""
        for c in np.unique(np.concatenate([t_classes, p_classes])).astype(int):
            ti = np.flatnonzero(t_classes == c)
            pi = np.flatnonzero(p_classes == c)
            self.positives[c] += len(ti)
            if not len(pi):
                continue
            ious = iou_matrix(p_boxes[pi], t_boxes[ti]) if len(ti) else np.zeros((len(pi), 0))
            hits = np.zeros((len(pi), len(IOU_THRESHOLDS)), dtype=np.float64)
            for k, threshold in enumerate(IOU_THRESHOLDS):
                hits[:, k] = _match(ious, threshold) >= 0
            self.hits[c].append(hits)
            self.scores[c].append(p_scores[pi])

    def ap(self) -> tuple[np.ndarray, list[int]]:
        """AP per class (rows) and IoU threshold (columns; nan for a class without truths), and the classes with
        truths."""
        n_thr = len(IOU_THRESHOLDS)
        ap = np.full((NUM_CLASSES, n_thr), np.nan)
        for c in self.hits:
            if self.positives[c] == 0:
                continue
            if self.hits[c]:
                hits, scores = np.concatenate(self.hits[c]), np.concatenate(self.scores[c])
            else:
                hits, scores = np.zeros((0, n_thr)), np.zeros(0)
            for k in range(n_thr):
                ap[c, k] = average_precision(hits[:, k], scores, self.positives[c])
        return ap, [c for c in self.hits if self.positives[c] > 0]


MAX_DETECTIONS = 300
"""At most this many detections a photo in the multi-label AP curves (ultralytics' ``max_det``)."""


def with_next_readings(prediction: ImagePrediction, max_detections: int = MAX_DETECTIONS
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes, scores and classes, best score first, with each box also standing for its next readings at their own
    (lower) confidences: ultralytics' multi-label protocol, cut to its ``max_det`` best.

    >>> p = ImagePrediction(np.array([[0, 0, 10, 10.]]), np.array([0.6]), np.array([3]),
    ...                     alternatives=np.array([[[4, 0.2], [-1, 0.0]]]))
    >>> boxes, scores, classes = with_next_readings(p)
    >>> scores.tolist(), classes.tolist()
    ([0.6, 0.2], [3, 4])
    """
    boxes = np.asarray(prediction.boxes, dtype=np.float64).reshape(-1, 4)
    scores = np.asarray(prediction.scores, dtype=np.float64).reshape(-1)
    classes = np.asarray(prediction.classes).reshape(-1).astype(np.int64)
    if prediction.alternatives is not None and len(boxes):
        others = np.asarray(prediction.alternatives, dtype=np.float64).reshape(len(boxes), -1, 2)
        box_index, slot = np.nonzero((others[..., 0] >= 0) & (others[..., 1] > 0))
        boxes = np.concatenate([boxes, boxes[box_index]])
        scores = np.concatenate([scores, others[box_index, slot, 1]])
        classes = np.concatenate([classes, others[box_index, slot, 0].astype(np.int64)])
    order = np.argsort(-scores, kind="stable")[:max_detections]
    return boxes[order], scores[order], classes[order]


def evaluate(predictions: Sequence[ImagePrediction], truths: Sequence[ImageTruth], *, confidence: float = 0.25,
             classes: Iterable[int] | None = None) -> Report:
    """Score predictions against truths (same order, one per photo). ``classes``: only these class ids
    count (others are dropped from both sides first), e.g. the 34 riichi kinds."""
    if len(predictions) != len(truths):
        raise ValueError("one prediction per photo is needed")
    wanted = np.asarray(sorted(set(classes)) if classes is not None else range(NUM_CLASSES))
    curves = _Curves(wanted)
    multi = _Curves(wanted) if any(p.alternatives is not None for p in predictions) else None
    matrix = np.zeros((NUM_CLASSES + 1, NUM_CLASSES + 1), dtype=np.int64)  # last row/column: background
    tp_at, det_at, truth_total, exact = 0, 0, 0, 0
    matched_ious: list[float] = []
    offsets: list[np.ndarray] = []
    side_right, side_counted, grouped_right = 0, 0, 0

    for prediction, truth in zip(predictions, truths):
        t_keep = np.isin(truth.classes, wanted)
        t_boxes = np.asarray(truth.boxes, dtype=np.float64).reshape(-1, 4)[t_keep]
        t_classes = np.asarray(truth.classes).reshape(-1)[t_keep]
        t_side = None if truth.sideways is None else np.asarray(truth.sideways).reshape(-1)[t_keep]
        p_keep = np.isin(prediction.classes, wanted)
        p_boxes = np.asarray(prediction.boxes, dtype=np.float64).reshape(-1, 4)[p_keep]
        p_scores = np.asarray(prediction.scores, dtype=np.float64).reshape(-1)[p_keep]
        p_classes = np.asarray(prediction.classes).reshape(-1)[p_keep]
        p_side = None if prediction.sideways is None else np.asarray(prediction.sideways).reshape(-1)[p_keep]
        p_grouped = None if prediction.sideways_grouped is None else \
            np.asarray(prediction.sideways_grouped).reshape(-1)[p_keep]
        order = np.argsort(-p_scores, kind="stable")
        p_boxes, p_scores, p_classes = p_boxes[order], p_scores[order], p_classes[order]
        if p_side is not None:
            p_side = p_side[order]
        if p_grouped is not None:
            p_grouped = p_grouped[order]

        # AP: per class, every threshold
        curves.add(p_boxes, p_scores, p_classes, t_boxes, t_classes)
        if multi is not None:
            m_boxes, m_scores, m_classes = with_next_readings(prediction)
            m_keep = np.isin(m_classes, wanted)
            multi.add(m_boxes[m_keep], m_scores[m_keep], m_classes[m_keep], t_boxes, t_classes)

        # at the shipped threshold: the same class (precision/recall), any class (confusions)
        above = p_scores >= confidence
        a_boxes, a_classes = p_boxes[above], p_classes[above]
        truth_total += len(t_boxes)
        det_at += len(a_boxes)
        right = 0
        for c in np.unique(np.concatenate([t_classes, a_classes])).astype(int):
            ti = np.flatnonzero(t_classes == c)
            pi = np.flatnonzero(a_classes == c)
            if len(ti) and len(pi):
                right += int((_match(iou_matrix(a_boxes[pi], t_boxes[ti]), 0.5) >= 0).sum())
        tp_at += right
        if right == len(t_boxes) == len(a_boxes):
            exact += 1
        ious = iou_matrix(a_boxes, t_boxes) if len(a_boxes) and len(t_boxes) else np.zeros((len(a_boxes), len(t_boxes)))
        matched = _match(ious, 0.5) if len(t_boxes) else np.full(len(a_boxes), -1)
        seen = np.zeros(len(t_boxes), dtype=bool)
        for row, col in enumerate(matched):
            if col >= 0:
                seen[col] = True
                matrix[int(t_classes[col]), int(a_classes[row])] += 1
                matched_ious.append(float(ious[row, col]))
                true_box = t_boxes[col]
                size = np.maximum(np.array([true_box[2] - true_box[0], true_box[3] - true_box[1]] * 2), 1e-9)
                offsets.append((a_boxes[row] - true_box) / size)
                if t_side is not None and p_side is not None:
                    side_counted += 1
                    side_right += int(bool(t_side[col]) == bool(p_side[above][row]))
                    if p_grouped is not None:
                        grouped_right += int(bool(t_side[col]) == bool(p_grouped[above][row]))
            else:
                matrix[NUM_CLASSES, int(a_classes[row])] += 1
        for col in np.flatnonzero(~seen):
            matrix[int(t_classes[col]), NUM_CLASSES] += 1

    ap, present = curves.ap()
    map50 = float(np.mean([ap[c, 0] for c in present])) if present else 0.0
    map50_95 = float(np.mean([ap[c].mean() for c in present])) if present else 0.0
    multi_label = None
    if multi is not None:
        m_ap, _ = multi.ap()
        multi_label = {
            "mAP50": float(np.mean([m_ap[c, 0] for c in present])) if present else 0.0,
            "mAP50-95": float(np.mean([m_ap[c].mean() for c in present])) if present else 0.0,
            "map_by_iou": {f"{t:.2f}": float(np.mean([m_ap[c, k] for c in present]))
                           for k, t in enumerate(IOU_THRESHOLDS)} if present else {},
            "ap50": {CLASS_NAMES[c]: float(m_ap[c, 0]) for c in present}}
    confusions = []
    for t in range(NUM_CLASSES):
        for p in range(NUM_CLASSES):
            if t != p and matrix[t, p]:
                confusions.append((CLASS_NAMES[t], CLASS_NAMES[p], int(matrix[t, p])))
    confusions.sort(key=lambda item: (-item[2], item[0], item[1]))
    return Report(
        images=len(truths), truths=truth_total, map50=map50, map50_95=map50_95,
        ap50={CLASS_NAMES[c]: float(ap[c, 0]) for c in present},
        ap50_95={CLASS_NAMES[c]: float(ap[c].mean()) for c in present},
        confidence=confidence, precision=tp_at / det_at if det_at else 0.0,
        recall=tp_at / truth_total if truth_total else 0.0, exact_photos=exact / len(truths) if truths else 0.0,
        confusions=confusions, matrix=matrix, missed=int(matrix[:NUM_CLASSES, NUM_CLASSES].sum()),
        extra=int(matrix[NUM_CLASSES, :NUM_CLASSES].sum()),
        sideways_accuracy=side_right / side_counted if side_counted else None, sideways_counted=side_counted,
        sideways_grouped_accuracy=grouped_right / side_counted
        if side_counted and all(p.sideways_grouped is not None for p in predictions) else None,
        classes=tuple(int(c) for c in wanted),
        map_by_iou={f"{t:.2f}": float(np.mean([ap[c, k] for c in present])) for k, t in enumerate(IOU_THRESHOLDS)}
        if present else {},
        box_iou=float(np.mean(matched_ious)) if matched_ious else None, multi_label=multi_label,
        edge_offsets=tuple(float(v) for v in np.median(np.array(offsets), axis=0)) if offsets else None)


# --------------------------------------------------------------------------------------------------
# A folder in YOLO layout


def list_images(folder: str | os.PathLike[str]) -> list[Path]:
    root = Path(folder)
    images = root / "images" if (root / "images").is_dir() else root
    return sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def upright_size(path: Path) -> tuple[int, int]:
    """The photo's width and height after EXIF orientation (YOLO labels are relative to that)."""
    from PIL import Image

    with Image.open(path) as image:
        width, height = image.size
        try:
            orientation = image.getexif().get(0x0112, 1)
        except Exception:
            orientation = 1
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def read_truth(image_path: Path) -> ImageTruth:
    """The YOLO label file beside ``images/`` (``labels/<stem>.txt``), in pixels; sideways flags from the
    renderer's sidecar (``sidecars/<stem>.json``) when there is one."""
    width, height = upright_size(image_path)
    label = image_path.parent.parent / "labels" / (image_path.stem + ".txt")
    rows = []
    if label.is_file():  # (no file: a photo without tiles, as YOLO has it)
        for number, line in enumerate(label.read_text().splitlines(), 1):
            if line.strip():
                rows.append(_label_row(line, f"{label.parent.name}/{label.name}, line {number}"))
    data = np.asarray(rows, dtype=np.float64).reshape(-1, 5)
    classes = data[:, 0].astype(np.int64)
    cx, cy, w, h = data[:, 1] * width, data[:, 2] * height, data[:, 3] * width, data[:, 4] * height
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    sideways = None
    sidecar = image_path.parent.parent / "sidecars" / (image_path.stem + ".json")
    if sidecar.is_file():
        sideways = _sidecar_sideways(sidecar, boxes)
    return ImageTruth(boxes, classes, sideways, image_path.name)


def _label_row(line: str, where: str) -> list[float]:
    """One YOLO label line (``class cx cy w h``, the box in shares of the photo) as numbers; a ValueError that says
    where and what is wrong otherwise: a line misread would score the detector against a label nobody gave.

    >>> _label_row("5 0.5 0.5 0.1 0.2", "x.txt, line 1")
    [5.0, 0.5, 0.5, 0.1, 0.2]
    >>> _label_row("99 0.5 0.5 0.1 0.2", "x.txt, line 2")
    Traceback (most recent call last):
    ...
    ValueError: x.txt, line 2: class 99 is not one of the 43 classes (0 to 42, docs/tiles-and-hands.md)
    """
    parts = line.split()
    if len(parts) != 5:
        raise ValueError(f"{where}: a label line is 'class x_centre y_centre width height' (a box), not {line.strip()!r}")
    try:
        values = [float(v) for v in parts]
    except ValueError:
        raise ValueError(f"{where}: a label line holds five numbers, not {line.strip()!r}") from None
    if not values[0].is_integer() or not 0 <= values[0] < NUM_CLASSES:
        raise ValueError(f"{where}: class {parts[0]} is not one of the {NUM_CLASSES} classes (0 to {NUM_CLASSES - 1}, "
                         "docs/tiles-and-hands.md)")
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values[1:]):
        raise ValueError(f"{where}: a box is given in shares of the photo, each from 0 to 1, not {line.strip()!r}")
    return values


def _sidecar_sideways(sidecar: Path, boxes: np.ndarray) -> np.ndarray | None:
    """Each label box's sideways flag, from the sidecar tile whose box matches it best."""
    try:
        tiles = [t for t in json.loads(sidecar.read_text())["tiles"] if t.get("labelled") and t.get("box")]
    except (ValueError, KeyError, OSError):
        return None
    if not tiles or not len(boxes):
        return None
    ious = iou_matrix(boxes, np.array([t["box"] for t in tiles], dtype=np.float64))
    return np.array([bool(tiles[int(j)].get("sideways", False)) for j in ious.argmax(axis=1)])


def read_exclusions(path: str | os.PathLike[str]) -> set[str]:
    """Photo names (file stems) listed one per line in a text file; ``#`` starts a comment.

    >>> import tempfile, pathlib
    >>> listed = pathlib.Path(tempfile.mkdtemp()) / "skip.txt"
    >>> _ = listed.write_text(chr(10).join(["# every tile labelled 1p", "IMG_1  # a note", "", "IMG_2.jpg"]))
    >>> sorted(read_exclusions(listed))
    ['IMG_1', 'IMG_2']
    """
    names = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.add(Path(name).stem if Path(name).suffix.lower() in IMAGE_SUFFIXES else name)
    return names


def evaluate_folder(folder: str | os.PathLike[str], detector: Any, *, confidence: float | None = None,
                    classes: Iterable[int] | None = None, limit: int | None = None,
                    progress: Callable[[int, int], None] | None = None, grouping: bool = True,
                    exclude: Iterable[str] = ()) -> Report:
    """Run ``detector`` (our ``Detector``) over every photo of a YOLO folder and score it. Detections are
    taken down to confidence 0.001 for the AP curves; precision, recall, confusions and exact photos
    use ``confidence`` (default: the detector's own). With ``grouping`` (and sidecars), the sideways flags
    are also judged after ``vision.grouping`` has read the shipped detections as a hand. Photos whose
    name (stem) is in ``exclude`` are left out (known labelling errors, say)."""
    from vision.detector import to_detections

    skipped = set(exclude)
    images = [path for path in list_images(folder) if path.stem not in skipped]
    if limit:
        images = images[:limit]
    if not images:
        raise ValueError(f"no photos in '{folder}' (expected images/ and labels/)")
    shipped = detector.confidence if confidence is None else confidence
    predictions, truths = [], []
    for number, path in enumerate(images):
        truths.append(read_truth(path))
        width, height, boxes, scores, cls, alternatives, axes = detector.raw_readings(path, 0.001)
        above = scores >= shipped
        # sideways is decided on the shipped detections, as `detect` does
        shipped_tiles = to_detections(width, height, boxes[above], scores[above], cls[above],
                                      axes=None if axes is None else axes[above])
        side = np.zeros(len(boxes), dtype=bool)
        grouped = np.zeros(len(boxes), dtype=bool) if grouping and truths[-1].sideways is not None else None
        if len(shipped_tiles):
            index = {tuple(np.round(t.box, 3)): t.sideways for t in shipped_tiles.tiles}
            side = np.array([index.get(tuple(np.round(b, 3)), False) for b in boxes.tolist()], dtype=bool)
            if grouped is not None:
                from vision.grouping import group

                judged = {e.detection: e.sideways for e in group(shipped_tiles).tiles}
                by_box = {tuple(np.round(t.box, 3)): judged.get(i, t.sideways)
                          for i, t in enumerate(shipped_tiles.tiles)}
                grouped = np.array([by_box.get(tuple(np.round(b, 3)), False) for b in boxes.tolist()], dtype=bool)
        predictions.append(ImagePrediction(boxes, scores, cls, side, grouped, alternatives))
        if progress:
            progress(number + 1, len(images))
    return evaluate(predictions, truths, confidence=shipped, classes=classes)


def plot_confusion(report: Report, path: str | os.PathLike[str], title: str = "") -> None:
    """The confusion matrix (rows truth, columns read as; last row and column: background, i.e. extra and
    missed) as a PNG: matplotlib when it is there, else Pillow."""
    matrix = report.matrix.astype(np.float64)
    labels = [*CLASS_NAMES, "none"]
    rows = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _plot_with_pillow(rows, labels, path, title)
        return
    figure, axes = plt.subplots(figsize=(13, 12))
    axes.imshow(rows, cmap="Blues", vmin=0, vmax=1)
    axes.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    axes.set_yticks(range(len(labels)), labels, fontsize=7)
    axes.set_xlabel("read as (none: missed)")
    axes.set_ylabel("truth (none: extra detection)")
    axes.set_title(title or f"confusion at confidence {report.confidence:g}, IoU 0.5 (row-normalised)")
    for t in range(len(labels)):
        for p in range(len(labels)):
            if matrix[t, p]:
                axes.text(p, t, str(int(matrix[t, p])), ha="center", va="center", fontsize=5,
                          color="white" if rows[t, p] > 0.5 else "black")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _plot_with_pillow(rows: np.ndarray, labels: list[str], path: str | os.PathLike[str], title: str) -> None:
    from PIL import Image, ImageDraw

    cell, margin = 16, 44
    n = len(labels)
    image = Image.new("RGB", (margin + n * cell + 4, margin + n * cell + 20), "white")
    draw = ImageDraw.Draw(image)
    for t in range(n):
        draw.text((2, margin + t * cell + 3), labels[t], fill="black")
        draw.text((margin + t * cell + 1, 2 + (t % 2) * 14), labels[t], fill="black")
        for p in range(n):
            shade = int(255 * (1 - rows[t, p]))
            x, y = margin + p * cell, margin + t * cell
            draw.rectangle([x, y, x + cell - 1, y + cell - 1], fill=(shade, shade, 255), outline=(230, 230, 230))
    draw.text((4, margin + n * cell + 4), title or "rows: truth, columns: read as", fill="black")
    image.save(path)
