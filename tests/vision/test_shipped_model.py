"""The shipped detector itself: models/detector.onnx (the one-class localiser) and models/classifier.onnx
(the tile classifier). They load, stay small, and read the real validation photos copied into
tests/data/real-photos with a minimum accuracy (nothing outside the repository is needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scorer.tiles import Tile
from vision.classes import CLASS_NAMES
from vision.detections import Detection, Detections

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "models"
MODEL = MODELS / "detector.onnx"
PHOTOS = REPO / "tests" / "data" / "real-photos" / "images"

pytestmark = pytest.mark.skipif(not MODEL.is_file(), reason="no models/detector.onnx")

# the floor this test holds the shipped pair to, on the 5 photos (87 tiles) in tests/data/real-photos;
# models/README.md has the measured figures (real val: 296 photos)
MIN_RECALL = 0.95  # measured 73 of 73 (1.0) with the shipped pair (round 4 localiser, round 3 classifier)
MIN_PRECISION = 0.95  # measured 73 of 73 (1.0)


@pytest.fixture(scope="module")
def detector():
    pytest.importorskip("onnxruntime")
    from vision.detector import Detector

    return Detector(MODEL)


def test_the_models_are_small_and_name_our_classes(detector):
    shipped = [p for p in MODELS.iterdir() if p.suffix in (".onnx", ".pt")]
    assert sum(p.stat().st_size for p in shipped) < 30 * 1024 * 1024
    assert detector.num_classes == 1 and detector.size in (320, 416, 480, 512, 640)
    assert detector.classifier is not None
    assert detector.classifier.names[:len(CLASS_NAMES)] == CLASS_NAMES and detector.classifier.names[-1] == "none"
    # it answers its features too, so that a photo's look-alike tiles are read together (vision.sibling_readings)
    assert detector.classifier.gives_features and detector.share_readings


def _truth(photo: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split() for line in (photo.parent.parent / "labels" / f"{photo.stem}.txt").read_text().splitlines()]
    data = np.array([[float(v) for v in row[:5]] for row in rows if len(row) >= 5])
    cx, cy, w, h = data[:, 1] * width, data[:, 2] * height, data[:, 3] * width, data[:, 4] * height
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1), data[:, 0].astype(int)


def test_it_reads_real_photos_with_a_minimum_accuracy(detector):
    _reads_real_photos_with_a_minimum_accuracy(detector)


def test_the_fast_reading_reads_real_photos_with_the_same_minimum_accuracy(detector):
    """``--fast`` (``FAST_READING``): one crop a box, no mirrored passes, the same shipped models."""
    from vision.detector import FAST_READING, Detector

    fast = Detector(detector.model_path, **FAST_READING)
    assert fast.crop_margins == (0.08,) and not fast.read_upright and not fast.mirror
    _reads_real_photos_with_a_minimum_accuracy(fast)


def _reads_real_photos_with_a_minimum_accuracy(detector, photos: Path = PHOTOS, tiles: int = 87):
    found, right, truths = _read_right(detector, photos)
    assert truths == tiles
    recall, precision = right / truths, right / max(found, 1)
    assert recall >= MIN_RECALL and precision >= MIN_PRECISION, (recall, precision)


def _read_right(detector, photos: Path) -> tuple[int, int, int]:
    """Tiles found, found and named right (IoU 0.5 with a label of their class, each label once), and labelled."""
    from vision.boxes import iou_matrix

    found = right = truths = 0
    for photo in sorted(photos.iterdir()):
        detections = detector.detect(photo)
        assert isinstance(detections, Detections) and all(isinstance(t, Detection) for t in detections)
        assert all(isinstance(t.code, Tile) or t.code == "back" for t in detections)
        assert all(0.25 <= t.confidence <= 1 for t in detections)
        assert all(0 <= t.box[0] <= t.box[2] <= detections.width and 0 <= t.box[1] <= t.box[3] <= detections.height
                   for t in detections)
        boxes, classes = _truth(photo, detections.width, detections.height)
        truths += len(boxes)
        found += len(detections)
        if len(detections):
            ious = iou_matrix(np.array([t.box for t in detections.tiles]), boxes)
            used: set[int] = set()
            for row, tile in enumerate(detections.tiles):  # best confidence first
                for col in np.argsort(-ious[row]):
                    if ious[row, col] < 0.5:
                        break
                    if col not in used and classes[col] == tile.class_id:
                        used.add(int(col))
                        right += 1
                        break
        assert Detections.from_dict(detections.to_dict()).to_dict() == detections.to_dict()
    return found, right, truths


def test_real_photos_resized_out_of_proportion_are_read_in_proportion(detector):
    """Two real val photos a publisher squeezed to a square (tests/data/real-stretched: tiles 10 times wider than
    tall, and 9 times taller than wide) read with the same floor; read as they are, they did not (measured: 25 of 30
    tiles right among 40 boxes)."""
    from vision.detector import Detector

    stretched = REPO / "tests" / "data" / "real-stretched" / "images"
    _reads_real_photos_with_a_minimum_accuracy(detector, stretched, tiles=30)
    found, right, _ = _read_right(Detector(detector.model_path, unstretch=False), stretched)
    assert right / max(found, 1) < MIN_PRECISION


def test_a_real_close_up_is_read_with_its_close_up_pass(detector):
    """A real heap filling the frame (tests/data/real-closeup): read with the same floor; without the close-up pass
    the localiser's scores leave most of its tiles under the threshold (measured: 3 of 14 found)."""
    from vision.detector import Detector

    heap = REPO / "tests" / "data" / "real-closeup" / "images"
    _reads_real_photos_with_a_minimum_accuracy(detector, heap, tiles=14)
    _, right, _ = _read_right(Detector(detector.model_path, close_up=False), heap)
    assert right < MIN_RECALL * 14


