"""The views of a hand that the book's rules look at: a complete shape (14 tiles, kongs as 3) and its
arrangements into sets and a pair, built on the shared decompositions of ``scorer.shapes``.

>>> from scorer.notation import parse_hand
>>> shape = Shape.of(parse_hand("123m 456m 789m 5z [1'11p] +5z"), with_winning=True)
>>> [(p.kind, p.index) for p in arrangements(shape)[0]]
[('pung', 9), ('chow', 0), ('chow', 3), ('chow', 6), ('pair', 31)]
>>> shape.exposed, suits_used(shape.counts)
(True, {0, 1})
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from scorer.hand import Hand
from scorer.shapes import Counts, counts_of, is_numbered, rank_of, regular_decompositions, suit_of

from scorer.danish.options import Options

WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
WHITE, GREEN, RED = DRAGONS
TERMINALS = (0, 8, 9, 17, 18, 26)


class Part(NamedTuple):
    """A set or the pair: kind is chow, pung, kong or pair; index the lowest tile."""

    kind: str
    index: int
    concealed: bool = True
    declared: bool = False

    @property
    def is_set(self) -> bool:
        return self.kind in ("pung", "kong")

    def holds(self, index: int) -> bool:
        if self.kind == "chow":
            return self.index <= index <= self.index + 2
        return self.index == index

    @property
    def indices(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.index, self.index + 1, self.index + 2)
        return (self.index,) * {"pung": 3, "kong": 4, "pair": 2}[self.kind]


MeldSig = tuple[str, int, bool]  # (kind, lowest tile index, concealed)


@dataclass(frozen=True, slots=True)
class Shape:
    """The tiles of a hand as counts: the standing tiles, the declared melds, the own wind, the options."""

    standing: Counts
    melds: tuple[MeldSig, ...]
    seat: int
    options: Options

    @classmethod
    def of(cls, hand: Hand, *, with_winning: bool, extra: int | None = None,
           options: Options | None = None) -> "Shape":
        standing = list(counts_of(hand.concealed))
        if not with_winning and hand.winning_tile is not None:
            standing[hand.winning_tile.index] -= 1
        if extra is not None:
            standing[extra] += 1
        return cls(tuple(standing), melds_of(hand), hand.context.seat_wind.tile.index,
                   options if options is not None else Options.of(hand))

    @property
    def counts(self) -> Counts:
        return _all_counts(self.standing, self.melds)

    @property
    def exposed(self) -> bool:
        """Whether any meld lies open (a concealed kong keeps the hand concealed: 'skjult')."""
        return any(not concealed for _, _, concealed in self.melds)

    @property
    def size(self) -> int:
        return sum(self.standing) + 3 * len(self.melds)


def melds_of(hand: Hand) -> tuple[MeldSig, ...]:
    return tuple((m.kind.value, m.tile.index, m.concealed) for m in hand.melds)


@lru_cache(maxsize=50_000)
def _all_counts(standing: Counts, melds: tuple[MeldSig, ...]) -> Counts:
    counts = list(standing)
    for kind, index, _ in melds:
        for i in Part(kind, index).indices:
            counts[i] += 1
    return tuple(counts)


def declared_parts(melds: tuple[MeldSig, ...]) -> tuple[Part, ...]:
    return tuple(Part(kind, index, concealed, True) for kind, index, concealed in melds)


@lru_cache(maxsize=50_000)
def arrangements(shape: Shape) -> tuple[tuple[Part, ...], ...]:
    """Every way to read the shape as four sets and a pair (declared melds first, the pair last)."""
    declared = declared_parts(shape.melds)
    found = []
    for raw in regular_decompositions(shape.standing, 4 - len(shape.melds)):
        found.append(declared + tuple(Part(kind, index) for kind, index in raw))
    return tuple(found)


def suits_used(counts: Counts) -> set[int]:
    """The numbered suits present: 0 characters, 1 dots, 2 bamboo."""
    return {suit_of(i) for i in range(27) if counts[i]}


def tiles_in(counts: Counts, allowed) -> bool:
    return all(counts[i] == 0 or i in allowed for i in range(34))


def has_honours(counts: Counts) -> bool:
    return any(counts[i] for i in range(27, 34))


def is_terminal_or_honour(index: int) -> bool:
    return not is_numbered(index) or rank_of(index) in (1, 9)


def is_simple(index: int) -> bool:
    return is_numbered(index) and 2 <= rank_of(index) <= 8


