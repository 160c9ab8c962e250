"""A hand read for the jmja1967 scorer: its groups ("ryhmät") and how it was won.

A winning hand is read in every way its standing tiles split into sets and a pair, and for a
claimed mahjong tile in every group the tile may have completed: the winner "may count his points
in any way the rules allow" ("Hän saa tehdä sen itse sääntöjen mukaan millä tavalla tahansa, muut
tarkistavat"), so the scorer keeps the best reading. A non-winner's 13 tiles are read as their declared
melds plus the standing pongs, chows and one pair that score best, the rest left single.

>>> from scorer.notation import parse_hand
>>> hand = parse_hand("1123m 456p 789s 55z 1m +1m")   # the claimed 1m completed the chow, or the pong
>>> [[(p.kind, p.tiles[0].code, p.concealed) for p in r.parts if p.index == 0] for r in winner_readings(hand)]
[[('chow', '1m', True), ('pung', '1m', True)], [('chow', '1m', True), ('pung', '1m', False)]]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from scorer.hand import Context, Hand
from scorer.melds import MeldKind
from scorer.shapes import Counts, counts_of, is_thirteen_orphans, rank_of, regular_decompositions
from scorer.tiles import PLAYING_TILES, Wind

DRAGONS = (31, 32, 33)
WINDS = (27, 28, 29, 30)

# The four rows of the book's group table ("peruspisteet"), by the tile a group is made of.
ORDINARY = "ordinary"                  # "tavalliset": simples 2-8
TERMINAL_OR_OTHER_WIND = "terminal"    # "reunatiilet, vieras tuuli": 1s and 9s, a wind neither own nor round
VALUED = "valued"                      # "lohikäärmeet, oma tuuli, erän tuuli": dragons, own wind, round wind
DOUBLE_WIND = "double_wind"            # "kaksoistuuli": own wind when it is also the round's wind


def wind_index(wind: Wind) -> int:
    return 27 + wind.number - 1


def tile_class(index: int, seat: int, prevalent: int) -> str:
    """The row of the group table for a tile index, seen from a player's seat in a round.

    >>> [tile_class(i, 28, 27) for i in (4, 0, 29, 31, 28, 27)]
    ['ordinary', 'terminal', 'terminal', 'valued', 'valued', 'valued']
    >>> tile_class(27, 27, 27)
    'double_wind'
    """
    if index < 27:
        return TERMINAL_OR_OTHER_WIND if rank_of(index) in (1, 9) else ORDINARY
    if index in DRAGONS:
        return VALUED
    own, round_ = index == seat, index == prevalent
    if own and round_:
        return DOUBLE_WIND
    return VALUED if own or round_ else TERMINAL_OR_OTHER_WIND


def is_value_tile(index: int) -> bool:
    """A terminal or an honour: "Kunnianarvoisat ja reunatiilet ovat arvotiiliä"."""
    return index >= 27 or rank_of(index) in (1, 9)


@dataclass(frozen=True, slots=True)
class Part:
    """One group: ``chow``, ``pung``, ``kong``, ``pair``, or (a non-winner's) ``single``.

    ``concealed`` is "kädestä" (from the hand): false for an exposed meld and, by default, for a pong
    completed by a claimed mahjong tile. ``declared`` marks a meld laid on the table."""

    kind: str
    index: int
    concealed: bool = True
    declared: bool = False

    @property
    def indices(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.index, self.index + 1, self.index + 2)
        return (self.index,) * {"pung": 3, "kong": 4, "pair": 2, "single": 1}[self.kind]

    @property
    def is_set(self) -> bool:
        return self.kind in ("chow", "pung", "kong")

    @property
    def is_pung(self) -> bool:
        """A pong or a kong: the book counts them together ("pongia tai kongia")."""
        return self.kind in ("pung", "kong")

    @property
    def tiles(self):
        return tuple(PLAYING_TILES[i] for i in self.indices)


@dataclass(frozen=True, slots=True)
class Reading:
    """One way to read a hand, with everything the rules look at."""

    form: str                    # "regular", "thirteen_orphans", or "partial" (a non-winner's hand)
    parts: tuple[Part, ...]
    counts: Counts               # every tile of the hand, melds included (a kong gives 4)
    seat: int                    # the tile index of the player's own wind
    prevalent: int               # the tile index of the round's wind
    win: int | None = None       # the mahjong tile's index (None for a non-winner)
    self_drawn: bool = False     # the mahjong tile came from the wall (the dead wall included)
    concealed_hand: bool = False  # no exposed meld: every tile "kädestä" but perhaps the last
    only_possible: bool = False  # the mahjong tile was the only tile that completed the hand
    east: bool = False           # the player is East, the dealer ("jakaja = itä")
    context: Context = Context()
    has_melds: bool = False      # any declared meld, concealed kongs included

    @property
    def winning(self) -> bool:
        return self.win is not None

    @property
    def sets(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.is_set)

    @property
    def pungs(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.is_pung)

    @property
    def concealed_pungs(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.is_pung and p.concealed)

    @property
    def chows(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind == "chow")

    @property
    def pairs(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind == "pair")

    @property
    def tile_indices(self) -> tuple[int, ...]:
        return tuple(i for i in range(34) if self.counts[i])

    def tile_class(self, index: int) -> str:
        return tile_class(index, self.seat, self.prevalent)


def declared_parts(hand: Hand) -> tuple[Part, ...]:
    parts = []
    for meld in hand.melds:
        kind = {MeldKind.CHOW: "chow", MeldKind.PUNG: "pung", MeldKind.KONG: "kong"}[meld.kind]
        parts.append(Part(kind, meld.tile.index, concealed=meld.concealed, declared=True))
    return tuple(parts)


def base_reading(hand: Hand, form: str, parts: tuple[Part, ...], **flags) -> Reading:
    context = hand.context
    return Reading(form=form, parts=parts, counts=counts_of(hand.all_tiles()),
                   seat=wind_index(context.seat_wind), prevalent=wind_index(context.prevalent_wind),
                   east=context.dealer or context.seat_wind is Wind.EAST, context=context,
                   has_melds=bool(hand.melds),
                   concealed_hand=all(m.concealed for m in hand.melds), **flags)


def winner_readings(hand: Hand, *, self_drawn: bool = False, only_possible: bool = False,
                    claimed_pong_concealed: bool = False) -> list[Reading]:
    """Every reading of a winning hand (none when it is no mahjong).

    With a claimed mahjong tile, each group that tile may have completed gives its own reading: a pong
    completed by it is exposed ("tav.") unless ``claimed_pong_concealed``."""
    if hand.winning_tile is None:
        return []
    declared = declared_parts(hand)
    standing = counts_of(hand.concealed)
    win = hand.winning_tile.index
    flags = dict(win=win, self_drawn=self_drawn, only_possible=only_possible)
    readings = []
    if not hand.melds and is_thirteen_orphans(standing):
        readings.append(base_reading(hand, "thirteen_orphans", (), **flags))
    for raw in regular_decompositions(standing, 4 - len(hand.melds)):
        completed = {(kind, tile) for kind, tile in raw if tile <= win <= tile + (2 if kind == "chow" else 0)}
        for done in sorted(completed):
            parts = []
            for kind, tile in raw:
                exposed = (kind == "pung" and (kind, tile) == done and not self_drawn and not claimed_pong_concealed)
                parts.append(Part(kind, tile, concealed=not exposed))
            readings.append(base_reading(hand, "regular", declared + tuple(parts), **flags))
    return readings


def partial_readings(hand: Hand) -> list[Reading]:
    """The ways to read a non-winner's standing tiles: a choice of pongs and at most one pair (what
    scores), then as many chows as fit among the rest, the others single."""
    declared = declared_parts(hand)
    standing = counts_of(hand.concealed)
    room = 4 - len(hand.melds)
    candidates = [i for i in range(34) if standing[i] >= 3]
    readings = []
    for size in range(min(room, len(candidates)) + 1):
        for pungs in combinations(candidates, size):
            work = list(standing)
            for i in pungs:
                work[i] -= 3
            for pair in [None] + [i for i in range(34) if work[i] >= 2]:
                rest = list(work)
                if pair is not None:
                    rest[pair] -= 2
                chows = _most_chows(tuple(rest), room - size)
                for i in chows:
                    for j in (i, i + 1, i + 2):
                        rest[j] -= 1
                parts = (declared + tuple(Part("pung", i) for i in pungs) + tuple(Part("chow", i) for i in chows)
                         + ((Part("pair", pair),) if pair is not None else ())
                         + tuple(Part("single", i) for i in range(34) for _ in range(rest[i])))
                readings.append(base_reading(hand, "partial", parts))
    return readings


@lru_cache(maxsize=20_000)
def _most_chows(counts: Counts, room: int, start: int = 0) -> tuple[int, ...]:
    """The largest set of chows (their lowest tiles, from ``start`` on) that fits in ``counts``, at most
    ``room`` of them."""
    best: tuple[int, ...] = ()
    if room == 0:
        return best
    for i in range(start, 27):
        if i % 9 <= 6 and counts[i] and counts[i + 1] and counts[i + 2]:
            rest = list(counts)
            for j in (i, i + 1, i + 2):
                rest[j] -= 1
            found = (i,) + _most_chows(tuple(rest), room - 1, i)
            if len(found) > len(best):
                best = found
                if len(best) == room:
                    break
    return best