def test_localise_answers_the_first_stage_alone(detector):
    """``Detector.localise``: the localiser's boxes before the classifier names or rejects them, in the photo's
    pixels; every tile the two stages report is among them (the classifier only names, drops or redraws)."""
    from vision.boxes import iou_matrix

    photo = sorted(PHOTOS.iterdir())[0]
    width, height, boxes, scores = detector.localise(photo, 0.25)
    detections = detector.detect(photo)
    assert (width, height) == (detections.width, detections.height)
    assert boxes.shape == (len(scores), 4) and np.all(scores >= 0.25) and len(boxes) >= len(detections)
    named = np.array([t.box for t in detections.tiles])
    assert iou_matrix(named, boxes).max(axis=1).min() >= 0.7
    weaker = detector.localise(photo, 0.05)[2]
    assert len(weaker) >= len(boxes)


def test_unsure_boxes_are_the_tiles_under_the_threshold_apart_from_those_reported(detector):
    """``Detector.unsure_boxes`` (vision.photo_reading asks for it when a hand lacks a tile): the boxes read under the
    detector's threshold, down to the floor, that overlap no reported tile, the likeliest first. The box a looser
    threshold (0.2) reports under the shipped one (0.25) in this photo is among them, as it reads it."""
    from vision.boxes import iou_matrix
    from vision.detector import DEFAULT_CONFIDENCE, UNSURE_APART, UNSURE_FLOOR, UNSURE_LIMIT, Detector

    photo = PHOTOS / "real-row.jpg"
    looser = Detector(MODEL, confidence=0.2).detect(photo)
    between = [t for t in looser.tiles if t.confidence < DEFAULT_CONFIDENCE]
    # measured: a face-down box astride the row's right edge at 0.246 with stop 48's classifier (an extra box: the
    # row has 14 tiles); stop 47's reported it at 0.30, and this test then raised the threshold to 0.35 instead
    assert len(between) == 1
    reported = detector.detect(photo)
    assert len(reported) == len(looser) - 1
    unsure = detector.unsure_boxes(photo, reported)
    assert 0 < len(unsure) <= UNSURE_LIMIT
    scores = [t.confidence for t in unsure]
    assert scores == sorted(scores, reverse=True) and all(UNSURE_FLOOR <= s < DEFAULT_CONFIDENCE for s in scores)
    boxes = np.array([t.box for t in unsure])
    assert iou_matrix(boxes, np.array([t.box for t in reported.tiles])).max() < UNSURE_APART
    overlap = iou_matrix(np.array([between[0].box]), boxes)[0]
    assert overlap.max() >= 0.9 and unsure[int(overlap.argmax())].code == between[0].code
    assert unsure[int(overlap.argmax())].confidence == pytest.approx(between[0].confidence, abs=0.02)


