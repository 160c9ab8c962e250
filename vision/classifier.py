"""The tile classifier, the detector's second stage: names each tile the localiser found (onnxruntime).

    classifier = TileClassifier("models/classifier.onnx")
    probs = classifier.probabilities(crops)      # N x 44: the 43 classes, then "none" (not a tile)
    probs, boxes = classifier.read(crops)        # and, from a model with a box head, each tile's box in
                                                 # its crop (N x 4 shares; None from a model without one)
    probs, seen = classifier.read_features(crops)  # and what its last layer reads (N x 256; None from a
                                                   # model exported without it), for vision.sibling_readings

The model is exported by ``vision.classifier_training`` with its class names in the ONNX metadata; its
input is ``vision.crops``' N x 3 x 64 x 48 crops in 0..1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from vision.classes import CLASS_NAMES, NUM_CLASSES
from vision.crops import CROP_HEIGHT, CROP_WIDTH, to_tensor

DEFAULT_CLASSIFIER = Path(__file__).resolve().parent.parent / "models" / "classifier.onnx"


class ClassifierError(Exception):
    """A classifier model that cannot be used, with a message for people."""


class TileClassifier:
    """Load once; ``probabilities`` is thread-safe (onnxruntime sessions may run from several threads)."""

    draws_boxes: bool = False  # the model has a box head (a second output, "boxes")
    gives_features: bool = False  # the model also answers what its last layer reads (a second output, "features")

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, threads: int | None = None):
        path = Path(model_path) if model_path is not None else DEFAULT_CLASSIFIER
        if not path.is_file():
            raise ClassifierError(f"No tile classifier model at '{path}'.")
        from vision.onnx_session import open_session

        self.session = open_session(path, threads=threads, error=ClassifierError, what="the tile classifier")
        self.model_path = path
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = model_input.shape
        if shape[2:] != [CROP_HEIGHT, CROP_WIDTH]:
            raise ClassifierError(f"The tile classifier '{path}' takes {shape[2:]} crops, not "
                                  f"{[CROP_HEIGHT, CROP_WIDTH]}.")
        names = json.loads(self.session.get_modelmeta().custom_metadata_map.get("names", "null") or "null")
        if not isinstance(names, list) or list(names[:NUM_CLASSES]) != list(CLASS_NAMES):
            raise ClassifierError(f"The tile classifier '{path}' does not name the 43 classes in the spec's order.")
        self.names = tuple(names)
        second = [o.name for o in self.session.get_outputs()][1:2]
        self.draws_boxes = second == ["boxes"]
        self.gives_features = second == ["features"]

    def probabilities(self, crops: np.ndarray, batch: int = 64, *, half_turn: bool = True) -> np.ndarray:
        """N x H x W x 3 uint8 crops -> N x len(names) probabilities.

        With ``half_turn`` each crop is also read turned upside down (the same tile: the network was trained
        on both ways up) and the two readings are averaged; measured on the real val photos' true boxes this
        lifts the round-1 classifier from 94.7 % to 95.2 % right (held-out art style: 82.1 % to 82.9 %)."""
        return self.read(crops, batch, half_turn=half_turn)[0]

    def read(self, crops: np.ndarray, batch: int = 64, *, half_turn: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """Probabilities as ``probabilities`` gives them, and the box the model draws round the tile in each
        crop (N x 4: x1 y1 x2 y2 as shares of the crop's width and height), or None when the model has no
        box head. With ``half_turn`` the upside-down reading's box is turned back and the two averaged."""
        probs, second = self._run(crops, batch, half_turn)
        if second is None or not self.draws_boxes:
            return probs, None
        if half_turn:
            half = len(second) // 2
            second = (second[:half] + 1 - second[half:][:, [2, 3, 0, 1]]) / 2
        return probs, second

    def read_features(self, crops: np.ndarray, batch: int = 64, *, half_turn: bool = True
                      ) -> tuple[np.ndarray, np.ndarray | None]:
        """Probabilities as ``probabilities`` gives them, and what the network's last layer reads of each crop
        (N x 256 at width 32, averaged over both ways up like the probabilities), or None from a model exported
        without it (``gives_features``)."""
        probs, second = self._run(crops, batch, half_turn)
        if second is None or not self.gives_features:
            return probs, None
        if half_turn:
            half = len(second) // 2
            second = (second[:half] + second[half:]) / 2
        return probs, second

    def _run(self, crops: np.ndarray, batch: int, half_turn: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The probabilities (averaged over both ways up with ``half_turn``) and the second output as it came,
        each way up (None from a model with one output)."""
        crops = np.asarray(crops)
        if not len(crops):
            columns = self.session.get_outputs()[1].shape[1] if self.draws_boxes or self.gives_features else None
            return (np.zeros((0, len(self.names)), dtype=np.float32),
                    None if columns is None else np.zeros((0, columns), np.float32))
        if half_turn:
            crops = np.concatenate([crops, crops[:, ::-1, ::-1]])
        runs = [self.session.run(None, {self.input_name: to_tensor(crops[i:i + batch])})
                for i in range(0, len(crops), batch)]
        probs = np.concatenate([run[0] for run in runs]).astype(np.float32)
        second = np.concatenate([run[1] for run in runs]).astype(np.float32) if len(runs[0]) > 1 else None
        if half_turn:
            half = len(probs) // 2
            probs = (probs[:half] + probs[half:]) / 2
        return probs, second

    def classify(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best tile class (0..42) of each crop and its probability (low when the crop looks like no tile)."""
        return best_tile(self.probabilities(crops))


def best_tile(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best of the 43 tile classes in each row of the classifier's probabilities (N x 44, "none" last),
    and its probability."""
    tiles = probs[:, :NUM_CLASSES]
    classes = tiles.argmax(axis=1)
    return classes, tiles[np.arange(len(classes)), classes]
