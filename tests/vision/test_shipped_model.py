"""The shipped model itself (models/detector.onnx): it loads, runs on a real validation photo (or a
rendered stand-in when the shared photos are not there) and answers typed detections."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.tiles import Tile
from vision.classes import NUM_CLASSES
from vision.detections import Detection, Detections

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "detector.onnx"
REAL_VAL = REPO.parent / "shared" / "data" / "real-photos" / "val" / "images"

pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="no models/detector.onnx")


@pytest.fixture(scope="module")
def detector():
    pytest.importorskip("onnxruntime")
    from vision.detector import Detector

    return Detector(MODEL)


def test_the_model_is_small_and_has_our_classes(detector):
    assert MODEL.stat().st_size < 30 * 1024 * 1024
    assert detector.num_classes == NUM_CLASSES and detector.size in (320, 416, 480, 512, 640, 800, 960, 1024)
    assert detector.class_map.tolist() == list(range(NUM_CLASSES))


def test_it_reads_a_real_photo(detector, tmp_path):
    if REAL_VAL.is_dir():
        photo = sorted(REAL_VAL.iterdir())[0]
    else:  # pragma: no cover - CI without the shared photos
        from tests.vision.fakes import photo_with_boxes

        photo = tmp_path / "stand-in.jpg"
        photo_with_boxes(640, 480, [(40, 60, 100, 140)]).save(photo)
    detections = detector.detect(photo)
    assert isinstance(detections, Detections)
    assert (detections.width, detections.height) == (640, 640) or not REAL_VAL.is_dir()
    assert all(isinstance(t, Detection) for t in detections)
    assert all(isinstance(t.code, Tile) or t.code == "back" for t in detections)
    assert all(0.25 <= t.confidence <= 1 for t in detections)
    assert all(0 <= t.box[0] <= t.box[2] <= detections.width and 0 <= t.box[1] <= t.box[3] <= detections.height
               for t in detections)
    if REAL_VAL.is_dir():
        assert len(detector.detect(photo, confidence=0.01)) > 0  # the trained model sees something
    assert Detections.from_dict(detections.to_dict()).to_dict() == detections.to_dict()
