"""vision/row_order.py: a standing row sorted but for an unsure tile is read with the reading that sorts it."""

from __future__ import annotations

import pytest

from dataclasses import replace

from scorer.tiles import Tile
from tests.vision.test_grouping import MELD_Y, norm, scene
from tests.vision.test_repair import hand_text
from vision.detections import Detections
from vision.grouping import group
from vision.row_order import MIN_TILES, UNSURE, row_is_sorted

# a sorted row (the mans, dots and bamboos rising, the honours last) and the winning tile apart
SORTED = "1m 1m 1m 2p 3p 4p 1s 1s 7s 8s 9s 2z 2z | 2z"
SORTED_HAND = norm("111m 234p 11789s 22z +2z")


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(code) for code in text.split()]


def unsure(detections: Detections, index: int, code: str, confidence: float,
           alternatives: list[tuple[str, float]]) -> Detections:
    """Detection ``index`` read as ``code`` at ``confidence``, with these alternatives (code, share of it)."""
    tiles_ = list(detections.tiles)
    tiles_[index] = replace(tiles_[index], code=Tile.parse(code), confidence=confidence, alternatives=tuple(
        (Tile.parse(c), share * confidence) for c, share in alternatives))
    return Detections(detections.width, detections.height, tuple(tiles_))


def indices(detections: Detections, code: str) -> list[int]:
    return [i for i, t in enumerate(detections.tiles) if t.code_str == code]


@pytest.mark.parametrize("row, expected", [
    ("1m 2m 3m 4p 4p 7s 8s 9s 1z 1z 1z", True),
    ("1z 1z 1z 1m 2m 3m 4p 4p 7s 8s 9s", True),         # honours first
    ("9s 8s 7s 4p 4p 3m 2m 1m 1z 1z 1z", True),         # every suit falling: read from the other end
    ("4p 4p 1m 2m 3m 7s 8s 9s 7z 1z 1z", True),         # suits in any order, honours in any order
    ("1m 2m 3m 5m 4p 4p 7s 8s 9s 1z 1z", True),
    ("1m 2m 3m 4p 4p 5m 7s 8s 9s 1z 1z", False),        # a man among the dots
    ("1m 2m 3m 1z 1z 4p 4p 7s 8s 9s", False),           # honours in the middle
    ("1m 3m 2m 4p 4p 7s 8s 9s", False),                 # out of order within a suit
    ("1m 2m 3m 4p 4p 9s 8s 7s", False),                 # one suit rising, another falling
])
def test_what_a_sorted_row_is(row, expected):
    assert row_is_sorted(tiles(row)) is expected


def test_unsure_tiles_that_break_a_sorted_row_are_read_as_the_alternatives_that_sort_it():
    truth = scene([(0, SORTED)])
    assert hand_text(group(truth)) == SORTED_HAND
    # both 1s read as 5m (a one-stick 1s): 111m 55m 234p 789s 222z is a winning hand too, so vision.repair
    # has nothing to mend, but a 5m pair among the dots and bamboos breaks a row sorted everywhere else
    first, second = indices(truth, "1s")
    misread = unsure(truth, first, "5m", 0.3, [("1s", 0.5), ("9s", 0.1)])
    misread = unsure(misread, second, "5m", 0.25, [("1s", 0.7), ("2s", 0.1)])
    reading = group(misread)
    assert hand_text(reading) == SORTED_HAND and reading.questions == ()
    assert sorted((c.detection, c.read_as, c.taken_as) for c in reading.corrections) == \
        [(first, "5m", "1s"), (second, "5m", "1s")]
    assert abs(reading.corrections[0].ratio * reading.corrections[1].ratio - 0.35) < 1e-6
    assert any("sorted by suit and number" in note and "5m read as 1s" in note for note in reading.notes)
    # without the order cue it was the wrong hand, silently: the cue is what reads it right
    assert not row_is_sorted(tiles("1m 1m 1m 2p 3p 4p 5m 5m 7s 8s 9s 2z 2z"))


