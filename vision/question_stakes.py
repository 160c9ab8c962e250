"""Which of a reading's open questions can change the score under a rule set, and which cannot.

A player photographs a hand to learn what it pays. A question the photo leaves open (which flower an unsure tile
is, whose discard a meld claimed, which of two tiles went out) matters to that player only where its answers pay
differently. Some never do under some rule sets: the Danish book and the JMJA's 1967 rules have no flowers, so
which flower a tile is, or whether it is one at all, scores nothing there. ``weigh_questions`` answers every open
question every way (each combination of choices), scores each hand, and sorts the questions:

- ``changing``: some answer pays differently (given some answers to the others), or an answer gives no
  whole, valid hand;
- ``settled``: whatever the answer, the same total and the same payments.

When every open question is settled, ``Stakes.hand`` is the hand to score and ``Stakes.score`` what every answer
pays. The questions are not dropped: the reading still lists them, and the command line and the page say that they
were not asked and why (the hand's exact faces are ``mjscan read``'s business).

Two kinds of question are never settled this way:

- one with a single choice: it asks the player to confirm a guess (the tile a hand one short lacks), and the
  truth may be none of the choices (on the held-out hands such a question was settled wrongly once in six);
- more combinations than ``MAX_COMBINATIONS``: every question is then ``changing``, as before.

Measured at stop 57 on the 1,600 held-out hands (the shipped detector's cached answers, each hand's own context;
``mjscan eval-grouping --rules all``): of the 228 hands asked about, 78 under ``danish``, 83 under ``jmja1967``, 27
under ``classical`` and 29 under ``mcr`` are settled to the true hand's score; 2, 3, 1 and 2 to another score, all
hands whose true hand no answer gives (a tile misread elsewhere), which the questions would not have put right
either.

>>> from scorer.notation import parse_hand
>>> from scorer.rules import get_rule_set
>>> from vision.grouping import NOT_A_FLOWER, Choice, Question, Reading
>>> stray = Question("flower-14", "Is the tile lying apart a flower?", (Choice("yes, 6f"), Choice(NOT_A_FLOWER)))
>>> reading = Reading(parse_hand("123m 456m 789m 234p 5s +5s 2f"), (stray,))
>>> weigh_questions(reading, {}, get_rule_set("danish").score).settled  # the Danish book has no flowers
('flower-14',)
>>> weigh_questions(reading, {}, get_rule_set("mcr").score).changing  # in MCR a flower is a fan
('flower-14',)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from scorer.errors import HandError
from scorer.hand import Hand
from scorer.result import Score

MAX_COMBINATIONS = 128
"""The most answer combinations weighed (a reading rarely has more than three questions of a few choices each; a
combination costs one scoring, under 3 ms for the slowest rule set)."""


@dataclass(frozen=True, slots=True)
class Stakes:
    """The open questions sorted by whether their answer can change the score (ids, in the reading's order), and,
    when every one is settled, the hand scored and its score."""

    changing: tuple[str, ...] = ()
    settled: tuple[str, ...] = ()
    hand: Hand | None = None
    score: Score | None = None

    def __post_init__(self) -> None:
        if set(self.changing) & set(self.settled):
            raise ValueError("a question either changes the score or is settled, not both")
        if (self.hand is None) != (self.score is None):
            raise ValueError("a settled hand comes with its score")
        if self.hand is not None and self.changing:
            raise ValueError("a hand is settled only when no open question changes its score")

    @property
    def all_settled(self) -> bool:
        """Open questions remain, and none of them changes the score."""
        return bool(self.settled) and not self.changing

    def to_dict(self) -> dict[str, Any]:
        return {"changing": list(self.changing), "settled": list(self.settled)}


def payout(score: Score) -> tuple[Any, ...] | None:
    """What a hand pays: its total and who pays whom (None for a hand that is no valid win)."""
    return (score.total, score.settlement) if score.valid else None


def weigh_questions(reading: Any, answers: Mapping[str, str], score: Callable[[Hand], Score],
                    limit: int = MAX_COMBINATIONS) -> Stakes:
    """The open questions of ``reading`` (a ``vision.grouping.Reading``) after ``answers``, weighed by ``score`` (a
    hand to its Score: a rule set's ``score``, with the player's context put in by the caller). Raises ValueError
    for answers the reading does not take, as ``Reading.answer`` does."""
    answers = dict(answers)
    hand, open_questions = reading.answer(answers)
    if not open_questions:
        return Stakes()
    ids = tuple(q.id for q in open_questions)
    labels = [[choice.label for choice in q.choices] for q in open_questions]
    if math.prod(len(choices) for choices in labels) > limit:
        return Stakes(changing=ids)
    payouts: dict[tuple[str, ...], tuple[Any, ...] | None] = {}
    first: Hand | None = None  # the first combination's hand: the likeliest choices
    for combination in itertools.product(*labels):
        try:
            answered, still_open = reading.answer({**answers, **dict(zip(ids, combination))})
            paid = payout(score(answered)) if answered is not None and not still_open else None
        except (ValueError, HandError):
            paid = None
        payouts[combination] = paid
        if first is None and paid is not None:
            first = answered
    changing = []
    for at, question_id in enumerate(ids):
        if len(labels[at]) < 2:  # a guess to confirm, not a choice between readings: always asked
            changing.append(question_id)
            continue
        # settled when, whatever the other questions' answers, this one's answers all pay the same
        others = itertools.product(*(choices if i != at else [None] for i, choices in enumerate(labels)))
        for rest in others:
            paid = {payouts[rest[:at] + (label,) + rest[at + 1:]] for label in labels[at]}
            if None in paid or len(paid) > 1:
                changing.append(question_id)
                break
    settled = tuple(q for q in ids if q not in changing)
    if changing or not settled:
        return Stakes(changing=tuple(changing), settled=settled)
    # every question settled (so every combination paid, and alike): the reading's own hand where it is whole and
    # pays the same (a flower question's choices may leave out the face first read), else the first combination's
    common = payouts[next(iter(payouts))]
    if hand is not None:
        try:
            own = score(hand)
        except (ValueError, HandError):
            own = None
        if own is not None and payout(own) == common:
            return Stakes(settled=settled, hand=hand, score=own)
    return Stakes(settled=settled, hand=first, score=score(first))
