"""vision.photo_reading: a box under the detector's threshold completes a hand that lacks a tile, only when exactly
one clean winning hand comes of it; one read as a flower the hand lacks is taken as that flower."""

from __future__ import annotations

import contextlib
from dataclasses import replace

import pytest

from scorer.tiles import Tile
from tests.vision.test_grouping import scene
from vision.detections import Detection, Detections
from vision.grouping import group
from vision.grouping import NOT_A_FLOWER
from vision.photo_reading import (FAINT_FLOWER_FLOOR, FLOWER_FLOOR, complete_with, lacks_a_tile, read_closer,
                                  read_photo, with_unsure_flowers)
from vision.repair import asks_for_a_tile

ROTATIONS = [0, 37, 90, 180]


def _without(detections: Detections, code: str) -> tuple[Detections, Detection]:
    """The detections less the last tile read ``code`` (as if the detector had left it under its threshold), and
    that tile at a confidence under the threshold."""
    index = max(i for i, t in enumerate(detections.tiles) if t.code_str == code)
    tile = detections.tiles[index]
    rest = detections.tiles[:index] + detections.tiles[index + 1:]
    return replace(detections, tiles=rest), replace(tile, confidence=0.12)


@pytest.mark.parametrize("angle", ROTATIONS)
def test_a_faint_winning_tile_completes_the_hand(angle):
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")], angle=angle)
    assert group(whole).hand.winning_tile == Tile.parse("1z")
    short, faint = _without(whole, "1z")
    reading = group(short)
    assert lacks_a_tile(reading) and reading.hand != group(whole).hand
    detections, completed = complete_with(short, reading, (faint,))
    assert completed.hand == group(whole).hand and completed.questions == ()
    assert detections.tiles[-1] == faint and len(detections.tiles) == len(whole.tiles)
    assert any("under the detector's threshold" in note and "confidence 0.12" in note for note in completed.notes)
    # the detections answered make the same hand when grouped again (the page's answers regroup them)
    assert group(detections).hand == completed.hand


def test_a_faint_tile_of_a_meld_completes_it():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z | 5z || 2m 2m' 2m")])
    short, faint = _without(whole, "2m")
    reading = group(short)
    assert lacks_a_tile(reading)
    detections, completed = complete_with(short, reading, (faint,))
    assert completed.hand == group(whole).hand and not completed.questions


def test_a_faint_box_is_tried_as_its_next_readings_too():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    short, faint = _without(whole, "1z")
    misread = replace(faint, code=Tile.parse("2z"), confidence=0.1, alternatives=((Tile.parse("1z"), 0.05),))
    _, completed = complete_with(short, group(short), (misread,))
    assert completed.hand == group(whole).hand


def test_two_faint_boxes_that_make_two_hands_leave_the_question():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    short, faint = _without(whole, "1z")
    other = replace(faint, code=Tile.parse("5z"))  # the same place read as another tile: another winning hand
    assert complete_with(short, group(short), (faint, other)) is None
    # one of them alone is taken
    assert complete_with(short, group(short), (other,))[1].hand.winning_tile == Tile.parse("5z")


@pytest.mark.parametrize("angle", [0, 90])
def test_two_faint_boxes_complete_a_hand_two_tiles_short(angle):
    """Where no one box completes the hand, two together may (stop 53: a pair's two copies under the threshold)."""
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")], angle=angle)
    short, first = _without(whole, "5z")
    shorter, second = _without(short, "5z")
    reading = group(shorter)
    assert lacks_a_tile(reading)
    assert complete_with(shorter, reading, (first,)) is None  # one alone makes no hand
    detections, completed = complete_with(shorter, reading, (first, second))
    assert completed.hand == group(whole).hand and completed.questions == ()
    assert detections.tiles[-2:] == (first, second)
    assert any("lacked 2 tiles" in note for note in completed.notes)
    assert group(detections).hand == completed.hand


def test_three_faint_boxes_together_as_read_only():
    """Boxes taken together are tried as their first readings only (stop 53: with their next readings too, one
    held-out hand was completed wrong), and up to ``MOST_BOXES`` of them."""
    from vision import photo_reading

    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    rest, boxes = whole, []
    for code in ("5z", "5z", "9s"):
        rest, box = _without(rest, code)
        boxes.append(box)
    _, completed = complete_with(rest, group(rest), tuple(boxes))
    assert completed.hand == group(whole).hand
    misread = replace(boxes[2], code=Tile.parse("6s"), alternatives=((Tile.parse("9s"), 0.1),))
    assert complete_with(rest, group(rest), (boxes[0], boxes[1], misread)) is None
    assert photo_reading.MOST_BOXES == 3


