"""Scoring any player's hand under the danish rules: the winner's mahjong, a fishing hand, or a hand
that neither won nor fishes. The items themselves are in ``book.py``; this module reads the hand into
``Reading`` objects (one per arrangement), counts the items on each and keeps the best.

>>> from scorer.notation import parse_hand
>>> [t.code for t in fishing_tiles(parse_hand("123m 456m 789m 23p 55s"))]
['1p', '4p']
>>> result = score_hand(parse_hand("123m 456m 789m 23p 55s | seat=S"))  # fishing, concealed, no honours
>>> [(i.name, i.points or i.doubles) for i in result.items]
[('Skjult mahjong: hånden giver ingen point', 10), ('Ren hånd', 2), ('Skjult mahjong', 2)]
>>> result.base, result.doubles, result.total
(10, 4, 160)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Sequence

from scorer.errors import HandError
from scorer.hand import Context, Hand
from scorer.melds import Meld
from scorer.result import Score, ScoreItem
from scorer.tiles import PLAYING_TILES, Tile, Wind

from scorer.danish import book
from scorer.danish.book import Reading, Special, WinFacts
from scorer.danish.options import (CLAIMED_EAST_FIRST_DISCARD, EAST_FIRST_DISCARD, WRONG_COUNT, Options, choice,
                                   flag)
from scorer.danish.view import Part, Shape, arrangements, declared_parts

RULES = "danish"


# --------------------------------------------------------------------------------------------------
# Reading the context


@dataclass(frozen=True, slots=True)
class Facts:
    """What the context says, checked for contradictions."""

    east: bool
    seat: int
    prevalent: int
    self_drawn: bool
    drawn: bool  # the last tile came from the wall: self-drawn, or the loose tile after a kong
    last_tile: bool
    kong_replacement: bool
    robbing_kong: bool
    first_turn: bool
    east_first_discard: bool
    claimed_east_first: bool
    wrong_count: str

    @classmethod
    def of(cls, hand: Hand) -> "Facts":
        c = hand.context
        facts = cls(east=c.seat_wind is Wind.EAST, seat=c.seat_wind.tile.index, prevalent=c.prevalent_wind.tile.index,
                    self_drawn=c.self_drawn, drawn=c.self_drawn or c.kong_replacement, last_tile=c.last_tile,
                    kong_replacement=c.kong_replacement, robbing_kong=c.robbing_kong, first_turn=c.first_turn,
                    east_first_discard=flag(hand, EAST_FIRST_DISCARD),
                    claimed_east_first=flag(hand, CLAIMED_EAST_FIRST_DISCARD), wrong_count=choice(hand, WRONG_COUNT))
        if hand.is_winning:
            facts._check(hand)
        return facts

    def _check(self, hand: Hand) -> None:
        if self.robbing_kong and (self.self_drawn or self.kong_replacement):
            raise HandError("impossible_context", "Robbing a kong wins on another player's tile: it cannot also be "
                                                  "drawn from the wall or be the loose tile.")
        if self.kong_replacement and not any(m.kind.value == "kong" for m in hand.melds):
            raise HandError("impossible_context", "The loose tile ('en løs brik') is drawn after declaring a kong, "
                                                  "but this hand shows no kong.")
        if self.east_first_discard and (self.east or self.drawn):
            raise HandError("impossible_context", "Going mahjong on East's first discard ('Jordens ynde') means "
                                                  "another player claimed East's discard: not East, not self-drawn.")

    def win_facts(self, win: int) -> WinFacts:
        return WinFacts(east=self.east, first_turn=self.first_turn, east_first_discard=self.east_first_discard,
                        kong_replacement=self.kong_replacement, last_tile=self.last_tile, drawn=self.drawn, win=win)


# --------------------------------------------------------------------------------------------------
# Mahjong and fishing


def is_mahjong(hand: Hand) -> bool:
    """Whether a 14-tile hand is a mahjong: four sets and a pair, or a special hand's shape (with its
    open/concealed condition)."""
    if not hand.is_winning:
        return False
    try:
        options = Options.of(hand)
    except HandError:
        options = Options()
    return is_complete(Shape.of(hand, with_winning=True, options=options))


@lru_cache(maxsize=100_000)
def is_complete(shape: Shape) -> bool:
    if shape.size != 14:
        return False
    return bool(arrangements(shape)) or any(row.matches(shape) for row in book.SPECIAL_HANDS)


def fishing_tiles(hand: Hand) -> tuple[Tile, ...]:
    """The tiles a 13-tile hand is fishing for ('fiske': one tile from mahjong); empty when it is not fishing.

    A winning hand is asked about the 13 tiles it held before its winning tile."""
    from scorer.waits import waiting_tiles

    return waiting_tiles(before_winning(hand) if hand.is_winning else hand, RULES)


def is_fishing(hand: Hand) -> bool:
    return bool(fishing_tiles(hand))


def before_winning(hand: Hand) -> Hand:
    standing = list(hand.concealed)
    standing.remove(hand.winning_tile)
    return replace(hand, concealed=tuple(standing), winning_tile=None)


# --------------------------------------------------------------------------------------------------
# Counting the items on a reading


@dataclass(frozen=True, slots=True)
class Count:
    """The items one reading earns: points, doublings, and the hand's value before East's doubling."""

    reading: Reading | None
    items: tuple[ScoreItem, ...]
    base: int
    doubles: int
    value: int
    special: Special | book.Blessing | None = None
    order: int = 0

    @property
    def key(self) -> tuple[int, int, int, int]:
        """The best count is the highest value; on a tie a special hand, the later (narrower) row of the
        table before the earlier ('Spurvens reservat' before 'Himmelske tvillinger'), then more points."""
        return (self.value, int(self.special is not None), self.order, self.base)


def count_reading(r: Reading, cap: int) -> Count:
    items: list[ScoreItem] = []
    base = doubles = 0
    for item in book.POINT_ITEMS:
        n = item.count(r)
        if n:
            items.append(ScoreItem(item.name, points=item.value, count=n))
            base += item.value * n
    if base == 0 and book.CONCEALED_NO_POINTS.count(r):
        items.append(ScoreItem(book.CONCEALED_NO_POINTS.name, points=book.CONCEALED_NO_POINTS.value))
        base = book.CONCEALED_NO_POINTS.value
    for item in book.DOUBLING_ITEMS:
        n = item.count(r)
        if n:
            items.append(ScoreItem(item.name, doubles=item.value, count=n))
            doubles += item.value * n
    return Count(r, tuple(items), base, doubles, min(base * 2 ** doubles, cap))


def special_count(row: Special | book.Blessing, value: int, label: str = "") -> Count:
    order = (book.SPECIAL_HANDS + book.BLESSINGS).index(row) + 1 if row is not book.THREE_DRAGONS_HELD else 0
    return Count(None, (ScoreItem(row.name + label, points=value),), value, 0, value, special=row, order=order)


# --------------------------------------------------------------------------------------------------
# The winner's hand


def mahjong_counts(hand: Hand, facts: Facts, options: Options, cap: int) -> list[Count]:
    """Every way the winning hand can be counted: each arrangement with each place for the winning
    tile, each special hand of the table it forms, each blessing ("Særlige hænder")."""
    shape = Shape.of(hand, with_winning=True, options=options)
    win = hand.winning_tile.index
    only_place = fishing_tiles(hand) == (hand.winning_tile,)
    common = dict(mode="mahjong", seat=facts.seat, prevalent=facts.prevalent, drawn=facts.drawn,
                  last_tile=facts.last_tile, kong_replacement=facts.kong_replacement, robbing_kong=facts.robbing_kong,
                  only_place=only_place, claimed_east_first=facts.claimed_east_first, no_melds=not hand.melds,
                  clean_one_suit=options.clean_one_suit)
    counts: list[Count] = []
    for parts in arrangements(shape):
        for placed, win_part in _placements(parts, win, facts.drawn):
            reading = Reading(parts=placed, pattern=placed, pattern_counts=shape.counts, win_part=win_part, **common)
            counts.append(count_reading(reading, cap))
    concealed = not shape.exposed
    for row in book.SPECIAL_HANDS:
        if row.matches(shape) and (not row.drawn or facts.self_drawn):
            counts.append(special_count(row, row.value(concealed=concealed)))
    if book.THREE_DRAGONS_HELD.check(shape):  # "selv om man ikke fisker": a mahjong all the more
        counts.append(special_count(book.THREE_DRAGONS_HELD, book.THREE_DRAGONS_HELD.concealed))
    win_facts = facts.win_facts(win)
    for blessing in book.BLESSINGS:
        if blessing.check(win_facts):
            counts.append(special_count(blessing, blessing.value))
    return counts


def _placements(parts: tuple[Part, ...], win: int, drawn: bool) -> Iterable[tuple[tuple[Part, ...], Part]]:
    """Each standing part the winning tile may have completed. A pung completed by a claimed tile is
    open ('åben'): its last tile was not drawn from the wall."""
    seen = set()
    for i, part in enumerate(parts):
        if part.declared or not part.holds(win) or part in seen:
            continue
        seen.add(part)
        placed = part
        if part.kind == "pung" and not drawn:
            placed = part._replace(concealed=False)
        yield parts[:i] + (placed,) + parts[i + 1:], placed


# --------------------------------------------------------------------------------------------------
# Any other hand


def held_parts(hand: Hand) -> tuple[Part, ...]:
    """What a hand that has not gone mahjong scores: its melds, its concealed pungs (three alike among the
    standing tiles) and its pairs."""
    parts = list(declared_parts(tuple((m.kind.value, m.tile.index, m.concealed) for m in hand.melds)))
    for tile, n in sorted(Counter(hand.concealed).items()):
        if n >= 3:
            parts.append(Part("pung", tile.index))
        elif n == 2:
            parts.append(Part("pair", tile.index))
    return tuple(parts)


def held_counts(hand: Hand, facts: Facts, options: Options, cap: int, *,
                fishing: bool) -> tuple[list[Count], tuple[Tile, ...]]:
    """Every way to count a hand that has not gone mahjong; and the tiles it fishes for."""
    parts = held_parts(hand)
    common = dict(parts=parts, seat=facts.seat, prevalent=facts.prevalent, claimed_east_first=facts.claimed_east_first,
                  no_melds=not hand.melds, clean_one_suit=options.clean_one_suit)
    counts = [count_reading(Reading(mode="held", **common), cap)]
    held = Shape.of(hand, with_winning=True, options=options)
    if book.THREE_DRAGONS_HELD.check(held):
        counts.append(special_count(book.THREE_DRAGONS_HELD, book.THREE_DRAGONS_HELD.fishing))
    waits = fishing_tiles(hand) if fishing else ()
    for tile in waits:
        complete = Shape.of(hand, with_winning=False, extra=tile.index, options=options)
        for arrangement in arrangements(complete):
            chows = sum(p.kind == "chow" for p in arrangement)
            for part in sorted({p for p in arrangement if not p.declared and p.holds(tile.index)}):
                reading = Reading(mode="fishing", pattern=arrangement, pattern_counts=complete.counts,
                                  held_chows=chows - (part.kind == "chow"), **common)
                counts.append(count_reading(reading, cap))
        for row in book.SPECIAL_HANDS:
            if row.matches(complete):
                counts.append(special_count(row, row.fishing, " (fiske)"))
    return counts, waits


# --------------------------------------------------------------------------------------------------
# The result


def score_hand(hand: Hand) -> Score:
    """Score any player's hand: a mahjong (14 tiles and a winning tile) or any other hand (13 tiles)."""
    try:
        options = Options.of(hand)
        facts = Facts.of(hand)
    except HandError as error:
        return Score.invalid(RULES, error.code, error.message)
    notes = _notes(hand)
    if facts.wrong_count == "too_many":
        return Score.invalid(RULES, "too_many_tiles", "Too many tiles: the player scores no points and cannot go "
                             f"mahjong (\"{book.TOO_MANY_LINE}\").", total=0, notes=notes)
    east_doubles = facts.east and options.east_double
    cap = book.EAST_LIMIT if facts.east and not options.east_double else book.LIMIT
    if hand.is_winning and facts.wrong_count == "too_few":
        counts, _ = held_counts(hand, facts, options, cap, fishing=False)
        best = _finish(max(counts, key=lambda c: c.key), east_doubles)
        return Score.invalid(RULES, "too_few_tiles", "Too few tiles: the player cannot go mahjong; the hand's points "
                             f"count as usual (\"{book.TOO_FEW_LINE}\").", total=best.total, base=best.base,
                             doubles=best.doubles, items=best.items, notes=notes)
    if hand.is_winning:
        if not is_mahjong(hand):
            return Score.invalid(RULES, "not_mahjong", "These tiles are not a mahjong: four sets and a pair, or a "
                                 "special hand of the table. A false mahjong pays 500 to each player who revealed "
                                 "their hand.", notes=notes)
        counts = mahjong_counts(hand, facts, options, cap)
        best = max(counts, key=lambda c: c.key)
        finished = _finish(best, east_doubles)
        return Score(RULES, True, total=finished.total, items=finished.items, base=finished.base,
                     doubles=finished.doubles, arrangement=_arrangement(hand, best),
                     settlement=_winner_settlement(finished.total, facts.east, options.east_double),
                     notes=tuple(notes))
    counts, waits = held_counts(hand, facts, options, cap, fishing=facts.wrong_count != "too_few")
    best = max(counts, key=lambda c: c.key)
    finished = _finish(best, east_doubles)
    if facts.wrong_count == "too_few":
        notes.append("Too few tiles: no mahjong and no points for fishing; the rest counts as usual.")
    elif waits:
        notes.append("Fishing ('fisker') on " + ", ".join(t.code for t in waits) + ".")
    else:
        notes.append("Not fishing: no single tile makes this hand a mahjong.")
    return Score(RULES, True, total=finished.total, items=finished.items, base=finished.base,
                 doubles=finished.doubles, arrangement=_arrangement(hand, best), notes=tuple(notes))


