"""Tiles: the 34 playing kinds and the 8 flowers and seasons, as immutable values.

Codes follow the shared spec: ``1m``-``9m`` characters, ``1p``-``9p`` dots, ``1s``-``9s`` bamboo,
``1z``-``7z`` East South West North White Green Red, ``1f``-``8f`` flowers then seasons.

>>> Tile.parse("7z").name
'Red Dragon'
>>> Tile.parse("5f").seat
1
>>> sorted(Tile.parse(c) for c in ["1z", "9s", "1m"])
[Tile('1m'), Tile('9s'), Tile('1z')]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cache

from scorer.errors import HandError


class Suit(enum.Enum):
    CHARACTERS = "m"
    DOTS = "p"
    BAMBOO = "s"
    HONORS = "z"
    BONUS = "f"

    @property
    def is_numbered(self) -> bool:
        return self in (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO)


class Wind(enum.Enum):
    EAST = "E"
    SOUTH = "S"
    WEST = "W"
    NORTH = "N"

    @classmethod
    def parse(cls, text: str) -> "Wind":
        key = str(text).strip().upper()
        for wind in cls:
            if key in (wind.value, wind.name):
                return wind
        raise HandError("unknown_wind", f"'{text}' is not a wind: use E, S, W or N.")

    @property
    def number(self) -> int:
        """1 for East .. 4 for North: the seat number of own flowers and seasons."""
        return list(Wind).index(self) + 1

    @property
    def tile(self) -> "Tile":
        return Tile(Suit.HONORS, self.number)


_SUIT_BASE = {Suit.CHARACTERS: 0, Suit.DOTS: 9, Suit.BAMBOO: 18, Suit.HONORS: 27, Suit.BONUS: 34}
_SUIT_NAMES = {Suit.CHARACTERS: "Characters", Suit.DOTS: "Dots", Suit.BAMBOO: "Bamboo"}
_HONOR_NAMES = ("East Wind", "South Wind", "West Wind", "North Wind",
                "White Dragon", "Green Dragon", "Red Dragon")
_BONUS_NAMES = ("Plum", "Orchid", "Chrysanthemum", "Bamboo (flower)",
                "Spring", "Summer", "Autumn", "Winter")
_MAX_RANK = {Suit.CHARACTERS: 9, Suit.DOTS: 9, Suit.BAMBOO: 9, Suit.HONORS: 7, Suit.BONUS: 8}
# Tiles that look the same upside down (seed 000 item 36): dots 1-5, 8, 9; bamboo 2, 4, 5, 6, 8, 9; White.
_REVERSIBLE = frozenset({"1p", "2p", "3p", "4p", "5p", "8p", "9p",
                         "2s", "4s", "5s", "6s", "8s", "9s", "5z"})
# All Green (seed 000 item 78): bamboo 2, 3, 4, 6, 8 and the Green Dragon.
_GREEN = frozenset({"2s", "3s", "4s", "6s", "8s", "6z"})


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile face. Build with ``Tile.parse("3m")`` or ``Tile(Suit.DOTS, 5)``."""

    suit: Suit
    rank: int
    index: int = field(init=False, compare=False, repr=False)
    """0..33 for playing tiles in spec order (1m..9m, 1p..9p, 1s..9s, 1z..7z), 34..41 for bonus tiles.
    It is also the detector's class id."""

    def __post_init__(self):
        if not isinstance(self.suit, Suit):
            raise HandError("unknown_tile", f"{self.suit!r} is not a suit.")
        if not isinstance(self.rank, int) or not 1 <= self.rank <= _MAX_RANK[self.suit]:
            raise HandError("unknown_tile", f"'{self.rank}{self.suit.value}' is not a tile.")
        object.__setattr__(self, "index", _SUIT_BASE[self.suit] + self.rank - 1)

    @staticmethod
    def parse(code: str) -> "Tile":
        """Parse a spec tile code such as ``"3m"``; raise HandError naming the bad code."""
        if not isinstance(code, str):
            shown = "An empty tile" if code is None else f"{code!r}"
            raise HandError("unknown_tile", f"{shown} is not a tile code: write text like '3m'.")
        return _parse_code(code.strip())

    @property
    def code(self) -> str:
        return f"{self.rank}{self.suit.value}"

    @property
    def is_numbered(self) -> bool:
        return self.suit.is_numbered

    @property
    def is_honor(self) -> bool:
        return self.suit is Suit.HONORS

    @property
    def is_bonus(self) -> bool:
        """A flower or a season: laid apart, never part of the 14 tiles."""
        return self.suit is Suit.BONUS

    @property
    def is_wind(self) -> bool:
        return self.suit is Suit.HONORS and self.rank <= 4

    @property
    def is_dragon(self) -> bool:
        return self.suit is Suit.HONORS and self.rank >= 5

    @property
    def is_terminal(self) -> bool:
        return self.suit.is_numbered and self.rank in (1, 9)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_terminal or self.is_honor

    @property
    def is_simple(self) -> bool:
        return self.suit.is_numbered and 2 <= self.rank <= 8

    @property
    def is_reversible(self) -> bool:
        return self.code in _REVERSIBLE

    @property
    def is_green(self) -> bool:
        return self.code in _GREEN

    @property
    def wind(self) -> Wind | None:
        return list(Wind)[self.rank - 1] if self.is_wind else None

    @property
    def is_flower(self) -> bool:
        return self.is_bonus and self.rank <= 4

    @property
    def is_season(self) -> bool:
        return self.is_bonus and self.rank > 4

    @property
    def seat(self) -> int:
        """A flower or season's seat: 1 East, 2 South, 3 West, 4 North."""
        if not self.is_bonus:
            raise ValueError(f"{self.code} is not a flower or season")
        return (self.rank - 1) % 4 + 1

    @property
    def name(self) -> str:
        if self.suit.is_numbered:
            return f"{self.rank} {_SUIT_NAMES[self.suit]}"
        if self.is_honor:
            return _HONOR_NAMES[self.rank - 1]
        return _BONUS_NAMES[self.rank - 1]

    def next(self, step: int = 1) -> "Tile | None":
        """The numbered tile ``step`` ranks up in the same suit, or None past 9."""
        if not self.suit.is_numbered or not 1 <= self.rank + step <= 9:
            return None
        return Tile(self.suit, self.rank + step)

    def __lt__(self, other: "Tile") -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Tile({self.code!r})"