def test_a_small_photo_read_closer_finds_its_tiles_in_its_own_pixels_and_a_big_one_is_not(detector):
    """``Detector.detect_closer`` (vision.photo_reading asks for it when a small photo's hand lacks a tile): the photo
    read enlarged twice, in windows, its boxes mapped back to the photo's pixels; every tile the photo's own reading
    reports is found there again as that tile. A photo read in windows at its own size is not enlarged (None)."""
    from PIL import Image

    from vision.boxes import iou_matrix

    photo = PHOTOS / "real-row.jpg"
    reported = detector.detect(photo)
    closer = detector.detect_closer(photo)
    assert (closer.width, closer.height) == (reported.width, reported.height) == (640, 640)
    boxes = np.array([t.box for t in closer.tiles])
    assert boxes.min() >= 0 and boxes[:, [0, 2]].max() <= 640 and boxes[:, [1, 3]].max() <= 640
    overlap = iou_matrix(np.array([t.box for t in reported.tiles]), boxes)
    assert (overlap.max(axis=1) >= 0.7).all()
    assert [closer.tiles[j].code for j in overlap.argmax(axis=1)] == [t.code for t in reported.tiles]
    big = Image.open(photo).convert("RGB").resize((2560, 2560))
    assert detector.detect_closer(big) is None
    # nor one whose sure tiles are seen big enough already (CLOSER_BELOW: 40 px in the 640-px input)
    from vision.detector import CLOSER_BELOW

    def tiles(side: float) -> Detections:
        return Detections(640, 640, tuple(Detection(Tile.parse("5p"), (10 + 1.5 * side * i, 10, 10 + 1.5 * side * i + side,
                                                                       10 + 1.3 * side), 0.9) for i in range(4)))

    assert detector.detect_closer(photo, tiles(CLOSER_BELOW + 1)) is None
    assert detector.detect_closer(photo, tiles(CLOSER_BELOW - 1)) is not None


def test_the_faces_bottom_edges_are_lowered_by_the_localisers_measured_bias(detector):
    """``BOTTOM_EDGE_SHIFT``: once named, each face's box has its bottom edge moved down by that share of its height
    (not past the photo); the other edges, the names and the scores stay, and so do face-down tiles' boxes and the
    first stage's own (``localise``). ``bottom_edge_shift=0`` answers the boxes as found."""
    from vision.classes import BACK_ID
    from vision.detector import BOTTOM_EDGE_SHIFT, Detector, DetectorError

    plain = Detector(detector.model_path, bottom_edge_shift=0)
    assert 0 < BOTTOM_EDGE_SHIFT < 0.02 and detector.bottom_edge_shift == BOTTOM_EDGE_SHIFT
    photo = sorted(PHOTOS.iterdir())[0]
    _, height, boxes, scores, classes = detector.raw(photo, 0.25)
    _, _, found, found_scores, found_classes = plain.raw(photo, 0.25)
    assert np.array_equal(classes, found_classes) and np.allclose(scores, found_scores)
    assert np.allclose(boxes[:, :3], found[:, :3])
    faces = classes != BACK_ID
    assert faces.sum() >= 10
    expected = np.minimum(found[:, 3] + BOTTOM_EDGE_SHIFT * (found[:, 3] - found[:, 1]), height)
    assert np.allclose(boxes[faces, 3], expected[faces], atol=1e-3) and np.all(boxes[faces, 3] > found[faces, 3])
    assert np.allclose(boxes[~faces], found[~faces])
    assert np.allclose(detector.localise(photo, 0.25)[2], plain.localise(photo, 0.25)[2])
    with pytest.raises(DetectorError, match="bottom_edge_shift"):
        Detector(detector.model_path, bottom_edge_shift=-0.01)


def test_the_bonus_and_face_axis_readers_ship_beside_it(detector):
    assert detector.bonus_reader is not None and detector.bonus_reader.model_path == MODELS / "bonus.onnx"
    assert detector.axis_reader is not None and detector.axis_reader.model_path == MODELS / "axis.onnx"


def _circular_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs((a - b + 90.0) % 180.0 - 90.0)


def test_the_face_axes_of_a_real_row_stand_upright_and_turn_with_the_photo(detector):
    """The real photo of a plain concealed row: its faces stand upright (axis 90), none reads sideways, and with
    the photo turned a quarter every axis turns with it."""
    from PIL import Image

    photo = Image.open(PHOTOS / "real-row.jpg").convert("RGB")
    boxes, _ = _truth(PHOTOS / "real-row.jpg", photo.width, photo.height)
    axes = detector.axis_reader.axes(photo, boxes)
    assert (_circular_gap(axes, 90.0) < 20).mean() >= 0.9, axes.round()
    turned = photo.transpose(Image.Transpose.ROTATE_90)  # counter-clockwise: (x, y) -> (y, width - x)
    turned_boxes = np.stack([boxes[:, 1], photo.width - boxes[:, 2], boxes[:, 3], photo.width - boxes[:, 0]], axis=1)
    turned_axes = detector.axis_reader.axes(turned, turned_boxes)
    assert (_circular_gap(turned_axes, axes + 90.0) < 20).mean() >= 0.9, (axes.round(), turned_axes.round())
    assert not any(t.sideways for t in detector.detect(PHOTOS / "real-row.jpg"))


