"""The detector's pipeline end to end with a stand-in model (tests/vision/fakes.py): EXIF orientation,
letterbox, decode, NMS, boxes mapped back to the photo, slicing of big photos, and the sideways rule."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scorer.tiles import Tile
from tests.pictures import png_header
from tests.vision.fakes import fake_detector, photo_with_boxes, tiny_localiser
from vision.detections import Detection
from vision.boxes import iou_matrix
from vision.detector import Detector, DetectorError, load_image, mark_sideways

REPO = Path(__file__).resolve().parents[2]


def boxes_of(detections):
    return sorted((tuple(round(v) for v in t.box) for t in detections), key=lambda b: (b[0], b[1]))


def test_boxes_come_back_in_photo_pixels():
    truth = [(40, 60, 100, 140), (120, 60, 180, 140), (300, 200, 420, 260)]
    detector = fake_detector(320)
    detections = detector.detect(photo_with_boxes(640, 480, truth))
    assert (detections.width, detections.height) == (640, 480)
    assert len(detections) == 3
    for found, want in zip(boxes_of(detections), truth):  # 1 model pixel = 2 photo pixels here
        assert np.allclose(found, want, atol=4)
    assert all(t.code == Tile.parse("4m") and t.confidence == pytest.approx(0.9) for t in detections)
    assert detector.session.calls == 1


def test_the_confidence_threshold_applies():
    detector = fake_detector(320)
    assert len(detector.detect(photo_with_boxes(640, 480, [(40, 60, 100, 140)]), confidence=0.95)) == 0


def test_any_photo_shape_and_array_input():
    truth = [(10, 400, 50, 460), (60, 400, 100, 460)]
    array = np.asarray(photo_with_boxes(200, 900, truth))
    detections = fake_detector(320).detect(array)
    assert (detections.width, detections.height) == (200, 900)
    for found, want in zip(boxes_of(detections), truth):
        assert np.allclose(found, want, atol=7)


def test_exif_orientation_is_applied(tmp_path):
    # Stored landscape 400x300 with orientation 6 (rotate 90 clockwise to view): upright it is 300x400.
    upright_truth = [(30, 250, 90, 330)]
    upright = photo_with_boxes(300, 400, upright_truth)
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # what a phone writes before the EXIF tag turns it
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    stored.save(path, quality=98, exif=exif)
    assert Image.open(path).size == (400, 300)
    image = load_image(path)
    assert image.size == (300, 400)
    detections = fake_detector(320).detect(path)
    assert (detections.width, detections.height) == (300, 400)
    assert np.allclose(boxes_of(detections)[0], upright_truth[0], atol=4)
    # bytes work the same way
    assert fake_detector(320).detect(path.read_bytes()).to_dict() == detections.to_dict()


def test_big_photos_are_sliced_and_small_tiles_found():
    # 4000 x 3000 with 24 x 32 px tiles: a whole-photo pass at 320 shrinks them to 2 x 3 px; the
    # windows see them at about 6 x 8 px, and their boxes come back within a model pixel.
    truth = [(400 + i * 60, 1500, 424 + i * 60, 1532) for i in range(14)] + [(3500, 200, 3524, 232)]
    # a tile right on a window edge must be found once
    truth.append((1280, 2600, 1304, 2632))
    photo = photo_with_boxes(4000, 3000, truth)
    detector = fake_detector(320)
    sliced = detector.detect(photo)
    assert detector.session.calls == 1 + 12  # the whole photo, then 4 x 3 windows
    assert len(sliced) == len(truth)
    for found, want in zip(boxes_of(sliced), sorted(truth)):
        assert np.allclose(found, want, atol=14)
    unsliced = fake_detector(320, slicing=False)
    unsliced.detect(photo)
    assert unsliced.session.calls == 1


def test_a_big_photo_whose_tiles_the_whole_photo_pass_sees_well_is_not_read_in_windows():
    from vision.detector import SLICE_BELOW

    # a hand photographed from close by with a 12 MP camera: 400 x 520 px tiles are 32 x 42 px in a 320 pass
    truth = [(300 + i * 430, 1300, 700 + i * 430, 1820) for i in range(6)]
    detector = fake_detector(320)
    found = detector.detect(photo_with_boxes(4000, 3000, truth))
    assert 400 * 320 / 4000 >= SLICE_BELOW
    assert detector.session.calls == 1 and len(found) == len(truth)  # no windows: they would add nothing
    # three such tiles are too few to judge by: the windows are read
    few = fake_detector(320)
    assert len(few.detect(photo_with_boxes(4000, 3000, truth[:3]))) == 3 and few.session.calls == 1 + 12


def test_a_model_of_free_input_size_reads_the_photo_at_every_scale_and_merges_the_passes():
    truth = [(100 + i * 70, 300, 150 + i * 70, 370) for i in range(5)]
    photo = photo_with_boxes(800, 600, truth)
    detector = fake_detector(640, pass_sizes=(640, 320))
    found = detector.detect(photo)
    assert detector.session.calls == 2  # one photo, no slices, two scales
    assert len(found) == len(truth)  # each tile seen at both scales is one detection
    for box, want in zip(boxes_of(found), sorted(truth)):
        assert np.allclose(box, want, atol=6)
    sliced = fake_detector(640, pass_sizes=(640, 320))
    sliced.detect(photo_with_boxes(4000, 3000, [(400, 1500, 424, 1532)]))
    # a photo for windows whose first pass shows no tiles big enough (one tile: too few to judge by) keeps that pass
    # alone; then (scaled to MAX_LONG_SIDE, 2200 px) 2 x 2 windows of 1280 px at the finest scale
    assert sliced.session.calls == 1 + 4
    whole = fake_detector(640, pass_sizes=(640, 320))
    big_tiles = [(300 + i * 430, 1300, 700 + i * 430, 1820) for i in range(6)]
    assert len(whole.detect(photo_with_boxes(4000, 3000, big_tiles))) == 6
    assert whole.session.calls == 2  # tiles seen whole: both scales, no windows, the first pass run once


def test_a_snug_input_reads_a_wide_photo_at_its_own_proportions_and_finds_the_same_boxes():
    """SNUG_INPUT: a 4:3 photo goes to the model as 640 x 480 and 320 x 256, not as squares, and its boxes come back
    to the same places in the photo."""
    truth = [(100 + i * 70, 300, 150 + i * 70, 370) for i in range(5)]
    photo = photo_with_boxes(800, 600, truth)
    snug = fake_detector(640, pass_sizes=(640, 320), input_stride=32)
    square = fake_detector(640, pass_sizes=(640, 320))
    shapes = []
    run = snug.session.run
    snug.session.run = lambda names, feeds: shapes.append(next(iter(feeds.values())).shape) or run(names, feeds)
    found, expected = boxes_of(snug.detect(photo)), boxes_of(square.detect(photo))
    assert shapes == [(1, 3, 480, 640), (1, 3, 256, 320)]  # 240 rows padded to 256, a multiple of 32
    assert len(found) == len(truth) and np.allclose(found, expected, atol=1)


def test_the_stride_comes_from_the_models_metadata():
    from vision.detector import _metadata_stride

    assert _metadata_stride({"stride": "16"}) == 16
    assert _metadata_stride({}) == 32 and _metadata_stride({"stride": "wide"}) == 32  # ultralytics' YOLO: 32


def test_the_pass_sizes_come_from_the_model_and_the_scales(tmp_path):
    pytest.importorskip("onnxruntime")
    model = tiny_localiser

    classifier = Path(__file__).resolve().parents[2] / "models" / "classifier.onnx"
    if not classifier.is_file():
        pytest.skip("no shipped classifier")
    fixed = Detector(model(tmp_path / "fixed.onnx", 320), classifier_path=classifier)
    assert fixed.size == 320 and fixed.pass_sizes == (320,)  # a fixed input has one scale
    free = Detector(model(tmp_path / "free.onnx", "side"), classifier_path=classifier)
    assert free.size == 640 and free.pass_sizes == (640, 320) and free.num_classes == 1
    # a free-size model's input is padded to its stride (SNUG_INPUT), a fixed one's is the square it takes
    assert free.input_stride == 32 and fixed.input_stride is None
    assert Detector(tmp_path / "free.onnx", classifier_path=classifier, snug_input=False).input_stride is None
    assert Detector(tmp_path / "free.onnx", classifier_path=classifier, scales=[1.0]).pass_sizes == (640,)
    assert Detector(tmp_path / "free.onnx", classifier_path=classifier, scales=[0.7, 1.0]).pass_sizes == (640, 448)
    with pytest.raises(DetectorError, match="scales"):
        Detector(tmp_path / "free.onnx", classifier_path=classifier, scales=[0])


def test_a_photo_resized_out_of_proportion_is_read_again_in_proportion_and_its_boxes_come_back():
    """A publisher's export squeezed to a square: tiles 9 times wider than tall. The first pass tells it from the
    tiles' shape; the photo is read again with its height enlarged until they stand 3 : 4, and the boxes come
    back in the photo's own pixels."""
    truth = [(40, 40 + 80 * i, 580, 100 + 80 * i) for i in range(5)]
    detector = fake_detector(320, slicing=False)  # (the restored photo is 7,680 px tall: its windows are tested apart)
    detections = detector.detect(photo_with_boxes(640, 640, truth))
    assert detector.session.calls == 2  # the photo as it is, then restored
    assert (detections.width, detections.height) == (640, 640)
    found = np.array(boxes_of(detections), dtype=float)
    assert len(found) == 5 and iou_matrix(found, np.array(truth, dtype=float)).diagonal().min() > 0.9
    as_is = fake_detector(320, slicing=False, unstretch=False)
    as_is.detect(photo_with_boxes(640, 640, truth))
    assert as_is.session.calls == 1
    in_proportion = fake_detector(320, slicing=False)
    in_proportion.detect(photo_with_boxes(640, 640, [(40 + 70 * i, 200, 100 + 70 * i, 280) for i in range(5)]))
    assert in_proportion.session.calls == 1