@cache
def _parse_code(code: str) -> Tile:
    if len(code) != 2 or not code[0].isdigit():
        raise HandError("unknown_tile", f"'{code}' is not a tile code: write a digit then m, p, s, z or f, e.g. '3m'.")
    try:
        suit = Suit(code[1].lower())
    except ValueError:
        raise HandError("unknown_tile", f"'{code}' is not a tile code: the suit letter must be m, p, s, z or f.") from None
    rank = int(code[0])
    if not 1 <= rank <= _MAX_RANK[suit]:
        raise HandError("unknown_tile", f"'{code}' is not a tile: {suit.value} tiles run from 1 to {_MAX_RANK[suit]}.")
    return Tile(suit, rank)


PLAYING_TILES: tuple[Tile, ...] = tuple(
    Tile(suit, rank) for suit in (Suit.CHARACTERS, Suit.DOTS, Suit.BAMBOO) for rank in range(1, 10)
) + tuple(Tile(Suit.HONORS, rank) for rank in range(1, 8))
BONUS_TILES: tuple[Tile, ...] = tuple(Tile(Suit.BONUS, rank) for rank in range(1, 9))
ALL_TILES: tuple[Tile, ...] = PLAYING_TILES + BONUS_TILES
"""All 42 faces in the detector's class order (``back`` is the 43rd class, and not a tile)."""
