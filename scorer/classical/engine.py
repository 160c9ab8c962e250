"""Scoring a classical hand: every reading of its tiles, every rule of the catalog on each, the best total.

``base`` is the sum of the points items, ``doubles`` the sum of the doubling items, and
``total = base * 2 ** doubles``; an extra hand's 1000-4000 points are then added (``classical_extras``
"added", the default) or are the hand's whole value ("limit"). The book sets no limit and no rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.classical.catalog import DOUBLES, EXTRAS, POINTS, Facts
from scorer.classical.forms import Shape, is_vilagcsoda_13, standing_shape, winning_shapes
from scorer.classical.options import Options, is_favoured, read_options
from scorer.errors import HandError
from scorer.hand import Hand
from scorer.result import Score, ScoreItem
from scorer.tiles import PLAYING_TILES

NAME = "classical"


@dataclass(frozen=True, slots=True)
class Evaluation:
    shape: Shape
    items: tuple[ScoreItem, ...]
    base: int
    doubles: int
    total: int
    extra: ScoreItem | None


def evaluate(facts: Facts) -> Evaluation:
    points = tuple(ScoreItem(r.name, r.value, int(n)) for r in POINTS if r.value and (n := r.count(facts)))
    doubles = tuple(ScoreItem(r.name, None, int(n), doubles=r.value) for r in DOUBLES if (n := r.count(facts)))
    extras = [r for r in EXTRAS if facts.winner and r.count(facts)]
    extra = None
    if extras:
        best = max(extras, key=lambda r: r.value)  # a hand is one game: only its highest extra counts
        extra = ScoreItem(best.name, best.value, 1)
    if extra is not None and facts.options.extras == "limit":
        return Evaluation(facts.shape, (extra,), extra.points, 0, extra.points, extra)
    base = sum(i.value for i in points)
    count = sum(i.doubles * i.count for i in doubles)
    total = base * 2 ** count + (extra.points if extra else 0)
    return Evaluation(facts.shape, points + doubles + ((extra,) if extra else ()), base, count, total, extra)


def score_hand(hand: Hand) -> Score:
    try:
        options = read_options(hand)
        _check_context(hand)
    except HandError as error:
        return Score.invalid(NAME, error.code, error.message)
    winner = hand.is_winning
    context = hand.context
    robbed = winner and (not context.self_drawn or context.robbing_kong)
    seat = context.seat_wind.number
    if winner:
        shapes = winning_shapes(hand, robbed=robbed)
        if not shapes:
            return Score.invalid(NAME, "not_mahjong",
                                 "These 14 tiles are no mahjong: they need four figures (chow, pung, kong) and a "
                                 "pair, or one of the exceptional hands (seven pairs, Nagysor, KilencLámpás, "
                                 "Világcsoda).")
    else:
        shapes = [standing_shape(hand, 26 + seat)]
    favoured = is_favoured(hand, options)
    flower_seats = tuple(t.seat for t in hand.flowers)
    tiles = tuple(t.index for t in hand.all_tiles())
    best: Evaluation | None = None
    for shape in shapes:
        facts = Facts(shape, tiles, flower_seats, seat, winner, robbed, favoured, context.first_turn, options)
        evaluation = evaluate(facts)
        if best is None or evaluation.total > best.total:
            best = evaluation
    notes = _notes(hand, best, options)
    return Score(NAME, True, total=best.total, items=best.items, arrangement=_arrangement(best.shape),
                 settlement=_settlement(best.total, winner, favoured), notes=tuple(notes),
                 base=best.base, doubles=best.doubles)


def _check_context(hand: Hand) -> None:
    context = hand.context
    if not hand.is_winning:
        return
    if context.robbing_kong and context.self_drawn:
        raise HandError("impossible_context", "A tile robbed from a kong was not drawn from the wall: "
                                              "robbing_kong and self_drawn cannot both be set.")


def _arrangement(shape: Shape) -> tuple[tuple[str, tuple], ...]:
    return tuple((p.kind, tuple(PLAYING_TILES[i] for i in p.tiles)) for p in shape.parts)


def _settlement(total: int, winner: bool, favoured: bool) -> tuple[tuple[str, int | None], ...]:
    """What a winner receives at a table of four (section II.3: the favoured player receives and pays
    double), before the losers settle among themselves."""
    if not winner:
        return ()
    if favoured:
        return (("winner", 6 * total), ("others", -2 * total))
    return (("winner", 4 * total), ("favoured", -2 * total), ("others", -total))


def _notes(hand: Hand, best: Evaluation, options: Options) -> list[str]:
    notes = []
    if best.extra is not None and options.extras == "limit":
        notes.append(f"{best.extra.name}: an extra hand, worth its {best.extra.points} points "
                     "(classical_extras=limit).")
    elif best.extra is not None:
        notes.append(f"Total = {best.base} x 2^{best.doubles} + {best.extra.points} ({best.extra.name}).")
    else:
        notes.append(f"Total = {best.base} x 2^{best.doubles}.")
    if not hand.is_winning and is_vilagcsoda_13(hand):
        notes.append("These 13 tiles are a Világcsoda: a player who called mahjong with them shows the 14th "
                     "tile (the one thrown away) as the winning tile.")
    return notes
