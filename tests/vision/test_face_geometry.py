"""Faces as turned rectangles, and the boxes astride two of them (vision/face_geometry.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from vision.face_geometry import ASPECT, drop_astride, face_rectangles, on_tops

TILE = (30.0, 40.0)  # a face's width and height


def _corners(centre, axis_deg, width, height):
    """A face's four corners: ``axis_deg`` its up (counter-clockwise, y down), as vision.orientation has it."""
    a = math.radians(axis_deg)
    up = np.array([math.cos(a), -math.sin(a)])
    across = np.array([-up[1], up[0]])
    c = np.asarray(centre, dtype=float)
    return np.array([c + sx * width / 2 * across + sy * height / 2 * up for sx in (-1, 1) for sy in (-1, 1)])


def _box(centre, axis_deg, width=TILE[0], height=TILE[1]):
    corners = _corners(centre, axis_deg, width, height)
    return [*corners.min(axis=0), *corners.max(axis=0)]


@pytest.mark.parametrize("axis", [90.0, 0.0, 20.0, 70.0, 118.0, 160.0])
def test_a_face_is_recovered_from_its_box_and_axis(axis):
    faces = face_rectangles(np.array([_box((100, 80), axis)]), np.array([axis]))
    assert faces.centres[0] == pytest.approx([100, 80])
    assert faces.half_widths[0] == pytest.approx(TILE[0] / 2, rel=1e-6)
    assert faces.half_heights[0] == pytest.approx(TILE[1] / 2, rel=1e-6)
    assert faces.ups[0] @ faces.acrosses[0] == pytest.approx(0.0)


def test_near_a_diagonal_the_face_takes_the_usual_aspect():
    """At 45 degrees a box says only width + height: the face gets ASPECT, and fills the box on average."""
    box = _box((0, 0), 45.0)
    faces = face_rectangles(np.array([box]), np.array([45.0]))
    assert faces.half_widths[0] / faces.half_heights[0] == pytest.approx(ASPECT)
    side = box[2] - box[0]
    assert 2 * (faces.half_widths[0] + faces.half_heights[0]) == pytest.approx(side * math.sqrt(2))


def test_a_box_without_an_axis_has_no_face():
    faces = face_rectangles(np.array([[0, 0, 30, 40.0]]), np.array([np.nan]))
    assert np.isnan(faces.half_heights[0]) and np.isnan(faces.half_widths[0])


def _row(roll_deg, count=6, astride_score=0.5):
    """``count`` faces side by side along a row turned ``roll_deg``, then a box across each two neighbours' halves
    (its own axis read as the row's): the boxes, scores, axes and how many are tiles."""
    axis = 90.0 + roll_deg
    along = np.array([math.cos(math.radians(roll_deg)), -math.sin(math.radians(roll_deg))])
    centres = [np.array([400.0, 300.0]) + (k - count / 2) * TILE[0] * along for k in range(count)]
    boxes = [_box(c, axis) for c in centres]
    boxes += [_box((a + b) / 2, axis) for a, b in zip(centres, centres[1:])]
    scores = [0.9] * count + [astride_score] * (count - 1)
    return np.array(boxes), np.array(scores), np.full(len(boxes), axis), count


@pytest.mark.parametrize("roll", [0.0, 37.0, 45.0, 90.0, 135.0, 180.0])
def test_boxes_astride_two_faces_are_dropped_whichever_way_the_row_turns(roll):
    boxes, scores, axes, tiles = _row(roll)
    assert drop_astride(boxes, scores, axes).tolist() == list(range(tiles))


def test_a_box_astride_is_dropped_even_when_its_own_axis_is_unknown():
    boxes, scores, axes, tiles = _row(45.0)
    axes[tiles:] = np.nan
    assert drop_astride(boxes, scores, axes).tolist() == list(range(tiles))


def test_the_tiles_of_a_row_are_all_kept():
    """Neighbours touch, and their axis-aligned boxes overlap by a third near 45 degrees: none of them is dropped,
    nor one whose axis is unknown."""
    for roll in (0.0, 30.0, 45.0, 60.0):
        boxes, scores, axes, tiles = _row(roll)
        boxes, scores, axes = boxes[:tiles], scores[:tiles], axes[:tiles]
        axes[2] = np.nan
        assert drop_astride(boxes, scores, axes).tolist() == list(range(tiles))


def test_a_box_astride_that_outscores_its_neighbours_is_kept():
    """Best score first: a box astride two faces is dropped only once both are kept (a limit, not a wish)."""
    boxes, scores, axes, tiles = _row(45.0, count=3, astride_score=0.95)
    assert len(drop_astride(boxes, scores, axes)) > tiles


def test_a_kongs_fourth_tile_on_the_claimed_one_is_kept():
    """The fourth tile of an added kong lies on the sideways (claimed) tile: its centre lies on that one face only."""
    roll = 30.0
    along = np.array([math.cos(math.radians(roll)), -math.sin(math.radians(roll))])
    up = np.array([-along[1], along[0]]) * -1  # the row's up
    left = np.array([300.0, 300.0])
    claimed = left + (TILE[0] / 2 + TILE[1] / 2) * along  # lying across: its long side along the row
    right = claimed + (TILE[1] / 2 + TILE[0] / 2) * along
    on_top = claimed + 0.25 * TILE[0] * up
    boxes = np.array([_box(left, 90 + roll), _box(claimed, roll), _box(right, 90 + roll), _box(on_top, roll)])
    assert drop_astride(boxes, np.array([0.9, 0.9, 0.9, 0.8]), np.array([90 + roll, roll, 90 + roll, roll])).tolist() \
        == [0, 1, 2, 3]


