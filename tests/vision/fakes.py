"""A stand-in for the ONNX model: it "detects" pure red rectangles in its input, so that the whole
pipeline (EXIF, letterbox, decode, NMS, mapping back, slicing) can be checked without trained weights."""

from __future__ import annotations

import threading

import cv2
import numpy as np
from PIL import Image

from vision.classes import NUM_CLASSES
from vision.detector import Detector


class RedBoxSession:
    """Answers ultralytics' detect layout [B, 4 + nc, N] for the red rectangles of each input tensor."""

    def __init__(self, size: int, class_id: int = 3, score: float = 0.9, candidates: int = 64,
                 num_classes: int = NUM_CLASSES, slack: float = 0.0):
        self.size, self.class_id, self.score, self.candidates = size, class_id, score, candidates
        self.num_classes = num_classes
        self.slack = slack  # boxes this many input pixels too big each side, as a localiser's may be
        self.calls = 0
        self.batches: list[int] = []  # each run's batch size

    def run(self, _names, feeds):
        self.calls += 1
        batch = next(iter(feeds.values()))  # B x 3 x S x S, 0..1
        self.batches.append(len(batch))
        return [np.stack([self._answer(tensor) for tensor in batch])]

    def _answer(self, tensor: np.ndarray) -> np.ndarray:
        r, g, b = tensor
        mask = ((r > 0.8) & (g < 0.3) & (b < 0.3)).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        out = np.zeros((4 + self.num_classes, self.candidates), dtype=np.float32)
        for i in range(1, min(count, self.candidates)):
            x, y, w, h, area = stats[i]
            if area < 4:
                continue
            out[0, i], out[1, i], out[2, i], out[3, i] = x + w / 2, y + h / 2, w + 2 * self.slack, h + 2 * self.slack
            out[4 + self.class_id, i] = self.score
        return out


def fake_detector(size: int = 320, **options) -> Detector:
    """A Detector whose session is a RedBoxSession (no model file, no onnxruntime)."""
    detector = object.__new__(Detector)
    detector.session = RedBoxSession(size)
    detector.model_path = "fake"
    detector._remembered = threading.local()  # Detector.remembering's memo, as __init__ makes it
    detector.confidence = options.get("confidence", 0.25)
    detector.slicing = options.get("slicing", True)
    detector.input_name = "images"
    detector.size = size
    detector.batched = options.get("batched", True)  # a model with a free batch size (as the shipped localiser)
    detector.pass_sizes = tuple(options.get("pass_sizes", (size,)))  # a free-size model's scales (LOCALISER_SCALES)
    detector.num_classes = NUM_CLASSES
    detector.class_map = np.arange(NUM_CLASSES)
    detector.classifier = options.get("classifier")
    detector.refine_boxes = options.get("refine_boxes", True)
    detector.bonus_reader = options.get("bonus_reader")
    detector.axis_reader = options.get("axis_reader")
    detector.crop_margins = tuple(options.get("crop_margins", (0.08,)))  # one crop a box, as cut for training
    detector.read_upright = options.get("read_upright", False)
    detector.mirror = options.get("mirror", False)
    detector.unstretch = options.get("unstretch", True)
    detector.close_up_size = options.get("close_up_size")  # a free-size model's close-up pass (CLOSE_UP)
    detector.bottom_edge_shift = options.get("bottom_edge_shift", 0.0)  # BOTTOM_EDGE_SHIFT: off unless asked
    detector.share_readings = options.get("share_readings", True)  # with a classifier that gives features
    detector.sure_reading = options.get("sure_reading")  # SURE_READING: every box read from every crop unless asked
    detector.sure_one_way = options.get("sure_one_way")  # SURE_ONE_WAY: both ways up from the start unless asked
    detector.input_stride = options.get("input_stride")  # SNUG_INPUT: a square input unless asked
    if detector.classifier is not None:  # a one-class localiser in front of the tile classifier
        detector.session = RedBoxSession(size, class_id=0, num_classes=1, slack=options.get("slack", 0.0))
        detector.num_classes = 1
        detector.class_map = np.zeros(1, dtype=np.int64)
    return detector


