"""A finished deal at the table, and who pays whom.

The point-and-doubling rule sets score every player's hand, not only the winner's, and settle the
table from all of them; MCR pays the winner only. A ``Table`` holds each seat's hand and how the deal
ended; ``settle`` scores every hand under a rule set and asks the rule set for the payments.

>>> from scorer.notation import parse_hand
>>> table = Table.build({Wind.EAST: parse_hand("123m 456m 789m 234p 5s +5s"),
...                      Wind.SOUTH: parse_hand("19m 19p 19s 1234567z"),
...                      Wind.WEST: parse_hand("123456789m 1234p"),
...                      Wind.NORTH: parse_hand("111222333p 4567s")},
...                     winner=Wind.EAST, discarder=Wind.NORTH)
>>> result = settle(table, "mcr")
>>> result.net()
{'E': 45, 'S': -8, 'W': -8, 'N': -29}
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from scorer.codec import hand_from_dict
from scorer.errors import HandError
from scorer.hand import Hand
from scorer.result import Score
from scorer.rules import get_rule_set
from scorer.tiles import Wind


@dataclass(frozen=True, slots=True)
class Table:
    """Every player's hand by seat (3 or 4 players) and how the deal ended.

    ``winner`` is None for a drawn deal. ``discarder`` is whoever discarded the winning tile, None when
    the winner drew it. ``dealer`` is East, or the banker where a club plays with one. Each hand's
    context carries its own seat wind, the prevalent wind, ``self_drawn`` and ``dealer``, filled in here.
    """

    hands: tuple[tuple[Wind, Hand], ...]
    winner: Wind | None
    discarder: Wind | None = None
    dealer: Wind = Wind.EAST
    prevalent_wind: Wind = Wind.EAST

    def __post_init__(self):
        seats = [seat for seat, _ in self.hands]
        if len(seats) not in (3, 4):
            raise HandError("bad_table", f"A table has 3 or 4 players, not {len(seats)}.")
        if len(set(seats)) != len(seats):
            raise HandError("bad_table", "Two players sit in the same seat.")
        if self.dealer not in seats:
            raise HandError("bad_table", f"The dealer ({self.dealer.value}) is not at the table.")
        if self.winner is None:
            if self.discarder is not None:
                raise HandError("bad_table", "A drawn deal has no discarder.")
        elif self.winner not in seats:
            raise HandError("bad_table", f"The winner ({self.winner.value}) is not at the table.")
        if self.discarder is not None and (self.discarder not in seats or self.discarder == self.winner):
            raise HandError("bad_table", "The discarder must be another player at the table.")
        for seat, hand in self.hands:
            if seat == self.winner and not hand.is_winning:
                raise HandError("bad_table", f"The winner ({seat.value}) must show 14 tiles with a winning tile.")
            if seat != self.winner and hand.is_winning:
                raise HandError("bad_table", f"Only the winner has a winning tile; {seat.value} has one too.")

    @classmethod
    def build(cls, hands: Mapping[Wind, Hand], *, winner: Wind | None, discarder: Wind | None = None,
              dealer: Wind = Wind.EAST, prevalent_wind: Wind = Wind.EAST) -> "Table":
        """A table whose hands get their seat, the prevalent wind, self-drawn and dealer from the table."""
        placed = []
        for seat, hand in hands.items():
            context = replace(hand.context, seat_wind=seat, prevalent_wind=prevalent_wind, dealer=seat == dealer,
                              self_drawn=seat == winner and discarder is None)
            placed.append((seat, replace(hand, context=context)))
        order = list(Wind)
        placed.sort(key=lambda item: order.index(item[0]))
        return cls(tuple(placed), winner, discarder, dealer, prevalent_wind)

    @property
    def seats(self) -> tuple[Wind, ...]:
        return tuple(seat for seat, _ in self.hands)

    def hand(self, seat: Wind) -> Hand:
        return dict(self.hands)[seat]


@dataclass(frozen=True, slots=True)
class Payment:
    payer: Wind
    payee: Wind
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.payer.value, "to": self.payee.value, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Settlement:
    rules: str
    seats: tuple[Wind, ...]
    scores: tuple[tuple[Wind, Score], ...]  # every hand, or only the winner's where the rules score no other
    payments: tuple[Payment, ...]
    notes: tuple[str, ...] = ()

    def net(self) -> dict[str, int]:
        """Each seat's gain (positive) or loss; the amounts sum to zero."""
        net = {seat.value: 0 for seat in self.seats}
        for p in self.payments:
            net[p.payer.value] -= p.amount
            net[p.payee.value] += p.amount
        return net

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.rules,
                "scores": {seat.value: score.to_dict() for seat, score in self.scores},
                "payments": [p.to_dict() for p in self.payments if p.amount],
                "net": self.net(),
                "notes": list(self.notes)}


def settle(table: Table, rules: str) -> Settlement:
    """Score every hand at the table under ``rules`` and settle the payments (they always sum to zero)."""
    rule_set = get_rule_set(rules)
    scored = getattr(rule_set, "scores_every_hand", True)
    scores = tuple((seat, rule_set.score(hand)) for seat, hand in table.hands if scored or seat == table.winner)
    payments, notes = rule_set.settle(table, dict(scores))
    for p in payments:
        if p.payer == p.payee or p.amount < 0:
            raise AssertionError(f"{rules}: a payment must go from one player to another: {p}")
    return Settlement(rule_set.name, table.seats, scores, tuple(payments), tuple(notes))


def pay(payer: Wind, payee: Wind, amount: int) -> Payment:
    """A transfer, turned round when the amount is negative so that amounts are never negative."""
    return Payment(payer, payee, amount) if amount >= 0 else Payment(payee, payer, -amount)


def table_from_dict(data: Any) -> Table:
    """The ``mjscan settle`` input: {"players": [{"seat": "E", "hand": {...}}, ...], "winner": "S",
    "discarder": "W" or null, "dealer": "E", "prevalent_wind": "E"}."""
    if not isinstance(data, Mapping):
        raise HandError("bad_table", "A table must be a JSON object with 'players' and 'winner'.")
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise HandError("bad_table", "'players' must list each player's seat and hand.")
    hands: dict[Wind, Hand] = {}
    for number, player in enumerate(players, 1):
        if not isinstance(player, Mapping) or "seat" not in player or "hand" not in player:
            raise HandError("bad_table", f"Player {number} needs a 'seat' (E, S, W, N) and a 'hand'.")
        seat = Wind.parse(player["seat"])
        if seat in hands:
            raise HandError("bad_table", f"Two players sit in seat {seat.value}.")
        try:
            hands[seat] = hand_from_dict(player["hand"])
        except HandError as error:
            raise HandError(error.code, f"Player {seat.value}: {error.message}") from None
    winner = Wind.parse(data["winner"]) if data.get("winner") is not None else None
    discarder = Wind.parse(data["discarder"]) if data.get("discarder") is not None else None
    dealer = Wind.parse(data.get("dealer", "E"))
    prevalent = Wind.parse(data.get("prevalent_wind", "E"))
    return Table.build(hands, winner=winner, discarder=discarder, dealer=dealer, prevalent_wind=prevalent)