def test_a_completed_hand_may_still_ask_about_its_flowers():
    """A question about a flower leaves the standing tiles as they are: a box that completes the hand is taken, and
    the flower is still asked about (``SIDE_QUESTIONS``)."""
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z"), (2 * 90, "2f")])
    unsure = tuple(replace(t, confidence=0.5, alternatives=((Tile.parse("3f"), 0.45),)) if t.code_str == "2f" else t
                   for t in whole.tiles)
    whole = replace(whole, tiles=unsure)
    assert [q.id.rstrip("0123456789") for q in group(whole).questions] == ["flower-reading-"]
    short, faint = _without(whole, "1z")
    detections, completed = complete_with(short, group(short), (faint,))
    assert completed.hand == group(whole).hand
    assert [q.id.rstrip("0123456789") for q in completed.questions] == ["flower-reading-"]


def test_a_faint_box_that_makes_no_winning_hand_is_not_taken():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    short, faint = _without(whole, "1z")
    assert complete_with(short, group(short), (replace(faint, code=Tile.parse("9p")),)) is None
    assert complete_with(short, group(short), ()) is None


def test_a_hand_that_lacks_nothing_is_left_alone():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    reading = group(whole)
    assert not lacks_a_tile(reading)
    stray = Detection(Tile.parse("9m"), (5, 5, 35, 45), 0.2)
    assert complete_with(whole, reading, (stray,)) is None


class _Detector:
    """A stand-in detector: ``detect`` answers ``reported``; ``unsure_boxes`` answers ``faint`` and counts calls."""

    def __init__(self, reported: Detections, faint: tuple[Detection, ...]):
        self.reported, self.faint, self.asked = reported, faint, 0

    def detect(self, photo):
        return self.reported

    def unsure_boxes(self, photo, reported):
        assert reported is self.reported
        self.asked += 1
        return self.faint


def test_read_photo_asks_for_faint_boxes_once_and_takes_them_only_where_the_hand_lacks_a_tile():
    """Since stop 36 the faint boxes are asked for every photo that makes a hand (a flower may lie among them,
    ``with_unsure_flowers``); a tile of the hand is still only taken where the hand lacks one."""
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    sure = _Detector(whole, ())
    detections, reading = read_photo(sure, "photo.jpg")
    assert detections is whole and reading.hand == group(whole).hand and sure.asked == 1
    stray = Detection(Tile.parse("9m"), (5, 5, 35, 45), 0.2)  # a faint box of no use: the hand lacks nothing
    detections, reading = read_photo(_Detector(whole, (stray,)), "photo.jpg")
    assert detections is whole and reading.hand == group(whole).hand
    short, faint = _without(whole, "1z")
    unsure = _Detector(short, (faint,))
    detections, reading = read_photo(unsure, "photo.jpg")
    assert unsure.asked == 1 and reading.hand == group(whole).hand and detections.tiles[-1] == faint
    nothing = _Detector(short, ())
    detections, reading = read_photo(nothing, "photo.jpg")
    assert detections is short and reading.hand == group(short).hand and reading.questions


class _RememberingDetector(_Detector):
    """A stand-in that says when it is asked for what inside ``remembering``."""

    def __init__(self, reported: Detections, faint: tuple[Detection, ...]):
        super().__init__(reported, faint)
        self.inside, self.calls = False, []

    @contextlib.contextmanager
    def remembering(self):
        self.inside = True
        try:
            yield
        finally:
            self.inside = False

    def detect(self, photo):
        self.calls.append(("detect", self.inside))
        return super().detect(photo)

    def unsure_boxes(self, photo, reported):
        self.calls.append(("unsure_boxes", self.inside))
        return super().unsure_boxes(photo, reported)


def test_read_photo_reads_the_photo_twice_while_the_detector_remembers_it():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    detector = _RememberingDetector(whole, ())
    read_photo(detector, "photo.jpg")
    assert detector.calls == [("detect", True), ("unsure_boxes", True)] and not detector.inside


# --------------------------------------------------------------------------------------------------
# A flower under the threshold (stop 36)

FLOWERED = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z || 1f 2f 3f"


