"""vision.question_stakes: which open questions can change the score under a rule set (real grouping, hand-built
detections as in tests/vision/test_repair.py, and the real rule sets)."""

from __future__ import annotations

import pytest

from scorer.codec import hand_from_dict, hand_to_dict
from scorer.notation import parse_hand
from scorer.rules import get_rule_set
from tests.vision.test_grouping import MELD_Y, scene
from tests.vision.test_repair import index_of, with_reading
from vision.grouping import Choice, Question, Reading, group
from vision.layout_eval import scored_outcome
from vision.question_stakes import Stakes, payout, weigh_questions

ROW = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z | 2z"


def unsure_flower():
    """A hand whose 7f the detector read unsurely (4f nearly as likely): the reading asks which flower it is, or
    whether it is one at all."""
    truth = scene([(0, ROW), (MELD_Y, "5s' 5s 5s"), (MELD_Y + 3 * 40, "2f . 7f")])
    detections = with_reading(truth, index_of(truth, "7f"), "7f", [("4f", 0.6), ("1m", 0.3)])
    return detections, f"flower-reading-{index_of(detections, '7f')}"


def _score(rules):
    return get_rule_set(rules).score


def test_which_flower_a_tile_is_is_settled_only_where_no_flower_scores_more_than_another():
    detections, flower = unsure_flower()
    reading = group(detections)
    assert [q.id for q in reading.questions] == [flower]
    # neither the Danish nor the JMJA book has flowers; in MCR each flower is one fan, whichever it is
    for rules in ("danish", "jmja1967", "mcr"):
        stakes = weigh_questions(reading, {}, _score(rules))
        assert stakes.all_settled and stakes.settled == (flower,) and stakes.changing == ()
        assert stakes.hand == reading.hand  # the reading's own hand, which pays what every answer pays
        assert stakes.score == get_rule_set(rules).score(reading.hand)
    stakes = weigh_questions(reading, {}, _score("classical"))  # the classical rules: an own flower scores more
    assert stakes.changing == (flower,) and not stakes.all_settled and stakes.hand is None
    # whether a tile is a flower at all changes the score in MCR (a faint box, say)
    stray = Reading(reading.hand, (Question("flower-14", "Is it a flower?", (Choice("yes, 6f"), Choice("no"))),))
    assert weigh_questions(stray, {}, _score("mcr")).changing == ("flower-14",)
    # answered, nothing is left to weigh
    assert weigh_questions(reading, {flower: "4f"}, _score("classical")) == Stakes()


def two_questions():
    """A misread 9s (two readings, each a whole hand) and the unsure 7f: the reading asks both."""
    truth = scene([(0, ROW), (MELD_Y, "5s' 5s 5s"), (MELD_Y + 3 * 40, "2f . 7f")])
    misread = with_reading(truth, index_of(truth, "9s"), "1z", [("9s", 0.3), ("6s", 0.25)])
    detections = with_reading(misread, index_of(misread, "7f"), "7f", [("4f", 0.6), ("1m", 0.3)])
    return detections, f"flower-reading-{index_of(detections, '7f')}"


def test_each_question_is_weighed_against_every_answer_to_the_others():
    """Under the classical rules the two readings of the 9s pay alike whichever flower it is, but the flower does
    not; under MCR both change the score: the 9s read as 6s leaves the hand under MCR's 8 points, so no answer about
    the flower gives a valid hand there, and a question is settled only by valid hands."""
    detections, flower = two_questions()
    reading = group(detections)
    assert [q.id for q in reading.questions] == ["tile-reading", flower]
    classical = weigh_questions(reading, {}, _score("classical"))
    assert classical.settled == ("tile-reading",) and classical.changing == (flower,) and classical.hand is None
    assert weigh_questions(reading, {}, _score("mcr")).changing == ("tile-reading", flower)
    danish = weigh_questions(reading, {}, _score("danish"))
    # every answer pays what the first choices' hand pays
    first, _ = reading.answer({"tile-reading": reading.questions[0].choices[0].label,
                               flower: reading.questions[1].choices[0].label})
    assert danish.all_settled and payout(danish.score) == payout(_score("danish")(first))


def test_a_guess_to_confirm_or_too_many_answers_is_always_asked():
    hand = parse_hand("123m 456m 789m 234p 5s +5s 2f")
    flowerless = parse_hand("123m 456m 789m 234p 5s +5s")
    # one choice: the tile a hand one short lacks, say; the truth may be none of the choices
    guess = Reading(None, (Question("hand", "Is the hand this one?", (Choice("2f", hand),)),))
    assert weigh_questions(guess, {}, _score("danish")).changing == ("hand",)
    pick = Reading(None, (Question("flower-3", "Which flower?", (Choice("2f", hand), Choice("none", flowerless))),))
    settled = weigh_questions(pick, {}, _score("danish"))
    assert settled.settled == ("flower-3",) and settled.hand == hand  # no hand of its own: the first choice's
    assert weigh_questions(pick, {}, _score("danish"), limit=1).changing == ("flower-3",)
    with pytest.raises(ValueError, match="no question has the id"):
        weigh_questions(pick, {"flower-9": "2f"}, _score("danish"))


def test_stakes_are_validated_when_built():
    with pytest.raises(ValueError, match="either"):
        Stakes(changing=("a",), settled=("a",))
    with pytest.raises(ValueError, match="score"):
        Stakes(settled=("a",), hand=parse_hand("123m 456m 789m 234p 5s +5s"))
    assert Stakes(changing=("a",), settled=("b",)).to_dict() == {"changing": ["a"], "settled": ["b"]}


def test_a_hand_is_scored_right_wrong_or_asked_by_what_it_pays():
    """eval-grouping --rules: a misread flower pays right where flowers score nothing, wrong where they count; an
    open question that changes the score is asked."""
    truth = parse_hand("123m 456p 789s 2z [5'55s] 1f +2z")  # East's own flower
    misread = hand_from_dict({**hand_to_dict(truth), "flowers": ["4f"]})
    silent = Reading(misread)
    assert scored_outcome(silent, truth, _score("danish")) == "right"
    assert scored_outcome(silent, truth, _score("classical")) == "wrong"
    assert scored_outcome(Reading(truth), truth, _score("mcr")) == "right"
    detections, _ = unsure_flower()
    assert scored_outcome(group(detections), truth, _score("classical")) == "asked"
    assert scored_outcome(group(detections), truth, _score("jmja1967")) == "right"
    assert scored_outcome(Reading(None), truth, _score("mcr")) == "asked"
