"""Asking a reading's open questions at the terminal (``mjscan scan`` run by a person).

A photo often leaves a question the page would ask: whose discard a meld claimed, which tile won, which flower a
faint tile is. Without a terminal ``mjscan scan`` names the question and exits with status 2, and the player runs it
again with ``--answer ID=CHOICE``; at a terminal it asks, one question at a time, as the page does, and scores the
hand once they are answered. The answers are then printed as ``--answer`` options, so the same command can be run
again (in a script, say) without asking.

>>> from vision.grouping import Choice, Question, Reading
>>> from scorer.notation import parse_hand
>>> hand = parse_hand("123m 456p 789s 9p [555s] +9p")
>>> question = Question("claim-5s", "Whose discard was the pung of 5s?", (Choice("left"), Choice("across")))
>>> reading = Reading(hand, (question,), (), (), (), (1.0, 0.0))
>>> replies, shown = iter(["7", "acr"]), []
>>> ask_open_questions(reading, {}, lambda prompt: next(replies), shown.append)
{'claim-5s': 'across'}
>>> print("".join(shown))  # doctest: +NORMALIZE_WHITESPACE
question claim-5s: Whose discard was the pung of 5s?
    1) left
    2) across
'7' is not a choice of question 'claim-5s': 1) left, 2) across
"""

from __future__ import annotations

import shlex
from typing import Any, Callable, Iterable

STOP = "(press Enter on an empty line to stop and answer later with --answer)"


def ask_open_questions(reading: Any, answers: dict[str, str], read_line: Callable[[str], str],
                       write: Callable[[str], Any],
                       worth_asking: Callable[[dict[str, str]], Iterable[str]] | None = None,
                       describe: Callable[[Any, Any, dict[str, str]], str] | None = None) -> dict[str, str]:
    """``answers`` with the player's answers to the reading's open questions added, asked one at a time through
    ``read_line(prompt)`` (a question's choice by its number, its label or the start of it) and ``write``. An answer
    that is no choice is said so and the question asked again; an empty line or the end of the input stops the
    asking (the answers so far are kept). A question without choices (the tiles make no hand: "please enter the
    hand") cannot be answered here and ends it too. Answering one question can open or close others (a choice that
    carries a whole hand), so the open ones are taken again after each answer. ``worth_asking(answers)``, where
    given, names the open questions to ask (``mjscan scan``: those whose answer can change the score,
    ``vision.question_stakes``); the others are left open. ``describe(question, choice, answers)``, where given,
    adds to each choice's line (``mjscan scan``: what the hand it leads to scores)."""
    answers = dict(answers)
    while True:
        _, open_questions = reading.answer(answers)
        wanted = set(worth_asking(answers)) if worth_asking is not None else {q.id for q in open_questions}
        question = next((q for q in open_questions if q.choices and q.id in wanted), None)
        if question is None:
            return answers
        write(f"question {question.id}: {question.text}\n")
        for number, choice in enumerate(question.choices, 1):
            write(f"    {number}) {choice.label}{describe(question, choice, answers) if describe else ''}\n")
        while True:
            try:
                reply = read_line(f"answer 1-{len(question.choices)} {STOP}: ").strip()
            except EOFError:
                return answers
            if not reply:
                return answers
            try:
                # the choice's label, not the number or start typed: the options printed for next time say it
                label = question.pick(reply).label
                reading.answer({**answers, question.id: label})  # with the others (face-down kongs: a valid set)
            except ValueError as error:
                write(f"{error}\n")
                continue
            answers[question.id] = label
            break


def as_options(answers: dict[str, str]) -> str:
    """The answers as the command line's options, quoted for a shell.

    >>> as_options({"claim-5s": "across", "tile-reading": "6s 6s instead of 9s 9s"})
    "--answer claim-5s=across --answer 'tile-reading=6s 6s instead of 9s 9s'"
    """
    return " ".join(f"--answer {shlex.quote(f'{qid}={label}')}" for qid, label in answers.items())