def test_a_faint_flower_the_hand_lacks_is_taken_and_said_so():
    whole = scene([(0, FLOWERED)])
    short, faint = _without(whole, "3f")
    faint = replace(faint, confidence=0.22, alternatives=((Tile.parse("7f"), 0.05),))
    reading = group(short)
    assert not lacks_a_tile(reading) and [t.code for t in reading.hand.flowers] == ["1f", "2f"]
    detections, flowered = with_unsure_flowers(short, reading, (faint,))
    assert sorted(t.code for t in flowered.hand.flowers) == ["1f", "2f", "3f"] and flowered.questions == ()
    assert replace(flowered.hand, flowers=()) == replace(reading.hand, flowers=())
    assert detections.tiles[-1] == faint and group(detections).hand == flowered.hand  # the page regroups them
    assert any("under the detector's threshold" in note and "confidence 0.22" in note for note in flowered.notes)
    # read_photo does it too
    assert read_photo(_Detector(short, (faint,)), "photo.jpg")[1].hand == flowered.hand


def test_a_faint_flower_unsure_against_another_the_hand_lacks_is_asked_about():
    short, faint = _without(scene([(0, FLOWERED)]), "3f")
    faint = replace(faint, confidence=0.2, alternatives=((Tile.parse("4f"), 0.15),))
    _, flowered = with_unsure_flowers(short, group(short), (faint,))
    assert [q.id.startswith("flower-reading-") for q in flowered.questions] == [True]
    assert "4f" in [c.label for c in flowered.questions[0].choices]


@pytest.mark.parametrize("change", ["too faint", "already held", "not a flower", "face down"])
def test_a_faint_box_that_is_no_flower_the_hand_lacks_is_left_out(change):
    short, faint = _without(scene([(0, FLOWERED)]), "3f")
    faint = {"too faint": replace(faint, confidence=FAINT_FLOWER_FLOOR - 0.01),
             "already held": replace(faint, code=Tile.parse("2f"), confidence=0.3),
             "not a flower": replace(faint, code=Tile.parse("9m"), confidence=0.3),
             "face down": replace(faint, code="back", confidence=0.3)}[change]
    assert with_unsure_flowers(short, group(short), (faint,)) is None


def test_a_flower_fainter_than_the_floor_is_added_and_asked_about():
    """Under ``FLOWER_FLOOR`` a box read as a flower the hand lacks is as often a stray box as that flower (stop 52):
    left out, the flower was lost without a question; it is added, and asked about, whatever its next readings."""
    short, faint = _without(scene([(0, FLOWERED)]), "3f")
    faint = replace(faint, confidence=0.15, alternatives=((Tile.parse("6f"), 0.01),))
    assert FAINT_FLOWER_FLOOR <= faint.confidence < FLOWER_FLOOR
    detections, flowered = with_unsure_flowers(short, group(short), (faint,))
    index = len(detections.tiles) - 1
    (question,) = flowered.questions
    assert question.id == f"flower-reading-{index}" and "confidence 0.15" in question.text
    labels = [c.label for c in question.choices]
    assert labels[0] == "3f" and labels[1] == "6f" and labels[-1] == NOT_A_FLOWER and "1f" not in labels
    # the page regroups the detections it was given and must meet the same question, and its answers
    regrouped = group(detections)
    assert [q.id for q in regrouped.questions] == [question.id]
    assert [t.code for t in regrouped.answer({question.id: NOT_A_FLOWER})[0].flowers] == ["1f", "2f"]
    assert sorted(t.code for t in regrouped.answer({question.id: "3f"})[0].flowers) == ["1f", "2f", "3f"]
    assert sorted(t.code for t in regrouped.answer({question.id: "6f"})[0].flowers) == ["1f", "2f", "6f"]


def test_a_flower_at_the_floor_is_taken_without_a_question():
    short, faint = _without(scene([(0, FLOWERED)]), "3f")
    _, flowered = with_unsure_flowers(short, group(short), (replace(faint, confidence=FLOWER_FLOOR),))
    assert flowered.questions == () and len(flowered.hand.flowers) == 3


def test_of_two_faint_boxes_read_as_one_flower_the_likelier_is_taken():
    short, faint = _without(scene([(0, FLOWERED)]), "3f")
    x1, y1, x2, y2 = faint.box
    elsewhere = replace(faint, box=(x1, y1 + 600, x2, y2 + 600), confidence=0.19)
    detections, flowered = with_unsure_flowers(short, group(short), (elsewhere, replace(faint, confidence=0.3)))
    assert len(detections.tiles) == len(short.tiles) + 1 and detections.tiles[-1].confidence == 0.3