def test_a_close_up_is_also_read_with_a_pass_at_a_quarter_of_the_input():
    """Tiles a fifth of the photo long (``CLOSE_UP``: 0.15 or more; a heap filling the frame): the close-up pass is
    added to the model's two scales and the three merged; a photo of small tiles is read once."""
    big = [(20 + 110 * i, 100, 110 + 110 * i, 220) for i in range(5)]
    close = fake_detector(320, pass_sizes=(320, 160), close_up_size=96)
    detections = close.detect(photo_with_boxes(640, 480, big))
    assert close.session.calls == 2 + 1 and len(detections) == 5  # the first two passes kept, the close-up's added
    small = fake_detector(320, pass_sizes=(320, 160), close_up_size=96)
    small.detect(photo_with_boxes(640, 480, [(20 + 40 * i, 100, 50 + 40 * i, 140) for i in range(5)]))
    assert small.session.calls == 2
    fixed = fake_detector(320, pass_sizes=(320,))  # a fixed-size model has no close-up pass
    fixed.detect(photo_with_boxes(640, 480, big))
    assert fixed.session.calls == 1


def test_a_big_tile_cut_by_windows_is_found_once():
    photo = photo_with_boxes(2000, 1500, [(600, 600, 900, 1000)])  # larger than a window's overlap
    detections = fake_detector(320).detect(photo)
    assert len(detections) == 1
    assert np.allclose(boxes_of(detections)[0], (600, 600, 900, 1000), atol=10)


