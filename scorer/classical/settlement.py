"""Who pays whom after a classical deal (seed 001, II.3 and IV).

"A Keleti Szél ... ha a játékot megnyeri, mindenkitől duplán kap, ezzel szemben, ha elveszti duplán
fizet." Every other player pays the winner the winner's score; a payment to or from the favoured player
(East, or the banker with ``classical_banker``) is doubled. With ``classical_losers_settle`` (the
default) the losers then pay each other the differences of their scores, doubled likewise. A drawn deal
pays nothing. The payments are transfers, so they always sum to zero.

>>> from scorer.notation import parse_hand
>>> from scorer.table import Table, settle
>>> from scorer.tiles import Wind
>>> hands = {Wind.EAST: parse_hand("123m 456m 789m 2345p"),          # scores 0
...          Wind.SOUTH: parse_hand("123m 456m 789m 234p 5s +5s"),    # 20 + 2 = 22 (self-drawn)
...          Wind.WEST: parse_hand("555z 123p 456p 789p 1s"),         # concealed White pung 8, x2 = 16
...          Wind.NORTH: parse_hand("11p 123s 456s 789s 99m")}        # 0
>>> result = settle(Table.build(hands, winner=Wind.SOUTH), "classical")
>>> [(p.payer.value, p.payee.value, p.amount) for p in result.payments if p.amount]
[('E', 'S', 44), ('W', 'S', 22), ('N', 'S', 22), ('E', 'W', 32), ('N', 'W', 16)]
>>> result.net()
{'E': -76, 'S': 88, 'W': 26, 'N': -38}
"""

from __future__ import annotations

from itertools import combinations

from scorer.classical.options import Options, is_favoured, read_options
from scorer.errors import HandError
from scorer.result import Score
from scorer.table import Payment, Table, pay
from scorer.tiles import Wind


def table_options(table: Table) -> Options:
    """The club options of a table: those its hands carry, which must agree."""
    found = {read_options(hand) for _, hand in table.hands}
    if len(found) > 1:
        values = [o.values() for o in found]
        differing = sorted(k for k in values[0] if len({str(v[k]) for v in values}) > 1)
        raise HandError("bad_table", f"The players' hands disagree on the option {', '.join(differing)}: "
                                     "a table plays under one set of rules.")
    return found.pop()


def settle_table(table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
    for seat, result in scores.items():
        if result.valid:
            continue
        if seat == table.winner and result.error.code == "not_mahjong":
            raise HandError("not_mahjong", f"The winner's hand: {result.error.message} The book sets no penalty "
                                           "for a false mahjong, so this table cannot be settled.")
        raise HandError(result.error.code, f"{seat.value}'s hand: {result.error.message}")
    options = table_options(table)
    favoured = {seat for seat, hand in table.hands if is_favoured(hand, options)}
    notes: list[str] = []
    if options.banker and not favoured:
        notes.append("No player is marked as the banker ('dealer'): nobody pays or receives double.")
    if not options.banker and table.dealer is not Wind.EAST:
        notes.append(f"The table names {table.dealer.value} as dealer, but without classical_banker East keeps "
                     "the privileges: East receives and pays double.")

    def factor(a: Wind, b: Wind) -> int:
        return 2 if a in favoured or b in favoured else 1

    if table.winner is None:
        return [], notes + ["A drawn deal: nobody has won, nobody pays."]
    winner = table.winner
    losers = [seat for seat in table.seats if seat != winner]
    won = scores[winner].total
    payments = [pay(seat, winner, won * factor(seat, winner)) for seat in losers]
    if options.losers_settle:
        for a, b in combinations(losers, 2):
            # b pays a the difference (turned round by pay() when b scored more)
            payments.append(pay(b, a, (scores[a].total - scores[b].total) * factor(a, b)))
    else:
        notes.append("The losers do not settle among themselves (classical_losers_settle is off).")
    return payments, notes