class ColourClassifier:
    """A stand-in for the tile classifier: names a crop by its mean colour (red: the given class,
    anything else: "none"), through the same interface as ``vision.classifier.TileClassifier``."""

    draws_boxes = False

    def __init__(self, class_id: int = 7, probability: float = 0.8):
        self.class_id, self.probability = class_id, probability
        self.seen: list[np.ndarray] = []

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        self.seen.append(crops)
        probs = np.zeros((len(crops), NUM_CLASSES + 1), dtype=np.float32)
        for i, crop in enumerate(crops):
            r, g, b = crop.reshape(-1, 3).mean(axis=0)
            if r > 150 and g < 100:
                probs[i, self.class_id] = self.probability
                probs[i, NUM_CLASSES] = 1 - self.probability
            else:
                probs[i, NUM_CLASSES] = 1.0
        return probs

    def classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probs = self.probabilities(crops)[:, :NUM_CLASSES]
        classes = probs.argmax(axis=1)
        return classes, probs[np.arange(len(classes)), classes]


class BoxDrawingClassifier(ColourClassifier):
    """A ColourClassifier with a box head: it draws the box of the red pixels in each crop, as the real
    classifier's box head draws the tile's."""

    draws_boxes = True

    def read(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        drawn = np.zeros((len(crops), 4), dtype=np.float32)
        for i, crop in enumerate(crops):
            ys, xs = np.nonzero((crop[..., 0] > 150) & (crop[..., 1] < 100))
            if len(xs):
                h, w = crop.shape[:2]
                drawn[i] = (xs.min() / w, ys.min() / h, (xs.max() + 1) / w, (ys.max() + 1) / h)
        return self.probabilities(crops), drawn


class LookAlikeClassifier(ColourClassifier):
    """A ColourClassifier that also answers features (``TileClassifier.read_features``), the same for every crop
    (all its tiles look alike); a red crop with a dark mark in it, it reads unsurely as ``unsure_id``, with
    ``class_id`` next."""

    gives_features = True

    def __init__(self, class_id: int = 4, unsure_id: int = 2):
        super().__init__(class_id=class_id, probability=0.9)
        self.unsure_id = unsure_id

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        probs = super().probabilities(crops)
        for i, crop in enumerate(crops):
            if probs[i, self.class_id] and crop[..., 0].min() < 60:  # the dark mark
                probs[i, self.unsure_id], probs[i, self.class_id] = 0.5, 0.4
        return probs

    def read_features(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.probabilities(crops), np.ones((len(crops), 4), np.float32)


def photo_with_boxes(width: int, height: int, boxes: list[tuple[int, int, int, int]]) -> Image.Image:
    """A grey photo with pure red filled rectangles (x1, y1, x2, y2, inclusive-exclusive)."""
    array = np.full((height, width, 3), 90, dtype=np.uint8)
    for x1, y1, x2, y2 in boxes:
        array[y1:y2, x1:x2] = (255, 0, 0)
    return Image.fromarray(array, "RGB")


def tiny_localiser(path, side):
    """A one-class "localiser" ONNX file answering [1, 5, N]: its input's pixels, regrouped (``side`` 320: a
    fixed-size export; anything else: a free-size one, which names its output's class axis too, so the class
    count comes from ``names``). Needs onnx."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Reshape", ["images", "shape"], ["flat"]),
         helper.make_node("Slice", ["flat", "start", "end", "axis"], ["output0"])],
        "tiny", [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, side, side])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 5 if side == 320 else "c", None])],
        [helper.make_tensor("shape", TensorProto.INT64, [3], [1, 5, -1]),
         helper.make_tensor("start", TensorProto.INT64, [1], [0]),
         helper.make_tensor("end", TensorProto.INT64, [1], [1]),
         helper.make_tensor("axis", TensorProto.INT64, [1], [2])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    proto.ir_version = 8
    for key, value in {"imgsz": "[640, 640]", "names": "{0: 'item'}"}.items():
        proto.metadata_props.add(key=key, value=value)
    onnx.save(proto, path)
    return path
