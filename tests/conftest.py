"""Shared fixtures: example hands in both forms, and a runner for the command line in-process."""

from __future__ import annotations

import copy
import io
import sys
from dataclasses import dataclass

import pytest

# A valid MCR hand worth 23 points: Pure Straight 16, Fully Concealed Hand 4, All Chows 2, Single Wait 1.
STRAIGHT_NOTATION = "123m 456m 789m 234p 5s +5s | self_drawn"
STRAIGHT_HAND = {
    "concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "5s"],
    "winning_tile": "5s",
    "context": {"self_drawn": True},
}
# The same tiles won on a discard: 21 points (Concealed Hand 2 instead of Fully Concealed Hand 4).
STRAIGHT_CLAIMED_NOTATION = "123m 456m 789m 234p 5s +5s"
# Every spec field: an exposed chow claimed from the left, a concealed kong, flowers and context.
FULL_HAND = {
    "concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "9p", "9p"],
    "melds": [
        {"kind": "chow", "tiles": ["3s", "4s", "5s"], "concealed": False, "claimed": "left", "claimed_tile": "4s"},
        {"kind": "kong", "tiles": ["6z", "6z", "6z", "6z"], "concealed": True},
    ],
    "winning_tile": "9p",
    "flowers": ["2f", "7f"],
    "context": {"self_drawn": False, "seat_wind": "S", "prevalent_wind": "E", "last_of_kind": False,
                "last_tile": False, "kong_replacement": False, "robbing_kong": False, "dealer": False,
                "first_turn": False},
}
# A winning shape worth only 3 points: under MCR's minimum of 8.
BELOW_MINIMUM_NOTATION = "123m 456p 789m 5s [5'55m] +5s"


@pytest.fixture
def straight_hand() -> dict:
    return copy.deepcopy(STRAIGHT_HAND)


@pytest.fixture
def full_hand() -> dict:
    return copy.deepcopy(FULL_HAND)


@dataclass
class Run:
    status: int
    out: str
    err: str


@pytest.fixture
def cli(capsys, monkeypatch):
    """``cli(*argv, stdin="...")`` runs ``mjscan.cli.main`` in-process and answers status, stdout, stderr.

    A usage error (argparse's SystemExit) is caught and answered like any other status."""
    from mjscan.cli import main

    def run(*argv: str, stdin: str = "") -> Run:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capsys.readouterr()
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 2
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return run


def assert_readable(error) -> None:
    """A HandError's message is for players: a plain sentence, no Python reprs or class names."""
    message = error.message
    assert message and str(error) == message
    assert message[0].isupper() or message[0].isdigit() or message[0] == "'", message
    assert message.endswith("."), message
    for noise in ("Tile(", "Suit.", "Direction.", "MeldKind.", "Wind.", "HandError", "Traceback", "<", "None"):
        assert noise not in message, message
