"""Which tiles a hand waits on: the tiles that would make it a mahjong under a rule set.

A hand one tile from mahjong is "fishing" (danish), "sitting on the stone" (jmja1967), or ready.
Each rule set says what a mahjong is through ``is_mahjong``; this module tries every tile.

>>> from scorer.notation import parse_hand
>>> [t.code for t in waiting_tiles(parse_hand("123m 456m 789m 23p 55s"), "mcr")]
['1p', '4p']
"""

from __future__ import annotations

from dataclasses import replace

from scorer.errors import HandError
from scorer.hand import Hand
from scorer.rules import get_rule_set
from scorer.tiles import PLAYING_TILES, Tile


def waiting_tiles(hand: Hand, rules: str = "mcr") -> tuple[Tile, ...]:
    """The tiles that complete a 13-tile hand (no winning tile yet) into a mahjong under ``rules``.

    A tile of which all four copies are already in the hand cannot arrive, so it is not a wait."""
    if hand.is_winning:
        raise HandError("not_waiting", "This hand has already won: remove the winning tile to see its waits.")
    rule_set = get_rule_set(rules)
    counts = hand.tile_counts()
    waits = []
    for tile in PLAYING_TILES:
        if counts[tile] >= 4:
            continue
        candidate = replace(hand, concealed=hand.concealed + (tile,), winning_tile=tile)
        if rule_set.is_mahjong(candidate):
            waits.append(tile)
    return tuple(waits)


def is_fishing(hand: Hand, rules: str = "mcr") -> bool:
    """Whether the hand is one tile from mahjong."""
    return bool(waiting_tiles(hand, rules))