def test_a_sure_tile_is_never_read_again_for_the_order():
    truth = scene([(0, SORTED)])
    first, second = indices(truth, "1s")
    misread = unsure(truth, first, "5m", UNSURE, [("1s", 0.9)])
    misread = unsure(misread, second, "5m", 0.3, [("1s", 0.9)])
    reading = group(misread)
    assert reading.corrections == () and hand_text(reading) == norm("111m 55m 234p 789s 22z +2z")


def test_a_row_laid_unsorted_is_left_as_read():
    # the same tiles shuffled: re-reading the two 5m as 1s would still leave the row unsorted
    truth = scene([(0, "2p 1m 9s 1s 3p 2z 1m 7s 1s 4p 8s 1m 2z | 2z")])
    first, second = indices(truth, "1s")
    misread = unsure(truth, first, "5m", 0.3, [("1s", 0.5)])
    misread = unsure(misread, second, "5m", 0.25, [("1s", 0.7)])
    reading = group(misread)
    assert reading.corrections == () and hand_text(reading) == norm("111m 55m 234p 789s 22z +2z")


def test_the_order_settles_a_question_between_two_re_readings():
    truth = scene([(0, "1m 1m 1m 5p 6p 7p 7p 7p 9s 9s 9s 2z 2z | 2z")])
    assert hand_text(group(truth)) == norm("111m 56777p 999s 22z +2z")
    # 5p read as 2s, with 5p and 8p close behind: both make a winning hand (567p 77p, 678p 77p), so
    # vision.repair asks; only 5p sorts the row (8p before 6p does not)
    five = indices(truth, "5p")[0]
    misread = unsure(truth, five, "2s", 0.3, [("5p", 0.5), ("8p", 0.45)])
    reading = group(misread)
    assert hand_text(reading) == norm("111m 56777p 999s 22z +2z") and reading.questions == ()
    assert [(c.detection, c.read_as, c.taken_as) for c in reading.corrections] == [(five, "2s", "5p")]


def test_two_re_readings_that_both_sort_the_row_leave_the_question():
    truth = scene([(0, "1m 1m 1m 1p 1p 1p 2p 2p 9s 9s 9s 2z 2z | 2z")])
    assert hand_text(group(truth)) == norm("111m 11122p 999s 22z +2z")
    # the third 1p read as 5s, with 1p and 2p close behind: 111p 22p and 11p 222p are both winning and sorted
    third = indices(truth, "1p")[2]
    misread = unsure(truth, third, "5s", 0.3, [("1p", 0.5), ("2p", 0.45)])
    reading = group(misread)
    assert reading.corrections == ()
    assert [c.label for c in reading.question("tile-reading").choices] == ["5s read as 1p", "5s read as 2p"]


def test_a_short_row_is_not_judged():
    truth = scene([(0, "1s 1s 7s 8s | 9s"), (MELD_Y, "1m' 1m 1m . 2p' 3p 4p . 5z 5z' 5z")])
    assert len([t for t in group(truth).tiles if t.group == "concealed"]) < MIN_TILES
    first, second = indices(truth, "1s")
    misread = unsure(truth, first, "5m", 0.3, [("1s", 0.5)])
    misread = unsure(misread, second, "5m", 0.25, [("1s", 0.7)])
    assert group(misread).corrections == ()


def test_three_unsure_tiles_read_alike_change_alike():
    truth = scene([(0, "1m 1m 1m 2p 3p 4p 1s 1s 1s 7s 8s 9s 2z | 2z")])
    assert hand_text(group(truth)) == norm("111m 234p 111789s 2z +2z")
    # a pung of one-stick 1s read as three 5m: 111m 555m 234p 789s 22z is a winning hand too; no one or two
    # re-readings sort the row, the three together do
    misread = truth
    ones = indices(truth, "1s")
    for n, i in enumerate(ones):
        misread = unsure(misread, i, "5m", 0.25 + 0.02 * n, [("1s", 0.6), ("9m", 0.3)])
    reading = group(misread)
    assert hand_text(reading) == norm("111m 234p 111789s 2z +2z") and reading.questions == ()
    assert sorted(c.detection for c in reading.corrections) == sorted(ones)
    assert {(c.read_as, c.taken_as) for c in reading.corrections} == {("5m", "1s")}
