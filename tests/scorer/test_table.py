"""Tables and settlement (scorer/table.py) with the MCR rules; the other rule sets have their own tests."""

import pytest

from scorer.errors import HandError
from scorer.notation import parse_hand
from scorer.table import Table, settle, table_from_dict
from scorer.tiles import Wind

E, S, W, N = Wind.EAST, Wind.SOUTH, Wind.WEST, Wind.NORTH
WINNER = "123m 456m 789m 234p 5s +5s"  # Pure Straight 16 + All Chows 2 + Single Wait 1 (+ concealment)
LOSERS = {S: "19m 19p 19s 1234567z", W: "123456789m 1234p", N: "111222333p 4567s"}


def table(winner=E, discarder=N, winner_hand=WINNER, dealer=E):
    hands = {seat: parse_hand(text) for seat, text in LOSERS.items() if seat != winner}
    hands[winner] = parse_hand(winner_hand)
    if winner != E:
        hands[E] = parse_hand(LOSERS[winner])
    return Table.build(hands, winner=winner, discarder=discarder, dealer=dealer)


def test_mcr_discard_win_pays_8_from_each_and_the_hand_from_the_discarder():
    result = settle(table(discarder=N), "mcr")
    total = dict(result.scores)[E].total
    assert total == 21  # 16 + Concealed Hand 2 + All Chows 2 + Single Wait 1
    assert result.net() == {"E": 24 + total, "S": -8, "W": -8, "N": -8 - total}
    assert sum(result.net().values()) == 0


def test_mcr_self_draw_takes_the_hand_from_everyone():
    result = settle(table(discarder=None), "mcr")
    total = dict(result.scores)[E].total
    assert total == 23  # Fully Concealed Hand 4 replaces Concealed Hand 2
    assert result.net() == {"E": 3 * (8 + total), "S": -(8 + total), "W": -(8 + total), "N": -(8 + total)}


def test_mcr_false_mahjong_pays_10_to_each():
    result = settle(table(winner_hand="123m 456p 789m 5s [5'55m] +5s"), "mcr")  # 3 points
    assert result.net() == {"E": -30, "S": 10, "W": 10, "N": 10}
    assert "False mahjong" in result.notes[0]


def test_mcr_scores_only_the_winner_and_a_draw_pays_nothing():
    assert [seat for seat, _ in settle(table(), "mcr").scores] == [E]
    hands = {seat: parse_hand(text) for seat, text in LOSERS.items()}
    hands[E] = parse_hand("123456789m 2345p")
    drawn = settle(Table.build(hands, winner=None), "mcr")
    assert drawn.payments == () and drawn.net() == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_build_fills_each_hands_context_from_the_table():
    t = table(winner=S, discarder=W, winner_hand=WINNER)
    south = t.hand(S)
    assert south.context.seat_wind is S and not south.context.self_drawn and not south.context.dealer
    assert t.hand(E).context.dealer


@pytest.mark.parametrize("change, message", [
    (dict(winner=S, discarder=S), "discarder must be another player"),
    (dict(winner=None, discarder=N), "drawn deal has no discarder"),
])
def test_inconsistent_tables_are_refused(change, message):
    hands = {seat: parse_hand(text) for seat, text in LOSERS.items()}
    hands[E] = parse_hand("123456789m 2345p")
    hands[S] = parse_hand(WINNER)
    with pytest.raises(HandError, match=message):
        Table.build(hands, **change)


def test_the_winner_must_have_won_and_only_the_winner():
    hands = {seat: parse_hand(text) for seat, text in LOSERS.items()}
    hands[E] = parse_hand("123456789m 2345p")
    with pytest.raises(HandError, match="winner"):
        Table.build(hands, winner=E)
    hands[E] = parse_hand(WINNER)
    hands[S] = parse_hand(WINNER)
    with pytest.raises(HandError, match="Only the winner"):
        Table.build(hands, winner=E)


def test_table_json_names_the_bad_player():
    data = {"players": [{"seat": "E", "hand": {"concealed": ["1m"] * 14, "winning_tile": "1m"}}], "winner": "E"}
    with pytest.raises(HandError, match="Player E: .*copies of 1m"):
        table_from_dict(data)
    with pytest.raises(HandError, match="same seat|Two players"):
        loser = {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5s"]}
        table_from_dict({"players": [{"seat": "E", "hand": loser}, {"seat": "e", "hand": loser}], "winner": None})
    with pytest.raises(HandError, match="3 or 4 players"):
        table_from_dict({"players": [{"seat": "E", "hand": {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5s", "5s"], "winning_tile": "5s"}}], "winner": "E"})
