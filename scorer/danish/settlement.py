"""Who pays whom after a deal under the danish rules.

The book says little about payments; what it gives, and the reading taken (see the package docstring):

- "1000 er det maksimale pointantal for alle normale hænder (2000 for øst)": East pays and receives
  double (option ``danish_east_double``, default on). East's score already carries that doubling, so a
  seat's *value* is its total, halved for East, and every payment to or from East is doubled.
- The winner is paid its value by every other player. The others, whose hands are scored too (the
  fishing column exists only for them), pay each other the difference of their values (option
  ``danish_losers_settle``, default on). The winner pays nobody.
- A drawn deal: the players settle the differences of their hands as the losers do (option
  ``danish_draw_settles``, default on; off: nobody pays).
- A false mahjong: "... betale 500 point til hver af de spillere, der vælger at afsløre deres hånd.
  Herefter tages alle brikker tilbage på hånden og spillet fortsætter som sædvanligt." The caller pays
  500 to each player whose hand says ``danish_revealed``, and nothing else is paid: the deal goes on.
- A player with too many tiles scores nothing ("får *ingen* point"): value 0; they still pay.

>>> from scorer.notation import parse_hand
>>> from scorer.table import Table, settle
>>> hands = {Wind.EAST: parse_hand("[2'22m] 147m 258p 369s 1z"), Wind.SOUTH: parse_hand("123m 456m 789m 234p 5s +5s"),
...          Wind.WEST: parse_hand("555z 19m 19p 19s 1367z"), Wind.NORTH: parse_hand("[5'55z] 147m 258p 369s 1s")}
>>> result = settle(Table.build(hands, winner=Wind.SOUTH, discarder=Wind.WEST), "danish")
>>> [(seat.value, s.total) for seat, s in result.scores]  # East's 2 points doubled: 4
[('E', 4), ('S', 96), ('W', 16), ('N', 8)]
>>> [(p.payer.value, p.payee.value, p.amount) for p in result.payments]
[('E', 'S', 192), ('W', 'S', 96), ('N', 'S', 96), ('E', 'W', 28), ('E', 'N', 12), ('N', 'W', 8)]
>>> result.net()
{'E': -232, 'S': 384, 'W': -60, 'N': -92}
"""

from __future__ import annotations

from itertools import combinations

from scorer.errors import HandError
from scorer.result import Score
from scorer.table import Payment, Table, pay
from scorer.tiles import Wind

from scorer.danish import book
from scorer.danish.options import DRAW_SETTLES, EAST_DOUBLE, LOSERS_SETTLE, REVEALED, flag

FALSE_MAHJONG_CODES = ("not_mahjong", "too_many_tiles", "too_few_tiles")


def table_option(table: Table, key: str) -> bool:
    """A table-wide option: every hand must agree (a hand that does not set it takes the default)."""
    values = {seat: flag(hand, key) for seat, hand in table.hands}
    if len(set(values.values())) > 1:
        shown = ", ".join(f"{seat.value}={str(v).lower()}" for seat, v in values.items())
        raise HandError("bad_table", f"The players' hands disagree on the option '{key}' ({shown}): "
                                     "set it the same way on every hand.")
    return next(iter(values.values()))


def settle(table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
    east_double = table_option(table, EAST_DOUBLE)
    losers_settle = table_option(table, LOSERS_SETTLE)
    draw_settles = table_option(table, DRAW_SETTLES)

    def factor(a: Wind, b: Wind) -> int:
        return 2 if east_double and Wind.EAST in (a, b) else 1

    def value(seat: Wind) -> int:
        result = scores[seat]
        if not result.valid:
            if result.error is not None and result.error.code == "too_many_tiles":
                return 0  # "får *ingen* point"
            raise HandError(result.error.code if result.error else "invalid_hand",
                            f"Player {seat.value}: {result.error.message if result.error else 'invalid hand.'}")
        return result.total // 2 if east_double and seat is Wind.EAST else result.total

    notes: list[str] = []
    if table.winner is not None and not scores[table.winner].valid:
        return _false_mahjong(table, scores, notes)
    values = {seat: value(seat) for seat in table.seats}
    payments: list[Payment] = []
    if table.winner is None:
        if not draw_settles:
            return [], ["A drawn deal: nobody pays (danish_draw_settles is off)."]
        notes.append("A drawn deal: the players settle the differences of their hands.")
        losers = list(table.seats)
    else:
        winner = table.winner
        for seat in table.seats:
            if seat != winner:
                payments.append(pay(seat, winner, factor(seat, winner) * values[winner]))
        losers = [seat for seat in table.seats if seat != winner]
        if not losers_settle:
            return payments, ["Only the winner is paid (danish_losers_settle is off)."]
    for a, b in combinations(losers, 2):
        payments.append(pay(b, a, factor(a, b) * (values[a] - values[b])))
    if east_double and Wind.EAST in table.seats:
        notes.append("East pays and receives double.")
    return payments, notes


def _false_mahjong(table: Table, scores: dict[Wind, Score], notes: list[str]) -> tuple[list[Payment], list[str]]:
    winner = table.winner
    error = scores[winner].error
    if error is None or error.code not in FALSE_MAHJONG_CODES:
        raise HandError(error.code if error else "invalid_hand",
                        f"The winner's hand ({winner.value}): {error.message if error else 'invalid.'}")
    revealed = [seat for seat, hand in table.hands if seat != winner and flag(hand, REVEALED)]
    notes.append(f"False mahjong by {winner.value}: {error.message}")
    if revealed:
        notes.append(f"{winner.value} pays {book.FALSE_MAHJONG_PENALTY} to each player who revealed their hand "
                     f"({', '.join(seat.value for seat in revealed)}); the tiles go back and play continues.")
    else:
        notes.append("Nobody revealed their hand: no penalty; the tiles go back and play continues.")
    return [pay(winner, seat, book.FALSE_MAHJONG_PENALTY) for seat in revealed], notes