def test_no_flower_is_added_to_a_photo_that_makes_no_hand():
    short, faint = _without(scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s | 1z || 1f 2f 3f")]), "3f")
    reading = group(short)
    assert reading.hand is None
    assert with_unsure_flowers(short, reading, (replace(faint, confidence=0.3),)) is None


def test_the_detectors_boxes_under_the_threshold_complete_hands_two_or_three_short(monkeypatch):
    """Four held-out photos whose missing tiles the detector boxed under its threshold, two or three of them (a pair's
    copies, a row's end): taken together they give the true hand, where one box at a time gave none."""
    import json
    from pathlib import Path

    from scorer.notation import parse_hand
    from vision import photo_reading

    path = Path(__file__).resolve().parents[1] / "data" / "grouping" / "detector-missed-cases.json"
    cases = json.loads(path.read_text())["together"]
    for case in cases:
        detections = Detections.from_dict(case["detections"])
        unsure = Detections.from_dict({"image": case["detections"]["image"], "tiles": case["unsure"]}).tiles
        reading = group(detections)
        _, completed = complete_with(detections, reading, unsure)
        assert completed.hand == parse_hand(case["hand"]) and completed.questions == (), case["photo"]
    monkeypatch.setattr(photo_reading, "MOST_BOXES", 1)
    for case in cases:
        detections = Detections.from_dict(case["detections"])
        unsure = Detections.from_dict({"image": case["detections"]["image"], "tiles": case["unsure"]}).tiles
        assert complete_with(detections, group(detections), unsure) is None, case["photo"]


# --------------------------------------------------------------------------------------------------
# A small photo read again enlarged (stop 54)


class _CloserDetector(_Detector):
    """A stand-in that also reads the photo enlarged: ``closer`` (None: a photo read in windows already)."""

    def __init__(self, reported: Detections, closer: Detections | None):
        super().__init__(reported, ())
        self.closer, self.looked = closer, 0

    def detect_closer(self, photo, reported):
        assert isinstance(reported, Detections)
        self.looked += 1
        return self.closer


def test_a_hand_short_of_a_tile_is_read_again_enlarged_and_a_clean_hand_taken_and_said_so():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    short, _ = _without(whole, "5z")
    detector = _CloserDetector(short, whole)
    detections, reading = read_photo(detector, "photo.jpg")
    assert detector.looked == 1 and detections is whole
    assert reading.hand == group(whole).hand and reading.questions == ()
    assert any("read again enlarged" in note for note in reading.notes)


def test_no_closer_look_where_nothing_is_short_or_it_gives_no_clean_hand():
    whole = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z | 1z")])
    sure = _CloserDetector(whole, whole)
    read_photo(sure, "photo.jpg")
    assert sure.looked == 0  # a clean hand: nothing to look for
    short, _ = _without(whole, "5z")
    still_short = _CloserDetector(short, short)
    detections, reading = read_photo(still_short, "photo.jpg")
    assert still_short.looked == 1 and detections is short and reading.question("hand") is not None
    big = _CloserDetector(short, None)  # a photo read in windows at its own size
    detections, reading = read_photo(big, "photo.jpg")
    assert big.looked == 1 and detections is short
    # a question about a reading, not a missing tile (which flower a tile is), is not a reason to look again
    from vision.grouping import Question

    asked = replace(group(whole), questions=(Question("flower-reading-3", "Which flower is it?"),))
    assert not asks_for_a_tile(asked) and asks_for_a_tile(group(short))
    assert read_closer(_CloserDetector(short, whole), "photo.jpg", short, asked) is None


def test_the_detectors_small_photos_read_closer_give_the_true_hand():
    """Three held-out photos (1280 x 720) the shipped detector read a tile short, or with a tile misread, at their own
    size: read enlarged (in windows), each makes its true hand."""
    from scorer.notation import parse_hand
    from tests.vision.test_missed_tile import _detector_cases

    cases = _detector_cases("closer")
    assert len(cases) == 3
    for case in cases:
        first = Detections.from_dict(case["detections"])
        closer = Detections.from_dict(case["closer"])
        assert asks_for_a_tile(group(first)), case["photo"]
        _, reading = read_photo(_CloserDetector(first, closer), "photo.jpg", first)
        assert reading.hand == parse_hand(case["hand"]) and reading.questions == (), case["photo"]