@dataclass(frozen=True, slots=True)
class _Finished:
    items: tuple[ScoreItem, ...]
    base: int
    doubles: int
    total: int


def _finish(best: Count, east_doubles: bool) -> _Finished:
    """East pays and receives double: one more doubling on East's hand, which makes East's limit 2000.
    'Himlens ynde' is East's own hand, and its 2000 is already East's figure."""
    if not east_doubles:
        return _Finished(best.items, best.base, best.doubles, best.value)
    if best.special is not None and best.special.name == "Himlens ynde":
        return _Finished(best.items, best.base, best.doubles, best.value)
    items = best.items + (ScoreItem(book.EAST_DOUBLE.name, doubles=1),)
    return _Finished(items, best.base, best.doubles + 1, 2 * best.value)


def _winner_settlement(total: int, east: bool, east_double: bool) -> tuple[tuple[str, int | None], ...]:
    """What the winner collects: the hand's value from each other player, double from or to East."""
    if east or not east_double:
        return (("others", -total),)
    return (("east", -2 * total), ("others", -total))


def _arrangement(hand: Hand, best: Count) -> tuple[tuple[str, tuple[Tile, ...]], ...]:
    if best.reading is None:
        return _plain(hand)
    parts = best.reading.parts
    out = [(p.kind, tuple(PLAYING_TILES[i] for i in p.indices)) for p in parts]
    used = Counter(i for p in parts if not p.declared for i in p.indices)
    rest = Counter(t.index for t in hand.concealed) - used
    if rest:
        out.append(("rest", tuple(PLAYING_TILES[i] for i in sorted(rest.elements()))))
    return tuple(out)


