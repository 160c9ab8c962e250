"""Which tiles a hand waits on (scorer/waits.py), under MCR."""

import pytest

from scorer.errors import HandError
from scorer.notation import parse_hand
from scorer.waits import is_fishing, waiting_tiles


@pytest.mark.parametrize("hand, waits", [
    ("123m 456m 789m 23p 55s", ["1p", "4p"]),                      # two-sided chow wait
    ("123m 456m 789m 13p 55s", ["2p"]),                            # closed wait
    ("123m 456m 789m 111p 5s", ["5s"]),                            # single wait
    ("1112345678999m", [f"{r}m" for r in range(1, 10)]),           # Nine Gates: nine waits
    ("19m 19p 19s 1234567z", ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]),
    ("112233445566p 7z", ["7z"]),                                  # seven pairs
    ("147m 258p 369s 1234z", ["5z", "6z", "7z"]),                  # Lesser Honors and Knitted Tiles
    ("123m 456m 789m 1111p", []),                                  # 1p would be a fifth copy: no wait
])
def test_mcr_waits(hand, waits):
    assert [t.code for t in waiting_tiles(parse_hand(hand), "mcr")] == waits


def test_declared_melds_are_part_of_the_hand():
    assert [t.code for t in waiting_tiles(parse_hand("[7'77m] [1'11p] [2'22p] 89m 33p"), "mcr")] == ["7m"]
    # the fourth 7m is in the player's own kong: the edge wait cannot complete
    assert waiting_tiles(parse_hand("[7777'm] [1'11p] [2'22p] 89m 33p"), "mcr") == ()


def test_fishing_and_refusals():
    assert is_fishing(parse_hand("123m 456m 789m 23p 55s"))
    assert not is_fishing(parse_hand("123m 456m 789m 29p 55s"))
    with pytest.raises(HandError, match="already won"):
        waiting_tiles(parse_hand("123m 456m 789m 234p 5s +5s"))