def test_the_bonus_reader_reads_a_real_season(detector):
    """real-1.jpg holds one bonus tile, a 6f; the reader alone names it."""
    from PIL import Image

    from vision.bonus_reader import READER_NAMES
    from vision.crops import tile_crops

    photo = Image.open(PHOTOS / "real-1.jpg").convert("RGB")
    boxes, classes = _truth(PHOTOS / "real-1.jpg", photo.width, photo.height)
    season = boxes[[CLASS_NAMES[c] == "6f" for c in classes]]
    reading = detector.bonus_reader.probabilities(tile_crops(photo, season, size=detector.bonus_reader.size))
    assert READER_NAMES[int(reading[0].argmax())] == "6f", reading.round(2)


def test_a_real_row_turned_60_degrees_keeps_every_tile(detector):
    """Boxes astride two faces are dropped (vision.face_geometry), but not a real row's own tiles: in this photo the
    faces' rectangles come out too wide (a box holds the tile's sides too), and without NEIGHBOUR_GAP the middle
    tile was taken for a box astride its two neighbours (until stop 35; ROOM_BETWEEN now keeps it too)."""
    from vision.face_geometry import drop_astride

    photo = PHOTOS / "real-diagonal.jpg"
    detections = detector.detect(photo)
    assert sorted(t.code_str for t in detections) == sorted(
        CLASS_NAMES[c] for c in _truth(photo, detections.width, detections.height)[1])
    _, _, boxes, scores, _, axes = detector.raw_with_axes(photo)
    assert len(drop_astride(boxes, scores, axes)) == len(boxes)
    # whichever tile the detector is least sure of (the rule is greedy by score), the row keeps it, by either guard
    # alone (NEIGHBOUR_GAP, ROOM_BETWEEN); without both some tile of the row, least sure, would be taken for a box
    # astride its neighbours
    least_sure = [np.where(np.arange(len(scores)) == i, 0.0, scores) for i in range(len(scores))]
    for guards in ({}, {"neighbour": float("inf")}, {"room": float("inf")}):
        assert all(len(drop_astride(boxes, order, axes, **guards)) == len(boxes) for order in least_sure), guards
    assert any(len(drop_astride(boxes, order, axes, neighbour=float("inf"), room=float("inf"))) < len(boxes)
               for order in least_sure)


class _CountingSession:
    """The localiser's onnxruntime session, counting its runs."""

    def __init__(self, session):
        self.session, self.runs = session, 0

    def run(self, *args, **kwargs):
        self.runs += 1
        return self.session.run(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.session, name)


def test_a_photo_read_again_while_remembered_is_not_localised_again_and_reads_the_same(monkeypatch):
    """``Detector.remembering`` (stop 50): ``read_photo`` reads each photo twice; inside it the second reading
    decodes nothing and runs the localiser no more, and answers what it answers without; outside, nothing is kept."""
    pytest.importorskip("onnxruntime")
    import vision.detector as detector_module
    from vision.detector import Detector

    fresh = Detector(MODEL)
    counting = _CountingSession(fresh.session)
    fresh.session = counting
    decoded = []
    load_image = detector_module.load_image
    monkeypatch.setattr(detector_module, "load_image", lambda *a, **k: decoded.append(1) or load_image(*a, **k))
    photos = [p.read_bytes() for p in sorted(PHOTOS.glob("*.jpg"))[:2]]

    expected, first_runs = [], []
    for photo in photos:  # without remembering: each reading decodes the photo and runs the localiser afresh
        before = counting.runs
        found = fresh.detect(photo)
        first_runs.append(counting.runs - before)
        unsure = fresh.unsure_boxes(photo, found)
        assert first_runs[-1] > 0 and counting.runs - before == 2 * first_runs[-1]
        expected.append((found, unsure))
    assert len(decoded) == 2 * len(photos)

    decoded.clear()
    before = counting.runs
    with fresh.remembering():
        for photo, (found, unsure) in zip(photos, expected):  # two photos in one: each keeps its own answers
            again = fresh.detect(photo)
            assert again == found and fresh.unsure_boxes(photo, again) == unsure
    assert len(decoded) == len(photos) and counting.runs - before == sum(first_runs)

    before = counting.runs  # left: the same photo is decoded and localised afresh
    assert fresh.detect(photos[0]) == expected[0][0]
    assert counting.runs - before == first_runs[0] and len(decoded) == len(photos) + 1
