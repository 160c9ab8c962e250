"""Scoring one hand under the jmja1967 rules: the winner's mahjong, or any other player's 13 tiles.

Basic points ("peruspisteet") times two for each doubling ("kertomiset"), rounded to tens
("pyöristys") and capped at 500 ("MAKSIMI"); a limit hand ("maksimikädet") is worth 500.

>>> from scorer.notation import parse_hand
>>> result = score_hand(parse_hand("234m 567p 345s 678s 9p +9p | seat=S"))
>>> [(i.name, i.points, i.doubles, i.count) for i in result.items]
[('Mahjong', 20, None, 1), ('Only possible tile', 2, None, 1), ('Mahjong from the hand, last tile claimed', 10, None, 1)]
>>> result.base, result.doubles, result.total
(32, 0, 30)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scorer.errors import HandError
from scorer.hand import Hand
from scorer.jmja1967 import catalog
from scorer.jmja1967.catalog import DOUBLINGS, LIMITS, MAXIMUM, POINTS, group_items, is_worthless, round_points
from scorer.jmja1967.options import Options, read_options
from scorer.jmja1967.reading import Reading, partial_readings, winner_readings
from scorer.jmja1967.settlement import score_settlement
from scorer.result import ErrorInfo, Score, ScoreItem
from scorer.shapes import counts_of, has_regular, is_thirteen_orphans
from scorer.tiles import PLAYING_TILES

NAME = "jmja1967"

NOT_MAHJONG = ("These tiles are not a mahjong: a mahjong is four groups of three (or four) tiles and one pair "
               "('neljästä kolmen (tai neljän) tiilen ryhmästä ja yhdestä parista'), or the thirteen orphans.")
FLOWERS_NOTE = ("The 1967 rules play without flowers and seasons (the book's tiles are the suits, winds and "
                "dragons): they are not counted.")
NON_WINNER_NOTE = ("Not a winning hand: scored by its groups and lucky groups, for the table to see. Only the "
                   "winner is paid ('vain voittajalle maksetaan').")


@dataclass(frozen=True, slots=True)
class Evaluation:
    reading: Reading
    items: tuple[ScoreItem, ...]
    base: int
    doubles: int
    total: int
    raw: int
    limits: tuple[str, ...] = ()


def is_mahjong(hand: Hand) -> bool:
    """Four sets and a pair (nine gates and the worthless hand are such shapes), or thirteen orphans.

    >>> from scorer.notation import parse_hand
    >>> is_mahjong(parse_hand("19m 19p 19s 1234567z +1z")), is_mahjong(parse_hand("1122m 3344p 5566s 7z +7z"))
    (True, False)
    """
    if hand.winning_tile is None:
        return False
    standing = counts_of(hand.concealed)
    if not hand.melds and is_thirteen_orphans(standing):
        return True
    return has_regular(standing, 4 - len(hand.melds))


def waits(hand: Hand) -> tuple[int, ...]:
    """The tile indices that complete a 13-tile hand into a mahjong (as scorer.waits does)."""
    counts = hand.tile_counts()
    found = []
    for tile in PLAYING_TILES:
        if counts[tile] >= 4:
            continue
        if is_mahjong(replace(hand, concealed=hand.concealed + (tile,), winning_tile=tile)):
            found.append(tile.index)
    return tuple(found)


def is_only_possible(hand: Hand) -> bool:
    """"ainoa mahdollisuus": before the mahjong tile came, the hand waited on that one tile only (one
    "mahdollisuus", as the book counts them: "mahjong-tiileksi on siten joko 1 tai 13 mahdollisuutta")."""
    before = list(hand.concealed)
    before.remove(hand.winning_tile)
    return waits(replace(hand, concealed=tuple(before), winning_tile=None)) == (hand.winning_tile.index,)


def score_hand(hand: Hand) -> Score:
    try:
        options = read_options(hand.context)
        if hand.is_winning:
            return _score_winner(hand, options)
        return _score_other(hand, options)
    except HandError as error:
        return Score(NAME, False, error=ErrorInfo.from_exception(error))


def _score_winner(hand: Hand, options: Options) -> Score:
    _check_context(hand, options)
    context = hand.context
    if options.sacred_discard:
        return Score.invalid(NAME, "sacred_discard",
                             "The mahjong cannot be called on a tile you discarded on your previous turn "
                             "('pyhä poispano').")
    if not is_mahjong(hand):
        return Score.invalid(NAME, "not_mahjong", NOT_MAHJONG)
    readings = winner_readings(hand, self_drawn=context.self_drawn, only_possible=is_only_possible(hand),
                               claimed_pong_concealed=options.claimed_pong_concealed)
    best = max((evaluate(r, options) for r in readings), key=lambda e: (e.total, e.raw, -len(e.items)))
    notes = []
    if best.limits:
        notes.append(f"A limit hand ('maksimikädet'): {MAXIMUM} points.")
        notes += [f"Also a limit hand: {name}." for name in best.limits[1:]]
    elif is_worthless(best.reading) and best.reading.self_drawn:
        notes.append("A worthless hand's basic points are 20 or 30 ('= peruspisteet joko 20 tai 30'): the tile "
                     "from the wall adds no 2 points.")
    if best.raw > MAXIMUM and not best.limits:
        notes.append(f"{best.raw} points, rounded and capped at the maximum of {MAXIMUM} ('pisteiden maksimi on 500').")
    if hand.flowers:
        notes.append(FLOWERS_NOTE)
    if context.first_turn and not best.limits:
        notes.append("first_turn: a heavenly blessing needs East's hand complete from the deal (self-drawn), an "
                     "earthly blessing a hand with no melds.")
    return Score(NAME, True, total=best.total, items=best.items, arrangement=arrangement_of(best.reading),
                 settlement=score_settlement(best.total, east=best.reading.east, self_drawn=context.self_drawn),
                 notes=tuple(notes), base=best.base, doubles=best.doubles)


def _score_other(hand: Hand, options: Options) -> Score:
    best = max((evaluate(r, options) for r in partial_readings(hand)),
               key=lambda e: (e.total, e.raw, len(e.reading.sets), -len(e.reading.parts)))
    notes = (NON_WINNER_NOTE,) + ((FLOWERS_NOTE,) if hand.flowers else ())
    return Score(NAME, True, total=best.total, items=best.items, arrangement=arrangement_of(best.reading),
                 notes=notes, base=best.base, doubles=best.doubles)


def evaluate(reading: Reading, options: Options) -> Evaluation:
    """The items, basic points, doublings and final points of one reading."""
    if reading.winning:
        limits = tuple(rule.name for rule in LIMITS if rule.count(reading))
        if limits:
            return Evaluation(reading, (ScoreItem(limits[0], MAXIMUM, 1),), MAXIMUM, 0, MAXIMUM, MAXIMUM, limits)
    items: list[ScoreItem] = []
    if reading.winning:
        items.append(_counted(POINTS[0], reading))
    items += group_items(reading)
    if reading.winning:
        items += [_counted(rule, reading) for rule in POINTS[1:]]
    items = [i for i in items if i is not None]
    base = sum(i.value for i in items)
    doubling_rules = DOUBLINGS if reading.winning else [r for r in DOUBLINGS if r.key in NON_WINNER_DOUBLINGS]
    doublings = [item for item in (_counted(rule, reading) for rule in doubling_rules) if item is not None]
    doubles = sum(i.doubles * i.count for i in doublings)
    raw = base * 2 ** doubles
    total = min(MAXIMUM, round_points(raw, options.rounding))
    return Evaluation(reading, tuple(items + doublings), base, doubles, total, raw)


NON_WINNER_DOUBLINGS = ("lucky_group", "double_wind_group")
"""A non-winner has no mahjong: of the doublings only the lucky groups ("onnelliset ryhmät"), which are
properties of single groups, apply to its hand."""


def _counted(rule: catalog.Rule, reading: Reading) -> ScoreItem | None:
    times = rule.count(reading)
    return rule.item(times) if times else None


def arrangement_of(reading: Reading) -> tuple[tuple[str, tuple], ...]:
    if reading.form == "thirteen_orphans":
        tiles = tuple(PLAYING_TILES[i] for i in range(34) for _ in range(reading.counts[i]))
        return (("thirteen_orphans", tiles),)
    return tuple((p.kind, p.tiles) for p in reading.parts)


def _check_context(hand: Hand, options: Options) -> None:
    c = hand.context
    code = hand.winning_tile.code
    if c.robbing_kong and c.self_drawn:
        raise HandError("impossible_context", "Robbing the kong wins on another player's tile, so it cannot be "
                                              "self-drawn.")
    if c.robbing_kong and hand.tile_counts()[hand.winning_tile] != 1:
        raise HandError("impossible_context", f"Robbing the kong: the other three {code} are in the robbed pong, "
                                              f"so your hand cannot hold another {code}.")
    if c.kong_replacement and not c.self_drawn:
        raise HandError("impossible_context", "The replacement tile is drawn from the dead wall: set self_drawn too.")
    if c.kong_replacement and not any(m.kind.value == "kong" for m in hand.melds):
        raise HandError("impossible_context", "A replacement tile from the dead wall needs a kong in the hand: it "
                                              "is drawn after declaring one.")
    if options.sacred_discard and c.self_drawn:
        raise HandError("impossible_context", "The holy discard ('pyhä poispano') is about a claimed tile, but this "
                                              "one was self-drawn.")
