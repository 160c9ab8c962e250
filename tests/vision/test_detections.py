"""Detections: the typed values and the spec's detection JSON (round trip and refusals)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from scorer.tiles import ALL_TILES, Tile
from vision.classes import BACK, CLASS_NAMES, NUM_CLASSES, RIICHI_IDS, class_from_id, class_id, parse_class
from vision.detections import Detection, Detections


def sample() -> Detections:
    return Detections(4032, 3024, (
        Detection(Tile.parse("3m"), (10.5, 20, 110.25, 160), 0.97),
        Detection("back", (200, 20, 300, 160), 0.5, sideways=False),
        Detection(Tile.parse("8f"), (400, 40, 560, 150), 0.61, sideways=True),
    ))


def test_class_order_is_the_spec_order():
    assert NUM_CLASSES == 43
    assert CLASS_NAMES[:9] == tuple(f"{n}m" for n in range(1, 10))
    assert CLASS_NAMES[27:34] == tuple(f"{n}z" for n in range(1, 8))
    assert CLASS_NAMES[34:42] == tuple(f"{n}f" for n in range(1, 9))
    assert CLASS_NAMES[42] == "back"
    for tile in ALL_TILES:
        assert class_id(tile) == tile.index and class_from_id(tile.index) == tile
    assert class_from_id(42) == BACK and len(RIICHI_IDS) == 34 and max(RIICHI_IDS) == 33
    with pytest.raises(ValueError):
        class_from_id(43)
    with pytest.raises(ValueError):
        parse_class("0m")


def test_round_trip_through_json():
    detections = sample()
    text = json.dumps(detections.to_dict())
    again = Detections.from_dict(json.loads(text))
    assert again == detections
    data = detections.to_dict()
    assert data["image"] == {"width": 4032, "height": 3024}
    assert data["tiles"][0] == {"code": "3m", "box": [10.5, 20.0, 110.25, 160.0], "confidence": 0.97,
                                "sideways": False}
    assert [t["code"] for t in data["tiles"]] == ["3m", "back", "8f"]
    assert data["tiles"][2]["sideways"] is True


def test_values_are_typed_and_immutable():
    detections = sample()
    first = detections.tiles[0]
    assert isinstance(first.code, Tile) and first.code_str == "3m" and first.class_id == 2
    assert detections.tiles[1].is_back and detections.tiles[1].class_id == 42
    assert isinstance(first.box, tuple) and all(isinstance(v, float) for v in first.box)
    assert first.width == pytest.approx(99.75) and first.center == pytest.approx((60.375, 90))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.confidence = 0.1  # type: ignore[misc]
    assert len(detections) == 3 and detections.codes() == ["3m", "back", "8f"]
    assert detections.above(0.6).codes() == ["3m", "8f"]


@pytest.mark.parametrize("bad, message", [
    ({"image": {"width": 10}}, "image"),
    ({"image": {"width": 10, "height": "5"}}, "image"),
    ({"image": {"width": 0, "height": 5}}, "positive"),
    ({"image": {"width": 10, "height": 5}, "tiles": {}}, "list"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "3m", "box": [0, 0, 1, 1]}]}, "confidence"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "0m", "box": [0, 0, 1, 1], "confidence": 1}]},
     "not a tile code"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "3m", "box": [0, 0, 1], "confidence": 1}]}, "four"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "3m", "box": [5, 0, 1, 1], "confidence": 1}]},
     "x1 <= x2"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "3m", "box": [0, 0, 1, 1], "confidence": 1.5}]},
     "0..1"),
    ({"image": {"width": 10, "height": 5}, "tiles": [{"code": "3m", "box": [0, 0, 1, 1], "confidence": 1,
                                                        "sideways": "yes"}]}, "sideways"),
    ([1, 2], "object"),
])
def test_from_dict_refuses_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        Detections.from_dict(bad)


def test_detection_refuses_bad_values():
    with pytest.raises(ValueError):
        Detection("3m", (0, 0, 1, 1), 0.5)  # a string code must be parsed first
    with pytest.raises(ValueError):
        Detection(Tile.parse("3m"), (0, 0, float("nan"), 1), 0.5)
    with pytest.raises(ValueError):
        Detections(10, 10, ("not a detection",))  # type: ignore[arg-type]


def test_alternative_readings_are_validated_and_round_trip():
    from vision.detections import Detection, Detections
    from scorer.tiles import Tile

    three_m, two_m = Tile.parse("3m"), Tile.parse("2m")
    tile = Detection(three_m, (10, 20, 50, 80), 0.8, alternatives=((two_m, 0.1), ("back", 0.05)))
    data = tile.to_dict()
    assert data["alternatives"] == [{"code": "2m", "confidence": 0.1}, {"code": "back", "confidence": 0.05}]
    assert Detection.from_dict(data) == tile
    assert "alternatives" not in Detection(three_m, (10, 20, 50, 80), 0.8).to_dict()  # the spec's fields only
    assert Detections.from_dict({"image": {"width": 9, "height": 9}, "tiles": [data]}).tiles[0] == tile
    for bad, message in [(((three_m, 0.1),), "own code"), (((two_m, 0.9),), "must lie in"),
                         ((("7x", 0.1),), "must be a Tile"), (((two_m,),), "pair")]:
        with pytest.raises(ValueError, match=message):
            Detection(three_m, (10, 20, 50, 80), 0.8, alternatives=bad)
    with pytest.raises(ValueError, match="alternatives must be a list"):
        Detection.from_dict({**data, "alternatives": [{"code": "2m"}]})


def test_a_faces_axis_is_validated_and_round_trips():
    tile = Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.8, axis=92.5)
    data = tile.to_dict()
    assert data["axis"] == 92.5 and Detection.from_dict(data) == tile
    assert "axis" not in Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.8).to_dict()  # unknown: the spec's fields only
    assert Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.8, axis=-10).axis == 170.0  # an axis has no sign
    assert Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.8, axis=180).axis == 0.0
    for bad in (float("nan"), float("inf"), "up"):
        with pytest.raises(ValueError, match="axis"):
            Detection(Tile.parse("3m"), (10, 20, 50, 80), 0.8, axis=bad)
    for bad in ("90", True, [90]):
        with pytest.raises(ValueError, match="axis"):
            Detection.from_dict({**data, "axis": bad})


def test_a_face_the_detector_could_not_tell_says_so_and_round_trips():
    tile = Detection(Tile.parse("4f"), (10, 20, 50, 80), 0.25, unsure_face=True)
    data = tile.to_dict()
    assert data["unsure_face"] is True and Detection.from_dict(data) == tile
    assert "unsure_face" not in Detection(Tile.parse("4f"), (10, 20, 50, 80), 0.25).to_dict()  # the spec's fields only
    assert Detection.from_dict({k: v for k, v in data.items() if k != "unsure_face"}).unsure_face is False
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="unsure_face"):
            Detection.from_dict({**data, "unsure_face": bad})
