"""vision.orientation and vision.orientation_training: each face's axis from its pixels, and the sideways flags."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image, ImageDraw

from scorer.tiles import Tile
from vision.detections import Detection
from vision.detector import mark_sideways
from vision.orientation import (AXIS_NAMES, AxisReader, AxisReaderError, across_neighbours, among_bonus,
                                axes_from_outputs, axis_crop, sideways_from_axes)
from vision.orientation_training import axis_target, face_axis

ROW = np.array([90.0] * 10 + [0.0] * 3 + [92.0, 87.0])  # a row of upright faces with three lying across


@pytest.mark.parametrize("turn", [0.0, 37.0, 90.0, 180.0, 133.0])
def test_the_flags_do_not_depend_on_how_the_photo_is_turned(turn):
    flags = sideways_from_axes((ROW + turn) % 180)
    assert flags.tolist() == [False] * 10 + [True] * 3 + [False] * 2


def test_perspective_spreads_the_upright_axes_and_the_flags_hold():
    spread = np.linspace(68, 110, 12)  # a row seen at a slant: its faces' axes fan out by 40 degrees
    flags = sideways_from_axes(np.concatenate([spread, [172.0, 15.0]]))
    assert flags.tolist() == [False] * 12 + [True, True]


def test_a_row_fanned_out_by_a_steep_view_is_judged_tile_by_tile_against_its_neighbours():
    fan = np.linspace(40, 140, 16)               # a row's axes fanned over 100 degrees across the photo
    claimed = np.zeros(16, dtype=bool)
    claimed[[3, 11]] = True
    axes = np.where(claimed, (fan + 90) % 180, fan)
    centres = np.array([[10.0 * i, 0.0] for i in range(16)])
    assert sideways_from_axes(axes) is None      # the whole photo agrees on no cross
    assert sideways_from_axes(axes, centres=centres).tolist() == claimed.tolist()


def test_a_face_the_reader_cannot_see_is_left_to_the_box():
    axes = np.array([90.0, np.nan, 88.0, 1.0, 91.0])
    assert sideways_from_axes(axes).tolist() == [False, False, False, True, False]
    assert sideways_from_axes(np.array([90.0, np.nan, np.nan, 0.0])) is None  # two axes are too few


def test_no_flags_without_a_row():
    assert sideways_from_axes(np.array([90.0, 0.0])) is None                        # too few tiles
    assert sideways_from_axes(np.linspace(0, 180, 24, endpoint=False)) is None     # a heap at every angle
    assert sideways_from_axes(np.array([90.0, 90.0, 0.0, 0.0])) is None            # as many along either arm


def test_axes_and_targets_round_trip():
    axes = np.array([0.0, 30.0, 90.0, 135.0, 179.0])
    assert np.allclose(axes_from_outputs(axis_target(axes)), axes, atol=1e-4)
    # a quarter turn negates the target: the axis turns by 90 degrees
    assert np.allclose(axes_from_outputs(-axis_target(axes)), (axes + 90) % 180, atol=1e-4)


def test_face_axis_reads_the_quads_reading_order():
    upright = [[10, 0], [20, 0], [20, 15], [10, 15]]          # TL TR BR BL, y down
    assert face_axis(upright) == pytest.approx(90.0)
    assert face_axis(upright[2:] + upright[:2]) == pytest.approx(90.0)  # upside down: the same axis
    turned = [[0, 0], [7.07, 7.07], [-3.54, 17.68], [-10.6, 10.6]]      # turned 45 degrees clockwise, y down
    assert face_axis(turned) == pytest.approx(45.0, abs=0.1)            # its top up and to the right


def test_the_crop_is_a_square_round_the_box_and_not_turned():
    image = Image.new("RGB", (200, 100), (0, 0, 0))
    ImageDraw.Draw(image).rectangle([40, 40, 100, 60], fill=(255, 255, 255))  # a wide white bar
    crop = axis_crop(image, (40, 40, 100, 60), size=32)
    assert crop.shape == (32, 32, 3)
    rows, cols = (crop[..., 0] > 128).sum(axis=1), (crop[..., 0] > 128).sum(axis=0)
    assert (cols > 0).sum() > 2 * (rows > 0).sum()  # still wider than tall: the reader sees how it lies


def test_the_crop_of_a_box_larger_than_the_photo_is_made_without_its_full_size_square():
    """A box as long as a photo restored to 8,192 px would ask for a 90-megapixel square (most of it outside the
    photo): only the part inside is resized, and the crop is what cropping the whole square would have given."""
    import warnings

    from vision.crops import MARGIN

    image = Image.new("RGB", (60, 40), (0, 0, 0))
    ImageDraw.Draw(image).rectangle([10, 10, 50, 30], fill=(255, 255, 255))
    box = (-30, -50, 90, 90)  # larger than the photo, off it on every side
    crop = axis_crop(image, box, size=32)
    side = 140 * (1 + 2 * MARGIN)  # as axis_crop widens it
    left, top = int(round(30 - side / 2)), int(round(20 - side / 2))
    span = int(round(side))
    whole = np.asarray(image.crop((left, top, left + span, top + span)).resize((32, 32), Image.Resampling.BILINEAR))
    assert np.abs(crop.astype(int) - whole.astype(int)).mean() < 2 and (crop[..., 0] > 128).sum() > 10
    tall = Image.new("RGB", (700, 8192), (90, 90, 90))
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        assert axis_crop(tall, (0, 0, 700, 8192), size=32).shape == (32, 32, 3)


def _tiles(boxes):
    return [Detection(Tile.parse("1m"), box, 0.9) for box in boxes]


def test_mark_sideways_takes_the_axes_over_the_box_shapes():
    squares = _tiles([(i * 50, 0, i * 50 + 40, 40) for i in range(5)])   # a photo at 45 degrees: square boxes
    assert [t.sideways for t in mark_sideways(squares)] == [False] * 5   # the box rule cannot tell
    axes = np.array([45.0, 47.0, 135.0, 44.0, 46.0])
    assert [t.sideways for t in mark_sideways(squares, axes=axes)] == [False, False, True, False, False]
    heap = np.array([0.0, 22.5, 45.0, 67.5, 90.0])
    upright = _tiles([(i * 50, 0, i * 50 + 30, 40) for i in range(4)] + [(200, 10, 240, 40)])
    # axes that agree on no row leave the box rule in charge
    assert [t.sideways for t in mark_sideways(upright, axes=heap)] == [False] * 4 + [True]


def test_a_claimed_tile_lying_across_its_two_meld_neighbours_is_sideways_where_the_crosses_settle_nothing():
    """A steep view: a standing row (faces at about 100 degrees), and beyond it a meld lying on the table (faces at
    about 50) whose middle tile lies across (150). Three directions: no cross of two arms settles them, and the
    boxes (squares, as at 45 degrees of photo rotation) say nothing either."""
    row = [(i * 14.0, 0.0, i * 14.0 + 12, 12.0) for i in range(8)]
    meld = [(30.0, 30.0, 42.0, 42.0), (43.0, 30.0, 55.0, 42.0), (56.0, 30.0, 68.0, 42.0)]
    tiles = _tiles(row + meld)
    axes = np.array([100, 98, 102, 101, 99, 100, 97, 103, 50, 152, 53], dtype=float)
    centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for b in row + meld])
    assert sideways_from_axes(axes, centres=centres) is None
    assert [t.sideways for t in mark_sideways(tiles)] == [False] * 11     # the box rule cannot tell
    assert [t.sideways for t in mark_sideways(tiles, axes=axes)] == [False] * 9 + [True, False]
    # a meld's end tile lying across has one touching neighbour only: the rule says nothing of it (the
    # grouping judges it relative to its group, docs/grouping.md rule 5)
    axes_end = np.array([100, 98, 102, 101, 99, 100, 97, 103, 150, 52, 53], dtype=float)
    assert not mark_sideways(tiles, axes=axes_end)[8].sideways


def test_a_tile_is_not_set_sideways_by_neighbours_that_disagree_or_lie_apart():
    boxes = np.array([[0, 0, 12, 12], [13, 0, 25, 12], [26, 0, 38, 12], [100, 0, 112, 12]], dtype=float)
    none = np.zeros(4, dtype=bool)
    # its neighbours disagree (one lies across too): no call
    assert across_neighbours(np.array([50.0, 150.0, 140.0, 50.0]), boxes, none).tolist() == [False] * 4
    # close to one neighbour's axis: not across
    assert across_neighbours(np.array([50.0, 80.0, 52.0, 50.0]), boxes, none).tolist() == [False] * 4
    # a lone tile far from the others (a winning tile laid flat beyond the row): its neighbours are too far
    far = np.array([[0, 0, 12, 12], [13, 0, 25, 12], [26, 0, 38, 12], [80, 0, 92, 12]], dtype=float)
    assert across_neighbours(np.array([90.0, 91.0, 89.0, 10.0]), far, none).tolist() == [False] * 4
    # a neighbour already flagged: the pair is no evidence
    flags = np.array([False, False, True, False])
    assert across_neighbours(np.array([50.0, 150.0, 52.0, 50.0]), boxes, flags).tolist() == flags.tolist()


def test_flowers_lying_flat_in_a_steep_view_are_judged_against_each_other_not_the_standing_row():
    """A steep view (as seed 12's 000198): a standing row (faces at about 100 degrees), and beside its end three
    flowers lying face up, their axes turned by perspective to about 15. Against the row's tiles, the most of their
    nearest, they lie across; against each other (the only tiles they lie with) they do not. A flower that lies
    across the other flowers is still sideways; one with fewer than two others to be judged by is not."""
    row = [(100 + i * 14.0, 20.0, 112 + i * 14.0, 32.0) for i in range(10)]
    flowers = [(58 + i * 14.0, 0.0, 70 + i * 14.0, 12.0) for i in range(3)]
    codes = ["1m"] * 10 + ["1f", "2f", "3f"]
    tiles = tuple(Detection(Tile.parse(c), b, 0.9) for c, b in zip(codes, row + flowers))
    axes = np.array([100, 102, 98, 101, 99, 100, 97, 103, 100, 101, 13, 17, 10], dtype=float)
    centres = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] for b in row + flowers])
    assert sideways_from_axes(axes, centres=centres)[10:].all()  # the crosses alone take them for sideways tiles
    assert [t.sideways for t in mark_sideways(tiles, axes=axes)] == [False] * 13
    across = axes.copy()
    across[12] = 105.0
    assert [t.sideways for t in mark_sideways(tiles, axes=across)][10:] == [False, False, True]
    bonus = np.array([False, True, True])
    assert among_bonus(np.array([90.0, 0.0, 90.0]), bonus, np.array([False, True, False])).tolist() == [False] * 3
    assert among_bonus(np.array([90.0, 0.0, np.nan]), bonus, np.array([True, True, False])).tolist() == \
        [True, False, False]  # the other tiles' flags are left alone


def test_each_detection_keeps_its_own_boxs_axis_when_the_detections_are_sorted_and_thinned():
    from vision.detector import to_detections

    boxes = np.array([[i * 50, 0, i * 50 + 40, 40] for i in range(5)] + [[300, 0, 300.5, 40]], np.float32)
    scores = np.array([0.3, 0.9, 0.5, 0.8, 0.4, 0.95])   # out of order; the last box is too thin to keep
    axes = np.array([45.0, 47.0, 135.0, 44.0, 46.0, 135.0])
    found = to_detections(400, 100, boxes, scores, np.zeros(6, dtype=np.int64), axes=axes)
    assert len(found) == 5
    assert {t.box[0]: t.sideways for t in found.tiles} == {0: False, 50: False, 100: True, 150: False, 200: False}
    assert {t.box[0]: t.axis for t in found.tiles} == {0: 45.0, 50: 47.0, 100: 135.0, 150: 44.0, 200: 46.0}
    unsure = to_detections(400, 100, boxes[:2], scores[:2], np.zeros(2, dtype=np.int64), axes=np.array([np.nan, 91.0]))
    assert {t.box[0]: t.axis for t in unsure.tiles} == {0: None, 50: 91.0}  # no axis the reader is unsure of


def test_a_missing_or_foreign_model_is_refused_with_a_message(tmp_path):
    with pytest.raises(AxisReaderError, match="No face-axis model"):
        AxisReader(tmp_path / "none.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(AxisReaderError, match="Cannot load"):
        AxisReader(broken)
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.classifier_training import export_onnx, make_network

    with pytest.raises(AxisReaderError, match="square crops"):
        AxisReader(export_onnx(make_network(4), tmp_path / "classifier.onnx"))
    with pytest.raises(AxisReaderError, match="cos 2a"):
        AxisReader(export_onnx(make_network(4, 2), tmp_path / "two.onnx", crop_size=(32, 32)))


def _rendered_folder(root, count=3):
    """A rendered-style folder: images/, labels/ and sidecars/ whose tiles carry their faces' corners. Each
    face is a white card with a red band along its top; the third lies across the row."""
    for sub in ("images", "labels", "sidecars"):
        (root / sub).mkdir(parents=True)
    for i in range(count):
        image = Image.new("RGB", (240, 160), (40, 90, 40))
        draw = ImageDraw.Draw(image)
        tiles = []
        for j in range(4):
            x, y = 20 + 55 * j, 50
            if j == 2:  # across: its top (the band) to the left
                box = [x, y + 5, x + 40, y + 35]
                draw.rectangle(box, fill=(250, 250, 250))
                draw.rectangle([x, y + 5, x + 8, y + 35], fill=(220, 30, 30))
                quad = [[x, y + 35], [x, y + 5], [x + 40, y + 5], [x + 40, y + 35]]
            else:
                box = [x, y, x + 30, y + 40]
                draw.rectangle(box, fill=(250, 250, 250))
                draw.rectangle([x, y, x + 30, y + 8], fill=(220, 30, 30))
                quad = [[x, y], [x + 30, y], [x + 30, y + 40], [x, y + 40]]
            tiles.append({"labelled": True, "box": box, "quad": quad, "sideways": j == 2})
        image.save(root / "images" / f"{i:06d}.png")
        (root / "labels" / f"{i:06d}.txt").write_text("")
        (root / "sidecars" / f"{i:06d}.json").write_text(json.dumps({"tiles": tiles}))


def test_the_crops_carry_each_faces_axis_from_its_sidecar(tmp_path):
    from vision.orientation_training import build_crops

    _rendered_folder(tmp_path / "set")
    x, axes = build_crops([tmp_path / "set" / "images"], copies=2, jitter=0.05, seed=1, size=24, progress=False)
    assert x.shape == (3 * 4 * 2, 24, 24, 3)
    assert sorted(set(np.round(axes).tolist())) == [0.0, 90.0] and (np.round(axes) == 0).sum() == 3 * 2


def test_the_axis_reader_recipe_trains_one_epoch_and_the_detector_uses_it(tmp_path, capfd):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from tests.vision.fakes import tiny_localiser
    from vision.classifier_training import export_onnx, make_network
    from vision.detector import Detector, DetectorError
    from vision.training import train

    (tmp_path / "pyproject.toml").write_text("")
    _rendered_folder(tmp_path / "data" / "set")
    (tmp_path / "data" / "set" / "synth.json").write_text(json.dumps({"seed": 1, "count": 3}))
    (tmp_path / "configs").mkdir()
    recipe = tmp_path / "configs" / "axis.yaml"
    recipe.write_text("""
task: axis-reader
seed: 0
epochs: 3
batch: 8
lr0: 0.01
threads: 1
network: {width: 4}
crops: {size: 24, copies: 2, jitter: 0.05, seed: 1}
data:
  synthetic: [{out: data/set, count: 3, seed: 1}]
  val: [data/set/images]
run: {project: runs/axis, name: test}
export: {onnx: models/axis.onnx}
""")
    target = train(recipe, epochs=1)
    assert target == tmp_path / "models" / "axis.onnx"
    assert "24 crops of 24 x 24" in capfd.readouterr().err
    history = json.loads((tmp_path / "runs" / "axis" / "test" / "history.json").read_text())
    assert len(history) == 1 and 0 <= history[0]["set"]["median_error_deg"] <= 90
    reader = AxisReader(target)
    assert reader.size == 24
    axes = reader.axes(Image.new("RGB", (100, 100)), np.array([[10, 10, 40, 50], [50, 10, 90, 40]], np.float32))
    assert axes.shape == (2,)  # NaN where one epoch's network is unsure, an angle in 0..180 elsewhere
    assert np.all(np.isnan(axes) | ((0 <= axes) & (axes < 180)))

    export_onnx(make_network(4), tmp_path / "models" / "classifier.onnx")
    localiser = tiny_localiser(tmp_path / "localiser.onnx", 320)
    classifier = tmp_path / "models" / "classifier.onnx"
    assert Detector(localiser, classifier_path=classifier).axis_reader.model_path == target
    assert Detector(localiser, classifier_path=classifier, axis_reader_path=False).axis_reader is None
    with pytest.raises(DetectorError, match="face-axis reader"):
        Detector(localiser, classifier_path=classifier, axis_reader_path=classifier)
    assert AXIS_NAMES == ("cos 2a", "sin 2a")
