"""Who pays whom ("maksaminen"): the book's payment tables for four and for three players.

"vain voittajalle maksetaan" — only the winner is paid. "jos mahjong tehtiin jonkun poispanemasta
tiilestä, maksaa vain poispanija, myös muiden puolesta - itä maksaa kaksinkertaisena, idälle
maksetaan kaksinkertaisena" — on a claimed tile only the discarder pays, for the others too; East pays
and is paid double. "numerot ilmoittavat monikokertaisena pisteet maksetaan": each number says how many
times the points are paid.

>>> FOUR_PLAYERS[("east", "claimed")], FOUR_PLAYERS[("other", "self_drawn")]
({'discarder': 6}, {'each': 1, 'east': 2})
>>> THREE_PLAYERS[("other", "claimed")], THREE_PLAYERS[("other", "self_drawn")]
({'discarder': 3}, {'east': 2, 'each': 1})
>>> score_settlement(100, east=False, self_drawn=True)
(('winner', 400), ('discarder', None), ('others', -100), ('east', -200))
"""

from __future__ import annotations

from scorer.errors import HandError
from scorer.jmja1967.catalog import MAXIMUM
from scorer.jmja1967.options import THREE_PLAYER_CHOICES, read_options
from scorer.result import Score
from scorer.table import Payment, Table, pay
from scorer.tiles import Wind

# Four players: "poispanija | itse kukin | itä"
#   itä huutaa mahjongin 6--           East claims: the discarder pays 6 times
#   itä saa muurista mahjongin -2-     East draws: each pays 2 times
#   joku muu huutaa mahjongin 4--      another claims: the discarder pays 4 times
#   joku muu saa muurista mahjongin -12  another draws: each pays 1 time, East 2 times
FOUR_PLAYERS = {
    ("east", "claimed"): {"discarder": 6},
    ("east", "self_drawn"): {"each": 2},
    ("other", "claimed"): {"discarder": 4},
    ("other", "self_drawn"): {"each": 1, "east": 2},
}
# Three players: "poispanija | itä | itse kukin" (note the columns' order)
#   itä huutaa mahjongin 4--           East claims: the discarder pays 4 times
#   itä saa mahjongin muurista --2     East draws: each pays 2 times
#   joku muu huutaa mahjongin 3--      another claims: the discarder pays 3 times
#   joku muu saa mahjongin muurista -2-  another draws: East pays 2 times; the other player 1 (see below)
THREE_PLAYERS = {
    ("east", "claimed"): {"discarder": 4},
    ("east", "self_drawn"): {"each": 2},
    ("other", "claimed"): {"discarder": 3},
    ("other", "self_drawn"): {"east": 2, "each": 1},
}
# The last row's "itse kukin" cell reads "-". Read literally the third player pays nothing; but the book's
# own rule says the discarder pays "myös muiden puolesta" (for the others too), and that discarder pays 3 =
# East's 2 + the other's 1, as every row of the four-player table balances (6 = 2+2+2, 4 = 1+1+2).
# Default: the other pays 1; the option jmja1967_three_player_self_draw=east_2_only follows the cell.
THREE_PLAYERS_LITERAL_ROW = {"east": 2}

FALSE_CALL_FINE = 100   # "väärä huuto: pelaaja maksaa 100 p sakkoa pöytään"
WRONG_DRAW_FINE = 50    # "tiili on otettu väärästä paikasta: 50 p sakkoa"
# "sakot saa jaon loppuessa voittaja"; "Tasapelitilanteessa rikkojat saavat maksamansa sakot takaisin."

PAYMENT_MAXIMUM = {"other": 2000, "east": 3000}
"""MAKSIMI: "pisteiden maksimi on 500 (kaikki pisteet) ja siten maksettaessa 2000, idälle 3000" (four
players; it follows from 500 times the table, and so 1500 and 2000 with three)."""


def payment_row(players: int, east: bool, self_drawn: bool, three_player_self_draw: str = THREE_PLAYER_CHOICES[0]
                ) -> dict[str, int]:
    """The row of the table: who pays how many times the points ("discarder", "each", "east")."""
    key = ("east" if east else "other", "self_drawn" if self_drawn else "claimed")
    if players == 3:
        if key == ("other", "self_drawn") and three_player_self_draw == "east_2_only":
            return dict(THREE_PLAYERS_LITERAL_ROW)
        return dict(THREE_PLAYERS[key])
    return dict(FOUR_PLAYERS[key])


