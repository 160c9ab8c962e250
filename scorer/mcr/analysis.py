"""One reading of a winning hand under MCR: its arrangement into parts plus the facts fans look at.

The engine builds one Analysis per possible arrangement; each fan in ``fans.py`` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from scorer.hand import Context
from scorer.shapes import rank_of, suit_of


@dataclass(frozen=True, slots=True)
class Part:
    """A set or pair of the arrangement. ``tile`` is the lowest tile index (0..33).

    ``declared``: laid on the table (exposed meld or concealed kong). ``exposed``: declared and claimed.
    ``concealed``: for pungs and kongs, whether it counts as concealed (a concealed kong does; a pung
    completed by a claimed winning tile does not).
    """

    kind: str  # "chow", "pung", "kong", "pair", "knitted"
    tile: int
    declared: bool = False
    exposed: bool = False
    concealed: bool = True
    tiles: tuple[int, ...] = ()

    @property
    def indices(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        if self.kind == "knitted":
            return self.tiles
        return (self.tile,) * {"pung": 3, "kong": 4, "pair": 2}[self.kind]

    @property
    def is_pung(self) -> bool:
        """A pung or a kong: both count as pungs for every pung fan."""
        return self.kind in ("pung", "kong")


@dataclass(eq=False)
class Analysis:
    form: str  # "regular", "knitted_straight", "seven_pairs", "thirteen_orphans", "honors_and_knitted"
    parts: tuple[Part, ...]
    counts: tuple[int, ...]  # every playing tile of the hand, kongs as 4
    win: int
    context: Context
    flowers: int
    declared_melds: int
    unique_wait: bool
    honors_and_knitted: str | None = None  # "greater" / "lesser"
    combos: dict[str, int] = field(default_factory=dict)  # relational chow/pung fans chosen (combos.py)

    # -- derived views, computed once ------------------------------------------------------------------
    @cached_property
    def chows(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind == "chow")

    @cached_property
    def pungs(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.is_pung)

    @cached_property
    def wind_pungs(self) -> int:
        return sum(1 for p in self.pungs if 27 <= p.tile <= 30)

    @cached_property
    def dragon_pungs(self) -> int:
        return sum(1 for p in self.pungs if p.tile >= 31)

    @cached_property
    def pair(self) -> Part | None:
        pairs = [p for p in self.parts if p.kind == "pair"]
        return pairs[0] if len(pairs) == 1 else None

    @cached_property
    def kinds(self) -> tuple[int, ...]:
        return tuple(i for i, n in enumerate(self.counts) if n)

    @cached_property
    def suits(self) -> frozenset[int]:
        """0 characters, 1 dots, 2 bamboo, 3 honours."""
        return frozenset(suit_of(i) for i in self.kinds)

    @cached_property
    def numbered_ranks(self) -> frozenset[int]:
        return frozenset(rank_of(i) for i in self.kinds if i < 27)

    @property
    def is_regular(self) -> bool:
        return self.form == "regular"

    @property
    def has_sets(self) -> bool:
        """A shape of sets and a pair (regular or knitted straight), as opposed to pairs or singles."""
        return self.form in ("regular", "knitted_straight")

    @cached_property
    def melded_kongs(self) -> int:
        return sum(1 for p in self.parts if p.kind == "kong" and p.exposed)

    @cached_property
    def concealed_kongs(self) -> int:
        return sum(1 for p in self.parts if p.kind == "kong" and not p.exposed)

    @cached_property
    def concealed_pungs(self) -> int:
        """Concealed pungs and concealed kongs together, as the Concealed Pungs fans count them."""
        return sum(1 for p in self.pungs if p.concealed)

    @cached_property
    def exposed_melds(self) -> int:
        return sum(1 for p in self.parts if p.exposed)

    @cached_property
    def wait(self) -> str | None:
        """'edge', 'closed' or 'single' when the hand waited on this one tile only, else None."""
        if not self.unique_wait or not self.has_sets:
            return None
        shapes = set()
        for part in self.parts:
            if part.declared:
                continue
            if part.kind == "chow":
                rank = rank_of(part.tile)
                if self.win == part.tile + 1:
                    shapes.add("closed")
                elif (self.win == part.tile + 2 and rank == 1) or (self.win == part.tile and rank == 7):
                    shapes.add("edge")
            elif part.kind == "pair" and part.tile == self.win:
                shapes.add("single")
        for shape in ("edge", "closed", "single"):
            if shape in shapes:
                return shape
        return None