def test_unreadable_photos_say_so(tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_text("not a photo")
    with pytest.raises(DetectorError, match="Cannot read"):
        load_image(bad)
    with pytest.raises(DetectorError, match="No such file"):
        load_image(tmp_path / "missing.jpg")
    with pytest.raises(DetectorError, match="folder"):
        load_image(tmp_path)
    with pytest.raises(DetectorError, match="Cannot read"):
        load_image(b"\x00\x01")
    with pytest.raises(DetectorError):
        load_image(np.zeros((4, 4)))


@pytest.mark.parametrize("size", [(20000, 3), (15, 400), (1, 1)])
def test_a_picture_no_tile_fits_in_is_refused_with_its_size(size):
    """A sliver once crashed the localiser's resize (a side scaled to 0 pixels) with a traceback."""
    with pytest.raises(DetectorError, match=f"{size[0]} x {size[1]} pixels: too small"):
        load_image(Image.new("RGB", size))
    with pytest.raises(DetectorError, match="too small"):
        load_image(np.zeros((size[1], size[0], 3), np.uint8))


def test_the_smallest_picture_accepted_is_read():
    assert load_image(Image.new("RGB", (16, 16))).size == (16, 16)


def test_a_decompression_bomb_is_refused_with_a_message():
    with pytest.raises(DetectorError, match="too large to be a photo"):
        load_image(png_header(30000, 30000))


def test_missing_or_broken_model(tmp_path):
    with pytest.raises(DetectorError, match="No detector model"):
        Detector(tmp_path / "none.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not onnx")
    with pytest.raises(DetectorError, match="Cannot load"):
        Detector(broken)


def tile(box, code="5p"):
    return Detection(Tile.parse(code), box, 0.9)


def test_sideways_rule_in_an_upright_row():
    row = [tile((i * 30, 0, i * 30 + 28, 40)) for i in range(6)]
    row.append(tile((200, 10, 240, 38)))  # wider than tall among tall tiles
    marked = mark_sideways(row)
    assert [t.sideways for t in marked] == [False] * 6 + [True]


def test_sideways_rule_in_a_photo_turned_a_quarter():
    column = [tile((0, i * 30, 40, i * 30 + 28)) for i in range(6)]
    column.append(tile((10, 200, 38, 240)))
    assert [t.sideways for t in mark_sideways(column)] == [False] * 6 + [True]


def test_sideways_rule_abstains_on_squarish_tiles_and_few_tiles():
    squares = [tile((i * 30, 0, i * 30 + 29, 30)) for i in range(5)] + [tile((200, 0, 240, 32))]
    assert not any(t.sideways for t in mark_sideways(squares))
    two = [tile((0, 0, 28, 40)), tile((40, 0, 80, 28))]
    assert not any(t.sideways for t in mark_sideways(two))
    # a box only a little wider than tall (within the margin) is not called sideways
    row = [tile((i * 30, 0, i * 30 + 28, 40)) for i in range(6)] + [tile((200, 0, 241, 40))]
    assert not mark_sideways(row)[-1].sideways


def test_importing_vision_loads_neither_torch_nor_onnxruntime():
    code = ("import sys, vision, vision.detector, vision.detections, vision.evaluate, vision.boxes, vision.draw; "
            "bad = [m for m in ('torch', 'ultralytics', 'onnxruntime', 'matplotlib') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_drawing(tmp_path):
    from vision.draw import draw_detections, save_drawing

    photo = photo_with_boxes(640, 480, [(40, 60, 100, 140)])
    detections = fake_detector(320).detect(photo)
    drawn = draw_detections(photo, detections)
    assert drawn.size == photo.size and drawn.tobytes() != photo.tobytes()
    save_drawing(photo, detections, tmp_path / "out.jpg")
    assert Image.open(tmp_path / "out.jpg").size == (640, 480)


def test_a_big_jpeg_is_decoded_at_a_reduced_scale_and_boxes_come_back_in_its_pixels():
    from vision.detector import DRAFT_LONG_SIDE, load_image

    boxes = [(400, 600, 560, 820), (2400, 1800, 2560, 2020)]
    buffer = io.BytesIO()
    photo_with_boxes(4000, 3000, boxes).save(buffer, "JPEG", quality=95)
    data = buffer.getvalue()
    drafted = load_image(data, draft_long_side=DRAFT_LONG_SIDE)
    assert drafted.size == (2000, 1500) and drafted.info["full_size"] == (4000, 3000)
    assert load_image(data).size == (4000, 3000)  # not asked: full size
    detections = fake_detector().detect(data)
    assert (detections.width, detections.height) == (4000, 3000)
    found = sorted(tuple(round(v / 10) * 10 for v in t.box) for t in detections)
    assert len(found) == 2
    for got, want in zip(found, sorted(boxes)):
        assert all(abs(g - w) <= 12 for g, w in zip(got, want)), (got, want)


def test_the_windows_of_a_photo_too_long_for_the_reduced_decoding_are_cut_from_it_scaled_down():
    from vision.detector import DRAFT_LONG_SIDE, MAX_LONG_SIDE

    # 3300 px: too short for libjpeg's half-scale decoding (which keeps DRAFT_LONG_SIDE), longer than MAX_LONG_SIDE;
    # small tiles (20 x 27 px in the 640-px whole-photo pass), so the windows are read
    boxes = [(330, 500, 430, 635), (2300, 1500, 2400, 1635)]
    buffer = io.BytesIO()
    photo_with_boxes(3300, 2475, boxes).save(buffer, "PNG")
    data = buffer.getvalue()
    assert 3300 < 2 * DRAFT_LONG_SIDE < 2 * MAX_LONG_SIDE
    detector = fake_detector(640)
    detections = detector.detect(data)
    assert (detections.width, detections.height) == (3300, 2475)
    assert detector.session.calls == 1 + 4  # 1280-px windows planned on the scaled photo: 2 x 2, not 3 x 3
    found = sorted(tuple(t.box) for t in detections)
    assert len(found) == 2
    for got, want in zip(found, sorted(boxes)):
        assert all(abs(g - w) <= 12 for g, w in zip(got, want)), (got, want)


def test_a_drafted_photo_turned_by_its_exif_keeps_its_upright_full_size():
    from vision.detector import load_image

    exif = Image.Exif()
    exif[0x0112] = 6  # turned a quarter
    buffer = io.BytesIO()
    photo_with_boxes(4000, 3000, [(100, 100, 200, 240)]).save(buffer, "JPEG", exif=exif.tobytes())
    image = load_image(buffer.getvalue(), draft_long_side=1800)
    assert image.size == (1500, 2000) and image.info["full_size"] == (3000, 4000)


class _FixedLocaliser:
    """A one-class localiser answering fixed candidates (centre x, y, width, height in input pixels, score)."""

    def __init__(self, candidates):
        self.candidates = candidates

    def run(self, _names, _feeds):
        out = np.zeros((5, len(self.candidates)), dtype=np.float32)
        for i, candidate in enumerate(self.candidates):
            out[:, i] = candidate
        return [out[None]]


class _RedShareClassifier:
    """Names a crop 7m when it is mostly red, else "none" (not a tile)."""

    draws_boxes = False

    def probabilities(self, crops):
        red = ((crops[..., 0] > 200) & (crops[..., 1] < 60)).mean(axis=(1, 2))
        probs = np.zeros((len(crops), 44), dtype=np.float32)
        probs[:, 6] = np.where(red > 0.6, 0.9, 0.0)
        probs[:, 43] = 1 - probs[:, 6]
        return probs

    def classify(self, crops):
        probs = self.probabilities(crops)[:, :43]
        return probs.argmax(axis=1), probs.max(axis=1)


def test_a_box_the_classifier_rejects_does_not_hide_the_tile_beneath_it():
    # the localiser is surer of a box astride a tile and the table (IoU 0.6 with the tile's own box) than
    # of the tile's box; the classifier calls the wide box no tile, so the tile's box must survive
    detector = fake_detector(320, classifier=_RedShareClassifier())
    detector.session = _FixedLocaliser([(120, 146.5, 40, 93, 0.9), (120, 128, 40, 56, 0.8)])
    detections = detector.detect(photo_with_boxes(320, 320, [(100, 100, 140, 156)]))
    assert [t.code_str for t in detections.tiles] == ["7m"]
    assert boxes_of(detections.tiles) == [(100, 100, 140, 156)]
    assert detections.tiles[0].confidence == pytest.approx(0.8 * 0.9)


def test_a_box_over_part_of_a_tile_is_dropped_by_the_final_nms():
    # the localiser also boxes the tile's lower 40 % (IoU 0.4 with the tile's box, inside it, so its crop reads 7m
    # too): with the final NMS at FINAL_IOU (0.35) it goes; at 0.5, as until stop 23, the hand got a tile too many
    from vision.detector import FINAL_IOU

    assert 0.3 <= FINAL_IOU < 0.4
    detector = fake_detector(320, classifier=_RedShareClassifier())
    detector.session = _FixedLocaliser([(120, 128, 40, 56, 0.9), (120, 144.8, 40, 22.4, 0.8)])
    detections = detector.detect(photo_with_boxes(320, 320, [(100, 100, 140, 156)]))
    assert [t.code_str for t in detections.tiles] == ["7m"]
    assert boxes_of(detections.tiles) == [(100, 100, 140, 156)]
    # two tiles side by side (their boxes touch) both stay
    detector.session = _FixedLocaliser([(120, 128, 40, 56, 0.9), (160, 128, 40, 56, 0.8)])
    detections = detector.detect(photo_with_boxes(320, 320, [(100, 100, 140, 156), (140, 100, 180, 156)]))
    assert [t.code_str for t in detections.tiles] == ["7m", "7m"]


def test_alternative_readings_keep_the_next_likeliest_tiles_on_the_detections_scale():
    from vision.detector import ALTERNATIVES, alternative_readings, to_detections

    probs = np.zeros((2, 44), np.float32)
    probs[0, [5, 7, 9, 11, 43]] = [0.6, 0.25, 0.1, 0.005, 0.045]  # "none" (43) is never an alternative
    probs[1, 3] = 1.0
    rows = alternative_readings(probs, np.array([0.5, 0.9], np.float32))
    assert rows.shape == (2, ALTERNATIVES, 2)
    assert np.allclose(rows[0], [[7, 0.125], [9, 0.05], [-1, 0]])  # 11 is under ALTERNATIVE_SHARE
    assert np.allclose(rows[1], [[-1, 0]] * ALTERNATIVES)
    boxes = np.array([[0, 0, 30, 40], [40, 0, 70, 40]], np.float32)
    found = to_detections(100, 50, boxes, np.array([0.3, 0.9]), np.array([5, 3]), rows)
    assert [(t.code_str, [(str(c), round(p, 3)) for c, p in t.alternatives]) for t in found.tiles] == \
        [("4m", []), ("6m", [("8m", 0.125), ("1p", 0.05)])]


class _SpreadClassifier:
    """Names every crop a tile, its probability spread over three classes (a face of an unfamiliar art style):
    0.2 each for 1m, 2m and 3m, and ``none`` for "not a tile"."""

    draws_boxes = False

    def __init__(self, none: float):
        self.none = none

    def probabilities(self, crops):
        probs = np.zeros((len(crops), 44), dtype=np.float32)
        probs[:, [0, 1, 2]] = (1 - self.none) / 3
        probs[:, 43] = self.none
        return probs


def test_a_box_surely_a_tile_but_unsure_which_is_kept_at_the_threshold_with_its_readings_in_proportion():
    from vision.detector import SURE_TILE

    photo = photo_with_boxes(320, 320, [(100, 100, 140, 156)])
    sure = fake_detector(320, classifier=_SpreadClassifier(none=0.0))
    sure.session = _FixedLocaliser([(120, 128, 40, 56, 0.9)])
    (tile,) = sure.detect(photo).tiles  # 0.9 x 1/3 = 0.3: above the threshold on its own
    assert tile.confidence == pytest.approx(0.3) and not tile.unsure_face
    sure.session = _FixedLocaliser([(120, 128, 40, 56, 0.72)])  # 0.72 x 1/3 = 0.24, but 0.72 a tile
    assert 0.72 >= SURE_TILE
    (tile,) = sure.detect(photo).tiles
    assert tile.code_str == "1m" and tile.confidence == pytest.approx(0.25)
    assert tile.unsure_face  # its reading a guess, and it says so (stop 54)
    # the other readings keep their ratio to the first (1:1 here), on the raised scale
    assert [(str(c), round(p, 3)) for c, p in tile.alternatives] == [("2m", 0.25), ("3m", 0.25)]
    # the evaluation's low threshold sees the same raised confidence
    assert sure.raw(photo, 0.001)[3].tolist() == pytest.approx([0.25])
    doubtful = fake_detector(320, classifier=_SpreadClassifier(none=0.4))  # 0.72 x 0.6 = 0.43: maybe no tile
    doubtful.session = _FixedLocaliser([(120, 128, 40, 56, 0.72)])
    assert len(doubtful.detect(photo)) == 0


class _RedShareReader:
    """Reads a crop as 7m with the share of its pixels that are red, the rest "none": a crop cut with a wider
    margin holds more table round the same red tile, so it reads the tile less surely."""

    draws_boxes = False

    def __init__(self):
        self.calls = 0

    def probabilities(self, crops):
        self.calls += 1
        red = ((crops[..., 0] > 200) & (crops[..., 1] < 60)).mean(axis=(1, 2))
        probs = np.zeros((len(crops), 44), dtype=np.float32)
        probs[:, 6], probs[:, 43] = red, 1 - red
        return probs


def test_each_box_is_read_from_crops_of_every_margin_and_the_readings_averaged():
    from vision.crops import tile_crops

    photo = photo_with_boxes(320, 320, [(100, 100, 140, 156)])
    margins = (0.04, 0.16)
    readings = []
    for crop_margins in [(0.04,), (0.16,), margins]:
        reader = _RedShareReader()
        detector = fake_detector(320, classifier=reader, crop_margins=crop_margins)
        detector.session = _FixedLocaliser([(120, 128, 40, 56, 1.0)])
        (tile,) = detector.detect(photo).tiles
        assert tile.code_str == "7m" and reader.calls == len(crop_margins)
        readings.append(tile.confidence)
    narrow, wide, both = readings
    assert narrow > wide  # the wider crop shows more table round the tile
    assert both == pytest.approx((narrow + wide) / 2)
    red = (tile_crops(photo, np.array([[100, 100, 140, 156]], np.float32), margin=0.04)[..., 0] > 200).mean()
    assert narrow == pytest.approx(red, abs=0.01)


def test_crop_margins_must_be_a_few_shares(tmp_path):
    from tests.vision.fakes import tiny_localiser

    # (the match is the message's own words: the temporary folder's path holds the test's name)
    model = tiny_localiser(tmp_path / "tiny.onnx", 320)
    for bad in [(), (0.08, 0.9), (-0.1,)]:
        with pytest.raises(DetectorError, match="^crop_margins must be a few shares"):
            Detector(model, crop_margins=bad)


class _FixedAxes:
    """A face-axis reader answering one axis for every box, and counting its calls."""

    def __init__(self, axis: float):
        self.axis, self.calls = axis, 0

    def axes(self, image, boxes):
        self.calls += 1
        return np.full(len(boxes), self.axis)


def test_with_a_face_axis_reader_each_box_is_also_read_from_crops_turned_upright():
    from vision.crops import tile_crops, upright_crops

    photo = photo_with_boxes(320, 320, [(100, 100, 140, 156)])
    box = np.array([[100, 100, 140, 156]], np.float32)
    margins = (0.04, 0.16)
    red = lambda crops: ((crops[..., 0] > 200) & (crops[..., 1] < 60)).mean()
    as_cut = [red(tile_crops(photo, box, margin=m)) for m in margins]
    for axis in (90.0, 30.0):  # upright already; turned 60 degrees (the crop then cuts the tile askew)
        turned = [red(c) for c in upright_crops(photo, box, np.array([axis]), margins=margins)]
        reader, axes = _RedShareReader(), _FixedAxes(axis)
        detector = fake_detector(320, classifier=reader, crop_margins=margins, axis_reader=axes, read_upright=True)
        detector.session = _FixedLocaliser([(120, 128, 40, 56, 1.0)])
        (tile,) = detector.detect(photo).tiles
        assert reader.calls == 2 * len(margins) and axes.calls == 1  # the axes are read once, before naming
        assert tile.confidence == pytest.approx(np.mean(as_cut + turned), abs=1e-4)
    assert abs(np.mean(turned) - np.mean(as_cut)) > 1e-3  # the askew crops read otherwise: they counted
    # without the upright reading, or without a face-axis reader, only the crops as cut
    for options in ({"axis_reader": _FixedAxes(30.0), "read_upright": False}, {"read_upright": True}):
        reader = _RedShareReader()
        detector = fake_detector(320, classifier=reader, crop_margins=margins, **options)
        detector.session = _FixedLocaliser([(120, 128, 40, 56, 1.0)])
        (tile,) = detector.detect(photo).tiles
        assert reader.calls == len(margins) and tile.confidence == pytest.approx(np.mean(as_cut), abs=1e-4)


class _RedShareFeatureReader(_RedShareReader):
    """A _RedShareReader that also answers features (the red share and the rest) and records each read's size."""

    gives_features = True

    def __init__(self):
        super().__init__()
        self.batches = []

    def read_features(self, crops):
        self.batches.append(len(crops))
        probs = self.probabilities(crops)
        return probs, probs[:, [6, 43]]


def test_a_box_read_surely_from_its_crops_at_the_training_margin_is_not_read_from_the_others():
    """``sure_reading`` (SURE_READING): every box is read first from its two crops at the training's margin (as cut
    and turned upright); only a box unsure there is read from the other crops, and its reading is then the one
    every crop gives, to the last bit."""
    from vision.crops import tile_crops, upright_crops

    # tile A is red all over its box; tile B's box holds red in its top 40 of 56 pixels: its crops read it unsurely
    photo = photo_with_boxes(320, 320, [(60, 100, 100, 156), (200, 100, 240, 140)])
    boxes = np.array([[60, 100, 100, 156], [200, 100, 240, 156]], np.float32)
    red = lambda crops: ((crops[..., 0] > 200) & (crops[..., 1] < 60)).mean(axis=(1, 2))
    first = (red(tile_crops(photo, boxes, margin=0.08)) + red(upright_crops(photo, boxes, np.array([90.0, 90.0]),
                                                                            margins=(0.08,))[0])) / 2
    sure_a, sure_b = np.maximum(first, 1 - first)  # the likelier of 7m and "none" from the two first crops
    assert sure_a > sure_b + 0.05
    margins = (0.04, 0.08, 0.16)

    def read(sure_reading):
        reader = _RedShareFeatureReader()
        detector = fake_detector(320, classifier=reader, crop_margins=margins, axis_reader=_FixedAxes(90.0),
                                 read_upright=True, sure_reading=sure_reading)
        detector.session = _FixedLocaliser([(80, 128, 40, 56, 1.0), (220, 128, 40, 56, 1.0)])
        tiles = sorted(detector.detect(photo).tiles, key=lambda t: t.box[0])
        assert [t.code_str for t in tiles] == ["7m", "7m"]
        return reader.batches, [t.confidence for t in tiles]

    cascade_batches, (a, b) = read((sure_a + sure_b) / 2)
    every_batches, (a_every, b_every) = read(None)
    assert every_batches == [2] * 6  # both boxes, each margin as cut and upright
    assert cascade_batches == [2, 2, 1, 1, 1, 1]  # both at the training's margin, then B alone at the others
    assert a == pytest.approx(first[0], abs=1e-6) and a != pytest.approx(a_every, abs=1e-3)
    assert b == b_every  # B is read as before, bit for bit
    # a value that no first reading reaches reads every box from every crop, as None does
    assert read(1.0) == (every_batches, [a_every, b_every])


def test_two_boxes_that_overlap_as_much_as_the_final_nms_parts_them_are_read_from_every_crop_however_sure():
    """Which of two overlapping boxes is kept is decided by their scores, and a first reading runs higher than every
    crop's: a box overlapping another at ``FINAL_IOU`` or more is read from every crop, as the other is."""
    from vision.crops import tile_crops, upright_crops
    from vision.detector import FINAL_IOU

    # P and Q lie over one long red tile, half on each other; R is a tile of its own
    photo = photo_with_boxes(320, 320, [(60, 100, 100, 176), (200, 100, 240, 156)])
    boxes = np.array([[60, 100, 100, 156], [60, 120, 100, 176], [200, 100, 240, 156]], np.float32)
    assert FINAL_IOU <= iou_matrix(boxes[:1], boxes[1:2])[0, 0] < 0.5  # kept by the first NMS, parted by the last
    red = lambda crops: ((crops[..., 0] > 200) & (crops[..., 1] < 60)).mean(axis=(1, 2))
    first = (red(tile_crops(photo, boxes, margin=0.08)) + red(upright_crops(photo, boxes, np.full(3, 90.0),
                                                                            margins=(0.08,))[0])) / 2
    sure_reading = 0.5
    assert np.all(np.maximum(first, 1 - first) >= sure_reading)  # every box is sure at its first reading
    reader = _RedShareFeatureReader()
    detector = fake_detector(320, classifier=reader, crop_margins=(0.04, 0.08, 0.16), axis_reader=_FixedAxes(90.0),
                             read_upright=True, sure_reading=sure_reading)
    detector.session = _FixedLocaliser([(80, 128, 40, 56, 1.0), (80, 148, 40, 56, 0.9), (220, 128, 40, 56, 1.0)])
    tiles = detector.detect(photo).tiles
    assert reader.batches == [3, 3, 2, 2, 2, 2]  # P and Q again at every other crop, R not
    assert len(tiles) == 2  # the final NMS keeps one of P and Q


class _TopHalfReader:
    """Reads a crop as 7m as surely as the top half of it is red (0.95 from 60 % red up), the rest "none"; read both
    ways up (``half_turn``, as the classifier does) it averages that with the crop turned a half turn. Records each
    read's size and way, and answers features (the two answers) as the classifier does."""

    draws_boxes = False
    gives_features = True

    def __init__(self):
        self.reads = []

    @staticmethod
    def one_way(crops):
        red = ((crops[..., 0] > 200) & (crops[..., 1] < 60))[:, : crops.shape[1] // 2].mean(axis=(1, 2))
        probs = np.zeros((len(crops), 44), dtype=np.float32)
        probs[:, 6] = np.minimum(1.0, red / 0.6) * 0.95
        probs[:, 43] = 1 - probs[:, 6]
        return probs

    def read_features(self, crops, half_turn=True):
        self.reads.append((len(crops), half_turn))
        probs = self.one_way(crops)
        if half_turn:
            probs = (probs + self.one_way(crops[:, ::-1, ::-1])) / 2
        return probs, probs[:, [6, 43]]


def test_a_box_read_surely_one_way_up_is_not_read_the_other_way():
    """``sure_one_way`` (SURE_ONE_WAY): the two first crops are read one way up; a box that sure keeps that reading,
    and only the others are read turned a half turn, which gives them the both-ways reading to the last bit."""
    # A is red in the top 40 of its 56 pixels, B in the bottom 40: one way up A reads surely and B does not
    photo = photo_with_boxes(320, 320, [(60, 100, 100, 140), (200, 116, 240, 156)])
    margins = (0.04, 0.08, 0.16)

    def read(sure_one_way, sure_reading=0.65):
        reader = _TopHalfReader()
        detector = fake_detector(320, classifier=reader, crop_margins=margins, axis_reader=_FixedAxes(90.0),
                                 read_upright=True, sure_reading=sure_reading, sure_one_way=sure_one_way)
        detector.session = _FixedLocaliser([(80, 128, 40, 56, 1.0), (220, 128, 40, 56, 1.0)])
        tiles = sorted(detector.detect(photo).tiles, key=lambda t: t.box[0])
        assert [t.code_str for t in tiles] == ["7m", "7m"]
        return reader.reads, [t.confidence for t in tiles]

    reads, (a, b) = read(0.9)
    assert reads == [(2, False), (2, False), (1, False), (1, False)]  # both one way, then B alone the other way
    both_ways_reads, (a_both, b_both) = read(None)
    assert both_ways_reads == [(2, True), (2, True)]  # both sure enough (SURE_READING) from the first crops
    assert a >= 0.9 and a_both < 0.9  # A's one-way reading stands
    assert b == b_both  # B's reading is the both-ways one, bit for bit
    # unsure both ways too, B is then read from every crop (both ways), and A is still read one way only
    reads, (a_all, b_all) = read(0.9, sure_reading=0.9)
    assert reads == [(2, False), (2, False), (1, False), (1, False)] + [(1, True)] * 4 and a_all == a
    assert b_all == read(None, sure_reading=None)[1][1]
    # a value over every one-way reading reads both boxes the other way too: the both-ways readings
    assert read(1.0)[1] == [a_both, b_both]


def test_sure_reading_must_be_a_probability(tmp_path):
    model = tiny_localiser(tmp_path / "tiny.onnx", 320)
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(DetectorError, match="^sure_reading must be a probability"):
            Detector(model, sure_reading=bad)
    assert Detector(model, sure_reading=None).sure_reading is None and Detector(model).sure_reading == 0.7
    for bad in (0.5, 1.2):  # under sure_reading (0.7), or not a probability
        with pytest.raises(DetectorError, match="^sure_one_way must be a probability"):
            Detector(model, sure_one_way=bad)
    assert Detector(model).sure_one_way == 0.9 and Detector(model, sure_one_way=None).sure_one_way is None
    assert Detector(model, sure_reading=None).sure_one_way is None  # every box from every crop, both ways


def test_the_localisers_boxes_over_one_tile_vote_for_its_box():
    from vision.detector import VOTE_IOU, VOTE_POWER

    photo = photo_with_boxes(320, 320, [(100, 100, 140, 156)])
    # two candidates over the same tile (centre x, y, width, height in input pixels, score), IoU 0.9
    candidates = [(120, 128, 40, 56, 0.9), (122, 128, 40, 56, 0.6)]
    detector = fake_detector(320, classifier=_RedShareClassifier())
    detector.session = _FixedLocaliser(candidates)
    (tile,) = detector.detect(photo).tiles
    weights = np.array([0.9, 0.6]) ** VOTE_POWER
    x1 = (weights * [100, 102]).sum() / weights.sum()
    assert VOTE_IOU < 0.9 and tile.box == pytest.approx((x1, 100, x1 + 40, 156), abs=1e-3)
    assert tile.confidence == pytest.approx(0.9 * 0.9)  # the score stays the best box's


class _LeftHalfOnly:
    """A localiser that finds red tiles only in the left half of what it is shown (one that misses some tiles one
    way round and finds them mirrored), counting its calls."""

    def __init__(self, size):
        from tests.vision.fakes import RedBoxSession

        self.inner, self.calls = RedBoxSession(size, class_id=0, num_classes=1), 0

    def run(self, names, feeds):
        self.calls += 1
        out = self.inner.run(names, feeds)[0].copy()
        for answer in out:  # each image of the batch
            answer[4, answer[0] > self.inner.size / 2] = 0.0
        return [out]


def test_a_one_class_localiser_also_reads_the_photo_mirrored_and_its_boxes_come_back_to_their_side():
    photo = photo_with_boxes(320, 320, [(40, 100, 80, 156), (220, 100, 260, 156)])
    found = {}
    for mirror in (False, True):
        detector = fake_detector(320, classifier=_RedShareClassifier(), mirror=mirror)
        detector.session = _LeftHalfOnly(320)
        found[mirror] = boxes_of(detector.detect(photo).tiles)
        assert detector.session.inner.batches == ([2] if mirror else [1])  # straight and mirrored: one run
    assert found[False] == [(40, 100, 80, 156)]
    assert found[True] == [(40, 100, 80, 156), (220, 100, 260, 156)]  # the right one, found mirrored
    # a many-class model is never read mirrored: a mirrored face is another picture
    many = fake_detector(320, mirror=True)
    many.detect(photo)
    assert many.session.calls == 1


def test_boxes_become_detections_inside_the_photo():
    """Box voting averages in float64 and the mapping back rescales: a box may end a hair past the edge
    (640.0000000000001 was seen); the detections are clipped to the photo at the edge where arrays become types."""
    from vision.detector import to_detections

    boxes = np.array([[-0.5, 10, 60, 90], [580, 400, 640.0000000000001, 480.25]], dtype=np.float64)
    detections = to_detections(640, 480, boxes, np.array([0.9, 0.8]), np.array([3, 4]))
    assert [t.box for t in detections] == [(0.0, 10.0, 60.0, 90.0), (580.0, 400.0, 640.0, 480.0)]


def test_a_big_photo_of_small_tiles_skips_the_whole_photos_mirrored_and_coarse_passes():
    """``_whole_photo_passes``: where the windows will read the tiles (a photo big enough for them, its first pass
    showing small tiles), the mirrored and half-size passes over the whole photo are skipped (they would see the tiles
    smaller still); where the first pass sees them whole, all four passes run and the windows do not."""
    small = [(400 + i * 60, 1500, 424 + i * 60, 1532) for i in range(14)]
    detector = fake_detector(640, pass_sizes=(640, 320), classifier=_RedShareClassifier(), mirror=True)
    assert len(detector.detect(photo_with_boxes(4000, 3000, small))) == len(small)
    assert detector.session.calls == 1 + 4  # the first pass, then 2 x 2 windows (read once each, not mirrored)
    big = [(300 + i * 430, 1300, 700 + i * 430, 1820) for i in range(6)]
    detector = fake_detector(640, pass_sizes=(640, 320), classifier=_RedShareClassifier(), mirror=True)
    assert len(detector.detect(photo_with_boxes(4000, 3000, big))) == len(big)
    # 640 and 320, each also mirrored; the first pass not run twice, the two at 320 in one run
    assert detector.session.batches == [1, 1, 2]
    modest = fake_detector(640, pass_sizes=(640, 320), classifier=_RedShareClassifier(), mirror=True)
    modest.detect(photo_with_boxes(1200, 900, small[:5]))
    assert modest.session.batches == [2, 2]  # a photo too small for windows: every pass, two a run
    # a model exported for one image a run (a fixed batch size) reads each pass on its own, to the same boxes
    single = fake_detector(640, pass_sizes=(640, 320), classifier=_RedShareClassifier(), mirror=True, batched=False)
    assert single.detect(photo_with_boxes(1200, 900, small[:5])) == \
        modest.detect(photo_with_boxes(1200, 900, small[:5]))
    assert single.session.batches == [1, 1, 1, 1]