def payment_maximum(players: int, east: bool) -> int:
    """The most a winner can receive: 500 times the row's multipliers (2000, East 3000 with four)."""
    row = payment_row(players, east, False)
    return MAXIMUM * row["discarder"]


def score_settlement(total: int, *, east: bool, self_drawn: bool) -> tuple[tuple[str, int | None], ...]:
    """A single winner's result at a four-player table, for the result's ``settlement`` field."""
    row = payment_row(4, east, self_drawn)
    if not self_drawn:
        return (("winner", row["discarder"] * total), ("discarder", -row["discarder"] * total), ("others", 0))
    if east:
        return (("winner", 3 * row["each"] * total), ("discarder", None), ("others", -row["each"] * total))
    return (("winner", (2 * row["each"] + row["east"]) * total), ("discarder", None),
            ("others", -row["each"] * total), ("east", -row["east"] * total))


def settle(table: Table, scores: dict[Wind, Score]) -> tuple[list[Payment], list[str]]:
    if table.dealer is not Wind.EAST:
        raise HandError("bad_table", "Under the jmja1967 rules the dealer is East ('jakaja = itä'); "
                                     f"this table names {table.dealer.value}.")
    _check_three_players(table)
    fines = {seat: _fines(table.hand(seat)) for seat in table.seats}
    if table.winner is None:
        notes = ["A drawn deal ('tasapeli'): nobody pays."]
        if any(fines.values()):
            notes.append("Fines are returned to those who paid them ('Sakkoja maksaneet saavat takaisin "
                         "maksamansa summan').")
        return [], notes
    winner, result = table.winner, scores[table.winner]
    if not result.valid:
        if result.error.code not in ("not_mahjong", "sacred_discard"):
            raise HandError(result.error.code, f"The winner's hand: {result.error.message}")
        return [], [f"False mahjong: {result.error.message} A wrong call ('väärä huuto') costs {FALSE_CALL_FINE} "
                    "into the table, for the deal's winner; if another player has already shown their hand, the "
                    "deal is played again ('jako on pelattava uudestaan')."]
    players = len(table.seats)
    east = winner == table.dealer
    context = table.hand(winner).context
    options = read_options(context)
    self_drawn = table.discarder is None
    row = payment_row(players, east, self_drawn, options.three_player_self_draw)
    total = result.total
    payments: list[Payment] = []
    notes: list[str] = []
    if not self_drawn:
        payments.append(pay(table.discarder, winner, row["discarder"] * total))
    else:
        for seat in table.seats:
            if seat == winner:
                continue
            times = row["east"] if seat == table.dealer and "east" in row else row.get("each", 0)
            if times:
                payments.append(pay(seat, winner, times * total))
    received = sum(p.amount for p in payments)
    cap = payment_maximum(players, east)
    if received > cap:  # cannot happen with totals capped at 500; the book's maximum kept as a rule
        raise AssertionError(f"jmja1967: {received} is over the payment maximum {cap}")
    for seat, fine in fines.items():
        if not fine:
            continue
        if seat == winner:
            notes.append(f"The winner's own fines ({fine}) go back to the winner.")
        else:
            payments.append(pay(seat, winner, fine))
            notes.append(f"{seat.value} pays {fine} in fines to the winner ('sakot saa voittaja').")
    return payments, notes


def _fines(hand) -> int:
    options = read_options(hand.context)
    return FALSE_CALL_FINE * options.false_calls + WRONG_DRAW_FINE * options.wrong_draws


def _check_three_players(table: Table) -> None:
    """With three players the absent seat's wind is taken out of the game ("1. jaossa poistetaan
    länsituulet. Pelaajat ovat itä, etelä ja pohjoinen.")."""
    if len(table.seats) != 3:
        return
    missing = next(w for w in Wind if w not in table.seats)
    for seat in table.seats:
        if missing.tile in table.hand(seat).tile_counts():
            raise HandError("removed_wind", f"With three players the {missing.name.title()} winds are out of the "
                                            f"game, but {seat.value}'s hand holds one.")
