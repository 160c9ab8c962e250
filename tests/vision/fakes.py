"""A stand-in for the ONNX model: it "detects" pure red rectangles in its input, so that the whole
pipeline (EXIF, letterbox, decode, NMS, mapping back, slicing) can be checked without trained weights."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image

from vision.classes import NUM_CLASSES
from vision.detector import Detector


class RedBoxSession:
    """Answers ultralytics' detect layout [1, 4 + nc, N] for the red rectangles of the input tensor."""

    def __init__(self, size: int, class_id: int = 3, score: float = 0.9, candidates: int = 64):
        self.size, self.class_id, self.score, self.candidates = size, class_id, score, candidates
        self.calls = 0

    def run(self, _names, feeds):
        self.calls += 1
        tensor = next(iter(feeds.values()))[0]  # 3 x S x S, 0..1
        r, g, b = tensor
        mask = ((r > 0.8) & (g < 0.3) & (b < 0.3)).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        out = np.zeros((4 + NUM_CLASSES, self.candidates), dtype=np.float32)
        for i in range(1, min(count, self.candidates)):
            x, y, w, h, area = stats[i]
            if area < 4:
                continue
            out[0, i], out[1, i], out[2, i], out[3, i] = x + w / 2, y + h / 2, w, h
            out[4 + self.class_id, i] = self.score
        return [out[None]]


def fake_detector(size: int = 320, **options) -> Detector:
    """A Detector whose session is a RedBoxSession (no model file, no onnxruntime)."""
    detector = object.__new__(Detector)
    detector.session = RedBoxSession(size)
    detector.model_path = "fake"
    detector.confidence = options.get("confidence", 0.25)
    detector.slicing = options.get("slicing", True)
    detector.input_name = "images"
    detector.size = size
    detector.num_classes = NUM_CLASSES
    detector.class_map = np.arange(NUM_CLASSES)
    return detector


def photo_with_boxes(width: int, height: int, boxes: list[tuple[int, int, int, int]]) -> Image.Image:
    """A grey photo with pure red filled rectangles (x1, y1, x2, y2, inclusive-exclusive)."""
    array = np.full((height, width, 3), 90, dtype=np.uint8)
    for x1, y1, x2, y2 in boxes:
        array[y1:y2, x1:x2] = (255, 0, 0)
    return Image.fromarray(array, "RGB")