def _plain(hand: Hand) -> tuple[tuple[str, tuple[Tile, ...]], ...]:
    out = [(m.kind.value, m.tiles) for m in hand.melds]
    out.append(("concealed", hand.concealed))
    return tuple(out)


def _notes(hand: Hand) -> list[str]:
    if hand.flowers:
        return ["The book has no flowers or seasons: they score nothing."]
    return []


# --------------------------------------------------------------------------------------------------
# Hands with the wrong number of tiles (which a Hand cannot hold)


@dataclass(frozen=True, slots=True)
class ShortHand:
    """A hand with too few tiles: the attributes of a Hand without its tile-count check."""

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    winning_tile: Tile | None
    context: Context
    flowers: tuple[Tile, ...] = ()

    @property
    def is_winning(self) -> bool:
        return self.winning_tile is not None


def score_tiles(concealed: Sequence[Tile | str], melds: Sequence[Meld] = (), *, winning_tile: Tile | str | None = None,
                context: Context | None = None) -> Score:
    """Score tiles whatever their number, for the penalty rules: a hand with too many tiles scores
    nothing and cannot go mahjong; one with too few cannot go mahjong or score for fishing, and
    otherwise counts as usual. A hand of the right size is scored as ``score_hand`` scores it.
    ``concealed`` lists tile codes or groups in the notation ("123m"), the winning tile among them.

    >>> score_tiles(["123m", "456m", "789m", "11123p"]).error.code  # 14 tiles and no winning tile
    'too_many_tiles'
    >>> short = score_tiles(["555z", "123m", "456p", "99s", "1s"])  # 12 tiles, seat East by default
    >>> short.valid, short.base, short.doubles, short.total, short.notes[-1].startswith("Too few")
    (True, 8, 2, 32, True)
    """
    try:
        tiles = tuple(_expand(concealed))
        win = Tile.parse(winning_tile) if isinstance(winning_tile, str) else winning_tile
        context = context if context is not None else Context()
        size = len(tiles) + 3 * len(melds)
        wanted = 14 if win is not None else 13
        if size > wanted:
            return Score.invalid(RULES, "too_many_tiles", f"Too many tiles ({size}, not {wanted}): the player scores "
                                 f"no points and cannot go mahjong (\"{book.TOO_MANY_LINE}\").", total=0)
        if size == wanted:
            return score_hand(Hand(concealed=tiles, melds=tuple(melds), winning_tile=win, context=context))
        if win is not None and win not in tiles:
            raise HandError("winning_tile_not_in_hand", f"The winning tile {win.code} is not among the standing tiles.")
        counts = Counter(tiles)
        for meld in melds:
            counts.update(meld.tiles)
        for tile, n in counts.items():
            if n > 4:
                raise HandError("too_many_copies", f"The hand has {n} copies of {tile.code}; a set has only 4.")
    except HandError as error:
        return Score.invalid(RULES, error.code, error.message)
    extra = dict(context.extra)
    extra[WRONG_COUNT] = "too_few"
    short = ShortHand(tuple(sorted(tiles)), tuple(melds), win, replace(context, extra=tuple(extra.items())))
    return score_hand(short)  # type: ignore[arg-type]


def _expand(tiles: Sequence[Tile | str]) -> list[Tile]:
    from scorer.notation import group_tiles

    out: list[Tile] = []
    for t in tiles:
        if isinstance(t, Tile):
            out.append(t)
        else:
            out.extend(group_tiles(str(t).replace(" ", "")))
    return out
