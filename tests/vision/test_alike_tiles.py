"""vision/alike_tiles.py: a clean hand whose alike standing tiles could all be another face is asked about."""

from __future__ import annotations

from dataclasses import replace

from scorer.tiles import Tile
from tests.vision.test_grouping import norm, scene
from tests.vision.test_repair import hand_text, hand_text_of
from vision.alike_tiles import ALIKE_RATIO, alike_rereadings
from vision.detections import Detections
from vision.grouping import group

# 123m 456p 789s 111z and a West pair (3z), the winning 3z apart: a White dragon pair (5z) makes a hand too
ROW = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 1z 3z | 3z"
AS_READ = norm("123m 456p 789s 111z 3z +3z")
AS_WHITE = norm("123m 456p 789s 111z 5z +5z")


def with_next(detections: Detections, code: str, confidence: float, nexts: list[tuple[str, float]],
              only: int | None = None) -> Detections:
    """Every detection read as ``code`` (or only the ``only``-th of them) at ``confidence``, with these next
    readings (code, share of the confidence)."""
    tiles = list(detections.tiles)
    found = [i for i, tile in enumerate(tiles) if tile.code_str == code]
    for i in found if only is None else [found[only]]:
        tiles[i] = replace(tiles[i], confidence=confidence,
                           alternatives=tuple((Tile.parse(c), share * confidence) for c, share in nexts))
    return Detections(detections.width, detections.height, tuple(tiles))


def test_the_next_readings_every_alike_tile_shares():
    shared = alike_rereadings({1: [("5z", 0.6), ("2z", 0.5)], 2: [("5z", 0.7)], 3: [("5z", 0.9), ("2z", 0.9)]})
    assert list(shared) == ["5z"] and abs(shared["5z"] - 0.6 * 0.7 * 0.9) < 1e-9
    assert alike_rereadings({}) == {}


def test_a_pair_that_another_face_fits_as_well_is_asked_about():
    clean = scene([(0, ROW)])
    assert hand_text(group(clean)) == AS_READ and group(clean).questions == ()
    # each West read with a White dragon at 0.7 of it: 0.49 for the pair, over ALIKE_RATIO
    reading = group(with_next(clean, "3z", 0.5, [("5z", 0.7), ("2m", 0.1)]))
    assert hand_text(reading) == AS_READ  # nothing is changed without the player
    (question,) = reading.questions
    assert question.id == "tile-reading"
    assert "2 standing tiles read as 3z could all be 5z" in question.text
    assert [c.label for c in question.choices] == ["as read (3z 3z)", "5z 5z instead of 3z 3z"]
    assert [hand_text_of(c.hand) for c in question.choices] == [AS_READ, AS_WHITE]
    assert hand_text_of(reading.answer({"tile-reading": "2"})[0]) == AS_WHITE
    assert hand_text_of(reading.answer({"tile-reading": "as read"})[0]) == AS_READ


def test_a_pair_read_surely_is_not_asked_about():
    clean = scene([(0, ROW)])
    ratio = 0.55  # 0.3025 for the pair: under ALIKE_RATIO though each tile's is over it
    assert ratio ** 2 < ALIKE_RATIO < ratio
    reading = group(with_next(clean, "3z", 0.5, [("5z", ratio)]))
    assert hand_text(reading) == AS_READ and reading.questions == ()


def test_a_next_reading_that_only_one_copy_gives_is_not_asked_about():
    clean = scene([(0, ROW)])
    reading = group(with_next(clean, "3z", 0.4, [("5z", 0.9)], only=0))
    assert hand_text(reading) == AS_READ and reading.questions == ()


def test_a_reading_that_makes_no_hand_is_not_offered():
    # the West pair read as East: five East winds, no hand (a set has four)
    clean = scene([(0, ROW)])
    reading = group(with_next(clean, "3z", 0.5, [("1z", 0.9)]))
    assert hand_text(reading) == AS_READ and reading.questions == ()


def test_a_pung_read_alike_is_asked_about_too():
    # the three East winds could be North winds: 123m 456p 789s 444z 33z is a hand as well
    clean = scene([(0, ROW)])
    reading = group(with_next(clean, "1z", 0.6, [("4z", 0.8)]))
    (question,) = reading.questions
    assert [c.label for c in question.choices] == ["as read (1z 1z 1z)", "4z 4z 4z instead of 1z 1z 1z"]
    assert hand_text_of(question.choices[1].hand) == norm("123m 456p 789s 444z 3z +3z")


def _detector_cases() -> list[dict]:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).resolve().parents[1] / "data" / "grouping" /
                       "detector-alike-cases.json").read_text())


def test_the_detectors_misread_pairs_and_pungs_are_asked_about(monkeypatch):
    """Three held-out photos the shipped detector read with every copy of a face misread (White dragons as West
    winds, 5m as 3m): silently wrong hands before this rule. Each now asks, and offers the true hand."""
    import vision.alike_tiles

    for case in _detector_cases():
        detections = Detections.from_dict(case["detections"])
        reading = group(detections)
        (question,) = reading.questions
        assert question.id == "tile-reading", case["photo"]
        assert hand_text(reading) != norm(case["hand"])  # the hand as read is still the one read
        assert norm(case["hand"]) in [hand_text_of(c.hand) for c in question.choices], case["photo"]
    monkeypatch.setattr(vision.alike_tiles, "ALIKE_RATIO", 2.0)  # the rule off: the wrong hand, no question
    for case in _detector_cases():
        reading = group(Detections.from_dict(case["detections"]))
        assert reading.questions == () and hand_text(reading) != norm(case["hand"])


def test_two_faces_that_could_each_be_another_offer_both_hands():
    # the East pung could be North winds (0.8 ** 3 = 0.51), the West pair White dragons (0.7 ** 2 = 0.49)
    clean = scene([(0, ROW)])
    reading = group(with_next(with_next(clean, "1z", 0.6, [("4z", 0.8)]), "3z", 0.5, [("5z", 0.7)]))
    (question,) = reading.questions
    assert question.text.startswith("Standing tiles read alike could all be another tile")
    assert [c.label for c in question.choices] == ["as read", "4z 4z 4z instead of 1z 1z 1z", "5z 5z instead of 3z 3z"]
    assert [hand_text_of(c.hand) for c in question.choices] == [
        AS_READ, norm("123m 456p 789s 444z 3z +3z"), AS_WHITE]