def test_the_true_boxes_of_rendered_meld_scenes_lose_nothing(tmp_path):
    """Every labelled face of rendered meld scenes (kongs on top, face-down ends, steep views) is kept, whatever
    the order the scores give."""
    from datasets.render import RenderOptions, procedural_bundle, render_set, select_styles
    from vision.orientation_training import face_axis

    styles = select_styles(procedural_bundle(face_size=(64, 48)), None, False)
    render_set(tmp_path, 16, 33, styles, RenderOptions(size=900, kinds=("guide",)), workers=1, progress=False)
    rng = np.random.default_rng(0)
    seen = 0
    for path in sorted((tmp_path / "sidecars").glob("*.json")):
        tiles = [t for t in json.loads(path.read_text())["tiles"]
                 if t.get("labelled", True) and t.get("box") and t.get("quad")]
        boxes = np.array([t["box"] for t in tiles])
        axes = np.array([face_axis(t["quad"]) for t in tiles])
        assert drop_astride(boxes, rng.random(len(tiles)), axes).tolist() == list(range(len(tiles))), path.name
        seen += len(tiles)
    assert seen > 200


def test_a_stretched_photos_boxes_are_left_alone():
    """A photo squeezed ten times one way: its faces' axes and shapes mean nothing, so no box is dropped."""
    boxes, scores, axes, tiles = _row(0.0)
    squeezed = boxes * np.array([1.0, 10.0, 1.0, 10.0])
    assert drop_astride(squeezed, scores, axes).tolist() == list(range(len(boxes)))


def test_a_tile_between_two_others_of_a_steep_group_is_kept_and_a_box_astride_two_still_goes():
    """Real inputs of the rule (tests/data/face-geometry): a steep group of three whose middle tile the rule took
    for a box astride its two neighbours (they lie two faces apart: ROOM_BETWEEN), and a box that does lie astride
    two tiles (one face apart)."""
    import json
    from pathlib import Path

    cases = json.loads((Path(__file__).parents[1] / "data" / "face-geometry" / "astride-cases.json").read_text())["cases"]
    assert sorted(case["is"] for case in cases) == ["astride", "tile", "tile", "tile"]
    for case in cases:
        boxes, scores = np.array(case["boxes"]), np.array(case["scores"])
        axes = np.array([np.nan if a is None else a for a in case["axes"]])
        everything_else = [i for i in range(len(boxes)) if i != case["box"]]
        kept = drop_astride(boxes, scores, axes).tolist()
        assert kept == (everything_else if case["is"] == "astride" else list(range(len(boxes)))), case["photo"]
        # without the room the rule dropped this box, and only it
        assert drop_astride(boxes, scores, axes, room=float("inf")).tolist() == everything_else, case["photo"]


def _tops_scene(roll: float):
    """A row of three standing faces turned ``roll`` degrees, a thin box over the middle one's top edge (its top seen
    from above), a face beside the row's end, and a face of a meld lying beyond the row: boxes, and axes as the
    face-axis reader gives them (a line: 0..180 degrees)."""
    up_deg = 90.0 + roll
    up = np.array([math.cos(math.radians(up_deg)), -math.sin(math.radians(up_deg))])
    along = np.array([up[1], -up[0]])
    centres = [np.array([400.0, 300.0]) + k * TILE[0] * along for k in (-1, 0, 1)]
    boxes = [_box(c, up_deg) for c in centres]
    boxes.append(_box(centres[1] + 0.55 * TILE[1] * up, up_deg, height=0.4 * TILE[1]))  # 3: the middle one's top
    boxes.append(_box(centres[2] + TILE[0] * along, up_deg))  # 4: the row's next face
    boxes.append(_box(centres[1] + 1.6 * TILE[1] * up, up_deg))  # 5: a meld's face beyond the row
    return np.array(boxes), np.full(len(boxes), up_deg % 180.0)


@pytest.mark.parametrize("roll", [0.0, 37.0, 90.0, 180.0, 250.0])
def test_a_box_on_a_standing_tiles_top_is_found_whichever_way_the_photo_turns(roll):
    boxes, axes = _tops_scene(roll)
    assert on_tops(boxes, axes, [3, 4, 5], [0, 1, 2]) == [3]


def test_a_top_needs_a_host_face_with_an_axis_and_not_itself():
    boxes, axes = _tops_scene(0.0)
    axes[1] = np.nan  # the face under it unread: nothing says where its top is
    assert on_tops(boxes, axes, [3], [0, 1, 2]) == []
    boxes, axes = _tops_scene(0.0)
    assert on_tops(boxes, axes, [3], [3]) == []


def test_a_box_as_large_as_the_face_is_no_top(monkeypatch):
    """A box as large as a face where a top would lie (a tile beyond the row, seen over the standing one) is kept:
    its area alone decides (``TOP_AREA``)."""
    import vision.face_geometry as face_geometry

    boxes, axes = _tops_scene(0.0)
    boxes[3] = _box(np.array([400.0, 300.0 - 0.6 * TILE[1]]), 90.0)
    assert on_tops(boxes, axes, [3], [0, 1, 2]) == []
    monkeypatch.setattr(face_geometry, "TOP_AREA", 1.5)
    assert on_tops(boxes, axes, [3], [0, 1, 2]) == [3]
