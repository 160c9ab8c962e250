"""Declared melds: chows, pungs and kongs laid on the table.

A meld is validated when it is built: a chow is three consecutive tiles of one suit, a pung three
alike, a kong four alike; only a kong can be concealed; the claimed tile is one of the meld's tiles.

>>> Meld.chow(Tile.parse("3s"), claimed_tile=Tile.parse("4s")).tiles
(Tile('3s'), Tile('4s'), Tile('5s'))
>>> Meld.kong(Tile.parse("6z"), concealed=True).concealed
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scorer.errors import HandError
from scorer.tiles import Tile


class MeldKind(enum.Enum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"

    @property
    def size(self) -> int:
        return 4 if self is MeldKind.KONG else 3


class Direction(enum.Enum):
    """Whose discard was claimed, seen from the meld's owner. In the camera layout the claimed tile
    lies sideways on the left of the meld, in the middle, or on the right, respectively."""

    LEFT = "left"
    ACROSS = "across"
    RIGHT = "right"

    @classmethod
    def parse(cls, text: str) -> "Direction":
        try:
            return cls(str(text).strip().lower())
        except ValueError:
            raise HandError("bad_direction", f"'{text}' is not a direction: use left, across or right.") from None


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    tiles: tuple[Tile, ...]
    concealed: bool = False
    claimed: Direction | None = None
    claimed_tile: Tile | None = None

    def __post_init__(self):
        if not isinstance(self.kind, MeldKind):
            raise HandError("bad_meld", f"{self.kind!r} is not a meld kind: use chow, pung or kong.")
        tiles = tuple(sorted(self.tiles))
        object.__setattr__(self, "tiles", tiles)
        shown = " ".join(t.code for t in tiles)
        if len(tiles) != self.kind.size:
            raise HandError("bad_meld", f"A {self.kind.value} has {self.kind.size} tiles, not {len(tiles)} ({shown}).")
        if any(t.is_bonus for t in tiles):
            raise HandError("bad_meld", f"Flowers and seasons cannot be part of a {self.kind.value} ({shown}).")
        first = tiles[0]
        if self.kind is MeldKind.CHOW:
            if not first.is_numbered:
                raise HandError("impossible_chow", f"A chow needs suit tiles; honours cannot form one ({shown}).")
            if any(t.suit is not first.suit or t.rank != first.rank + i for i, t in enumerate(tiles)):
                raise HandError("impossible_chow",
                                f"{shown} is not a chow: a chow is three consecutive tiles of one suit.")
        elif any(t != first for t in tiles):
            raise HandError("bad_meld", f"{shown} is not a {self.kind.value}: its tiles must all be alike.")
        if self.concealed and self.kind is not MeldKind.KONG:
            raise HandError("bad_meld", f"Only a kong can be declared concealed; a concealed {self.kind.value} "
                                        "stays among the standing tiles.")
        if self.concealed and (self.claimed is not None or self.claimed_tile is not None):
            raise HandError("bad_meld", "A concealed kong was not claimed from anyone.")
        if self.claimed is not None and not isinstance(self.claimed, Direction):
            raise HandError("bad_direction", f"{self.claimed!r} is not a direction: use left, across or right.")
        if self.claimed_tile is not None and self.claimed_tile not in tiles:
            raise HandError("bad_meld", f"The claimed tile {self.claimed_tile.code} is not in the meld {shown}.")
        if self.kind is MeldKind.CHOW and self.claimed not in (None, Direction.LEFT):
            raise HandError("impossible_chow", "A chow can only be claimed from the player on your left "
                                               f"(this one says {self.claimed.value}).")

    @classmethod
    def chow(cls, lowest: Tile, *, claimed_tile: Tile | None = None,
             claimed: Direction | None = Direction.LEFT) -> "Meld":
        tiles = [lowest, lowest.next(1), lowest.next(2)]
        if None in tiles:
            raise HandError("impossible_chow", f"No chow starts at {lowest.code}: it would run past 9.")
        return cls(MeldKind.CHOW, tuple(tiles), claimed=claimed, claimed_tile=claimed_tile)

    @classmethod
    def pung(cls, tile: Tile, *, claimed: Direction | None = None) -> "Meld":
        return cls(MeldKind.PUNG, (tile,) * 3, claimed=claimed, claimed_tile=tile if claimed else None)

    @classmethod
    def kong(cls, tile: Tile, *, concealed: bool = False, claimed: Direction | None = None) -> "Meld":
        return cls(MeldKind.KONG, (tile,) * 4, concealed=concealed, claimed=claimed,
                   claimed_tile=tile if claimed else None)

    @property
    def tile(self) -> Tile:
        """The lowest tile: the whole meld for a pung or kong, the start of a chow."""
        return self.tiles[0]

    @property
    def is_pung_or_kong(self) -> bool:
        return self.kind is not MeldKind.CHOW
