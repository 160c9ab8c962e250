"""Mahjong Competition Rules (Chinese Official), as seed 000 (Hungarian club rule book, 2007) and
seed 003 (Swedish overview with the official English fan names) define them.

>>> from scorer import parse_hand
>>> result = RULE_SET.score(parse_hand("123m 456m 789m 234p 5s +5s | self_drawn"))
>>> [(i.name, i.points, i.count) for i in result.items]
[('Pure Straight', 16, 1), ('Fully Concealed Hand', 4, 1), ('All Chows', 2, 1), ('Single Wait', 1, 1)]
>>> result.total, dict(result.settlement)["winner"]
(23, 93)
"""

from __future__ import annotations

from scorer.errors import HandError
from scorer.hand import Hand
from scorer.mcr.catalog import FANS
from scorer.mcr.engine import FLOWERS, MINIMUM, arrangement_of, read_hand
from scorer.mcr import shapes
from scorer.mcr.settlement import BASE, FALSE_MAHJONG_PENALTY, false_mahjong, settle
from scorer.result import ErrorInfo, Score, ScoreItem
from scorer.rules import ContextKey
from scorer.shapes import counts_of
from scorer.table import Payment, Table, pay
from scorer.tiles import Wind


class McrRules:
    name = "mcr"
    scores_every_hand = False  # only the winner's hand is scored and paid
    title = "Mahjong Competition Rules (Chinese Official)"
    context_keys = (
        ContextKey("self_drawn", "flag", "The winning tile was drawn from the wall (not claimed)."),
        ContextKey("seat_wind", "wind", "The winner's seat wind.", "E", ("E", "S", "W", "N")),
        ContextKey("prevalent_wind", "wind", "The round's (prevalent) wind.", "E", ("E", "S", "W", "N")),
        ContextKey("last_of_kind", "flag", "The winning tile was the last of its kind (Last Tile)."),
        ContextKey("last_tile", "flag", "Won on the wall's last tile or the game's last discard."),
        ContextKey("kong_replacement", "flag", "Won on a kong's replacement tile (self-drawn)."),
        ContextKey("robbing_kong", "flag", "Won on a tile another player added to a pung (Robbing the Kong)."),
    )

    def score(self, hand: Hand) -> Score:
        if hand.winning_tile is None:
            return Score.invalid(self.name, "no_winning_tile",
                                 "MCR scores a winning hand: say which tile completed it (the winning tile).")
        try:
            reading, notes = read_hand(hand)
        except HandError as error:
            return Score(self.name, False, error=ErrorInfo.from_exception(error))
        self_drawn = hand.context.self_drawn
        if reading is None:
            return Score.invalid(self.name, "not_mahjong",
                                 "These tiles do not form a winning hand: four sets and a pair, or one of the "
                                 "special hands (Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles).",
                                 settlement=false_mahjong(self_drawn=self_drawn), notes=notes)
        items = list(reading.items)
        flowers = int(FANS[FLOWERS].count(reading.analysis))
        arrangement = arrangement_of(reading.analysis)
        if reading.points < MINIMUM:
            return Score.invalid(
                self.name, "below_minimum",
                f"The hand is worth {reading.points} points; a mahjong needs at least {MINIMUM} "
                "(flowers do not count towards them). A false mahjong pays 10 to each player.",
                total=reading.points, items=tuple(items), arrangement=arrangement,
                settlement=false_mahjong(self_drawn=self_drawn), notes=notes)
        if flowers:
            items.append(ScoreItem(FLOWERS, 1, flowers))
        total = reading.points + flowers
        return Score(self.name, True, total=total, items=tuple(items), arrangement=arrangement,
                     settlement=settle(total, self_drawn=self_drawn), notes=notes)

    def is_mahjong(self, hand: Hand) -> bool:
        if not hand.is_winning:
            return False
        return shapes.is_complete(counts_of(hand.concealed), len(hand.melds))

    def settle(self, table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
        """Only the winner is paid (seed 000 IV): 8 from each, plus the hand from the discarder or, on a
        self-draw, from each. A false mahjong pays 10 to each."""
        if table.winner is None:
            return [], ["A drawn deal: nobody pays."]
        winner, result = table.winner, scores[table.winner]
        others = [seat for seat in table.seats if seat != winner]
        if not result.valid:
            if result.error.code not in ("below_minimum", "not_mahjong"):
                raise HandError(result.error.code, f"The winner's hand: {result.error.message}")
            return ([pay(winner, seat, FALSE_MAHJONG_PENALTY) for seat in others],
                    [f"False mahjong: {result.error.message}"])
        payments = []
        for seat in others:
            owed = BASE + (result.total if table.discarder in (None, seat) else 0)
            payments.append(pay(seat, winner, owed))
        return payments, []


RULE_SET = McrRules()
