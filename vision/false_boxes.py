"""The localiser's false boxes on labelled photos: hard "none" examples for the tile classifier.

The classifier learns "none" (not a tile) from random tile-sized boxes off any tile and boxes astride two
tiles (``vision.classifier_training.image_crops``). The localiser's own mistakes are other things: the top
or side of a standing tile, a tile's shadow, a reflection, the edge of a tray. Where the classifier reads
such a box as a tile (a blank tile top looks like a blank White dragon), the detector reports a tile that
is not there. So we run the localiser over the rendered training photos, keep every box it finds that
overlaps no labelled tile, and the classifier trains on those as "none" (hard negative mining).

Only rendered photos are mined: their labels name every visible face, whereas a tile a human labeller
missed would come back as a "false" box and teach the classifier to reject a real tile.

The boxes of one folder depend on the localiser, so they are cached beside the folder's ``images/`` as
``false-boxes-<model digest>.json`` (the first 12 hex digits of the model file's SHA-256).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.boxes import iou_matrix
from vision.reading_cache import file_digest


def model_digest(path: str | os.PathLike[str]) -> str:
    """The first 12 hex digits of the file's SHA-256: the cache key of the boxes a model finds."""
    return file_digest(path)[:12]


def false_boxes(found: np.ndarray, scores: np.ndarray, labelled: np.ndarray, *, max_iou: float = 0.3
                ) -> tuple[np.ndarray, np.ndarray]:
    """The boxes of ``found`` (N x 4) that overlap every labelled box (M x 4) less than ``max_iou``, and
    their scores, best first.

    >>> found = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [1, 1, 11, 11]], dtype=float)
    >>> boxes, scores = false_boxes(found, np.array([0.9, 0.5, 0.4]), np.array([[0, 0, 10, 10]], dtype=float))
    >>> boxes.tolist(), scores.tolist()
    ([[20.0, 0.0, 30.0, 10.0]], [0.5])
    """
    found = np.asarray(found, dtype=np.float32).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float32).reshape(-1)
    if len(found) and len(labelled):
        keep = iou_matrix(found, np.asarray(labelled, dtype=np.float32).reshape(-1, 4)).max(axis=1) < max_iou
        found, scores = found[keep], scores[keep]
    order = np.argsort(-scores, kind="stable")
    return found[order], scores[order]


def mine_folder(images: str | os.PathLike[str], localiser: str | os.PathLike[str], *, min_score: float = 0.1,
                max_iou: float = 0.3, progress: bool = True, detector=None, workers: int = 0
                ) -> dict[str, np.ndarray]:
    """``{photo file name: K x 5 array (x1, y1, x2, y2, score)}`` of the localiser's false boxes on every
    labelled photo of an ``images/`` folder (labels in ``../labels``), read from the cache when it is there.

    ``detector`` may be a ready ``vision.detector.Detector`` for ``localiser`` (tests pass a stand-in)."""
    from vision.classifier_training import PHOTO_SUFFIXES, read_yolo_labels

    images = Path(images)
    cache = images.parent / f"false-boxes-{model_digest(localiser)}.json"
    key = {"min_score": min_score, "max_iou": max_iou}
    if cache.is_file():
        try:
            stored = json.loads(cache.read_text())
            if stored.get("settings") == key:
                return {name: np.asarray(rows, dtype=np.float32).reshape(-1, 5) for name, rows in stored["boxes"].items()}
        except (ValueError, KeyError, AttributeError):
            pass  # a broken cache is made again
    from vision.classifier_training import parallel_map

    made: dict[str, Any] = {}

    def localise(path: Path):
        # each process opens the model itself (a forked onnxruntime session is not to be shared), one thread each
        if "detector" not in made:
            from vision.detector import Detector

            made["detector"] = detector if detector is not None else (
                Detector(localiser, threads=1) if workers > 1 else Detector(localiser))
        return made["detector"].localise(path, min_score)

    paths = sorted(p for p in images.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
    mined: dict[str, np.ndarray] = {}
    started = time.time()
    for i, (path, (width, height, found, scores)) in enumerate(
            zip(paths, parallel_map(localise, paths, workers if detector is None else 0))):
        labelled, _ = read_yolo_labels(images.parent / "labels" / (path.stem + ".txt"), width, height)
        boxes, kept = false_boxes(found, scores, labelled, max_iou=max_iou)
        rows = np.concatenate([boxes, kept[:, None]], axis=1) if len(boxes) else np.zeros((0, 5), np.float32)
        mined[path.name] = np.round(rows, 2).astype(np.float32)  # as the cache keeps them: the same crops either way
        if progress and (i + 1) % 200 == 0:
            total = sum(len(v) for v in mined.values())
            print(f"  false boxes: {i + 1}/{len(paths)} photos, {total} boxes, {time.time() - started:.0f} s",
                  file=sys.stderr)
    cache.write_text(json.dumps({"localiser": str(localiser), "settings": key,
                                 "boxes": {name: rows.tolist() for name, rows in mined.items()}}))
    return mined
