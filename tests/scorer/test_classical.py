"""The classical rules (seed 001: Hungarian classical rules after E. Hergár, 1925).

Every row of the book's tables ("IV. Az elszámolás") has a hand that earns it and one that must not;
every extra hand (1000-4000) likewise; the payments row by row; worked hands with their arithmetic;
non-winners' hands; waits. Hands are in the text notation; most sit in South (seat=S) so that East's
privileges stay out of the way, and are self-drawn unless the test is about a robbed (claimed) tile.
"""

from __future__ import annotations

import json

import pytest

from scorer.classical.catalog import DOUBLES, EXTRAS, POINTS
from scorer.codec import hand_to_dict
from scorer.errors import HandError
from scorer.notation import parse_hand
from scorer.rules import RULE_SETS, get_rule_set
from scorer.table import Table, settle, table_from_dict
from scorer.tiles import Wind
from scorer.waits import waiting_tiles

E, S, W, N = Wind.EAST, Wind.SOUTH, Wind.WEST, Wind.NORTH
RULES = get_rule_set("classical")


def score(text: str):
    return RULES.score(parse_hand(text))


def found(text: str) -> dict[str, int]:
    """Every item of a valid hand's score: name -> count."""
    result = score(text)
    assert result.valid, result.error
    return {item.name: item.count for item in result.items}


def total(text: str) -> int:
    result = score(text)
    assert result.valid, result.error
    return result.total


# --------------------------------------------------------------------------------------------------
# The plug-in and the catalog


def test_registered_with_its_context_keys_and_options():
    assert "classical" in RULE_SETS and RULES.scores_every_hand
    keys = {key.key: key for key in RULES.context_keys}
    assert {"self_drawn", "robbing_kong", "seat_wind", "dealer", "first_turn"} <= set(keys)
    assert {k: keys[k].default for k in keys if k.startswith("classical_")} == {
        "classical_banker": False, "classical_favoured_win_doubles": True, "classical_one_suit_honours": "pair",
        "classical_extras": "added", "classical_losers_settle": True}
    assert keys["classical_extras"].choices == ("added", "limit")


def test_the_catalog_holds_the_books_values():
    assert {r.name: r.value for r in POINTS} == {
        "Chow": 0,
        "Exposed pung of simples": 2, "Concealed pung of simples": 4,
        "Exposed pung of terminals or honours": 4, "Concealed pung of terminals or honours": 8,
        "Exposed kong of simples": 8, "Concealed kong of simples": 16,
        "Exposed kong of terminals or honours": 16, "Concealed kong of terminals or honours": 32,
        "Own flower or season": 8, "Other flower or season": 4,
        "Pair of own wind": 2, "Pair of dragons": 2,
        "Mahjong": 20, "Won without robbing": 2}
    assert {r.name: r.value for r in DOUBLES} == {
        "Pung or kong of dragons or own wind": 1, "Favoured player (East or banker) won": 1,
        "One suit with honours": 1, "Pure one suit": 3, "All honours": 4, "Mahjong from heaven": 2}
    assert {r.name: r.value for r in EXTRAS} == {
        "Nagysor": 1000, "KilencLámpás": 1000, "Páratlan-színjáték": 1000, "Egyszínű sor-játék": 1000,
        "Pár-játék (szimpla)": 1000, "Pár-játék (színes)": 2000, "Pár-játék (sarkos)": 2000,
        "Pár-játék (honőrös)": 3000, "Zöld-játék": 2000, "Szelek játéka": 2000, "Négybarát": 3000,
        "Világcsoda": 4000}
    assert all(r.book for r in POINTS + DOUBLES + EXTRAS)


# --------------------------------------------------------------------------------------------------
# "A figurák pontértékei (kirakva / kézben, ill. rablással / rablás nélkül)": each row, earned and not

FIGURE_ROWS = [
    # (hand, item, count)
    ("123m 456p 789s 1p [5'55m] +1p | seat=S self_drawn", "Exposed pung of simples", 1),
    ("123m 456p 789s 555m 1p +1p | seat=S self_drawn", "Exposed pung of simples", 0),
    ("123m 456p 789s 555m 1p +1p | seat=S self_drawn", "Concealed pung of simples", 1),
    ("123m 456p 789s 1p [5'55m] +1p | seat=S self_drawn", "Concealed pung of simples", 0),
    ("123m 456p 234s 1p [9'99s] +1p | seat=S self_drawn", "Exposed pung of terminals or honours", 1),
    ("123m 456p 234s 1p [55'5p] +1p | seat=S self_drawn", "Exposed pung of terminals or honours", 0),
    ("123m 456p 234s 999s 1p +1p | seat=S self_drawn", "Concealed pung of terminals or honours", 1),
    ("123m 456p 234s 888s 1p +1p | seat=S self_drawn", "Concealed pung of terminals or honours", 0),
    ("123m 456p 789s 1p [5555'm] +1p | seat=S self_drawn", "Exposed kong of simples", 1),
    ("123m 456p 789s 1p (5555m) +1p | seat=S self_drawn", "Exposed kong of simples", 0),
    ("123m 456p 789s 1p (5555m) +1p | seat=S self_drawn", "Concealed kong of simples", 1),
    ("123m 456p 789s 1p [5'55m] +1p | seat=S self_drawn", "Concealed kong of simples", 0),
    ("123m 456p 789s 2p [1111'z] +2p | seat=S self_drawn", "Exposed kong of terminals or honours", 1),
    ("123m 456p 789s 2p (1111z) +2p | seat=S self_drawn", "Exposed kong of terminals or honours", 0),
    ("123m 456p 789s 2p (1111z) +2p | seat=S self_drawn", "Concealed kong of terminals or honours", 1),
    ("123m 456p 789s 2p [1111'z] +2p | seat=S self_drawn", "Concealed kong of terminals or honours", 0),
    ("123m 456p 789s 234s 5p 2f +5p | seat=S self_drawn", "Own flower or season", 1),     # flower 2 = South
    ("123m 456p 789s 234s 5p 6f +5p | seat=S self_drawn", "Own flower or season", 1),     # season 6 = South
    ("123m 456p 789s 234s 5p 1f +5p | seat=S self_drawn", "Own flower or season", 0),
    ("123m 456p 789s 234s 5p 1f5f8f +5p | seat=S self_drawn", "Other flower or season", 3),
    ("123m 456p 789s 234s 5p 2f +5p | seat=S self_drawn", "Other flower or season", 0),
    ("123m 456p 789s 234s 2z +2z | seat=S self_drawn", "Pair of own wind", 1),
    ("123m 456p 789s 234s 2z +2z | seat=W self_drawn", "Pair of own wind", 0),
    ("123m 456p 789s 234s 3z +3z | seat=S prevalent=W self_drawn", "Pair of own wind", 0),  # round wind: nothing
    ("123m 456p 789s 234s 7z +7z | seat=S self_drawn", "Pair of dragons", 1),
    ("123m 456p 789s 234s 1p +1p | seat=S self_drawn", "Pair of dragons", 0),
    ("123m 456p 789s 234s 1p +1p | seat=S self_drawn", "Mahjong", 1),
    ("123m 456p 789s 234s 1p | seat=S", "Mahjong", 0),                                      # a non-winner
    ("123m 456p 789s 234s 1p +1p | seat=S self_drawn", "Won without robbing", 1),
    ("123m 456p 789s 234s 1p +1p | seat=S", "Won without robbing", 0),                     # claimed discard
    ("123m 456p 789s 234s 1p +1p | seat=S robbing_kong", "Won without robbing", 0),        # robbed from a kong
]


@pytest.mark.parametrize("hand, item, count", FIGURE_ROWS)
def test_figure_table_rows(hand, item, count):
    assert found(hand).get(item, 0) == count


def test_chows_score_nothing():
    # four chows and a plain pair: only mahjong 20 + 2 (self-drawn)
    assert found("123m 456p 789s 234s 1p +1p | seat=S self_drawn") == {"Mahjong": 1, "Won without robbing": 1}
    assert total("123m 456p 789s 234s 1p +1p | seat=S self_drawn") == 22
    assert "Chow" not in found("123m 456p 789s 234s 1p +1p | seat=S self_drawn")  # a zero item is not listed


def test_a_pung_completed_by_a_robbed_tile_is_exposed():
    # "ill. rablással / rablás nélkül": 99s + a claimed 9s is laid out, an exposed pung of terminals (4)
    assert found("123m 456p 234s 99s 11p +9s | seat=S")["Exposed pung of terminals or honours"] == 1
    assert total("123m 456p 234s 99s 11p +9s | seat=S") == 24          # 4 + 20
    # drawn from the wall it stays concealed (8), and earns the +2
    assert total("123m 456p 234s 99s 11p +9s | seat=S self_drawn") == 30  # 8 + 20 + 2
    # a claimed 9s that can complete the chow 789s instead leaves the pung concealed
    assert found("123m 456p 11p 999s 78s +9s | seat=S")["Concealed pung of terminals or honours"] == 1


def test_a_kong_built_on_an_exposed_pung_is_worth_half():
    # "A rabolt köves Kong is a felét éri ... mint a kézből kirakott": an exposed kong of Red 16, concealed 32
    assert total("123m 456p 789s 1p [7777'z] +1p | seat=S self_drawn") == (16 + 22) * 2
    assert total("123m 456p 789s 1p (7777z) +1p | seat=S self_drawn") == (32 + 22) * 2


def test_four_alike_standing_are_a_pung_and_a_tile():
    # "A Kongot mindig ki kell rakni": 5555m in hand is a concealed pung (4) and a 5m in the chow 567m
    assert found("5555m 67m 123p 789s 1p +1p | seat=S self_drawn") == {
        "Concealed pung of simples": 1, "Mahjong": 1, "Won without robbing": 1}


# --------------------------------------------------------------------------------------------------
# "Duplázás (a fentiek szerint számított pontokat duplázza)": each row, earned and not

DOUBLING_ROWS = [
    ("123m 456p 789s 1p [6'66z] +1p | seat=S self_drawn", "Pung or kong of dragons or own wind", 1),
    ("123m 456p 789s 1p (6666z) +1p | seat=S self_drawn", "Pung or kong of dragons or own wind", 1),
    ("123m 456p 789s 222z 1p +1p | seat=S self_drawn", "Pung or kong of dragons or own wind", 1),    # own wind
    ("123m 456p 789s 111z 1p +1p | seat=S self_drawn", "Pung or kong of dragons or own wind", 0),    # other wind
    ("123m 456p 789s 333z 1p +1p | seat=S prevalent=W self_drawn", "Pung or kong of dragons or own wind", 0),
    ("123m 456p 789s 234s 6z +6z | seat=S self_drawn", "Pung or kong of dragons or own wind", 0),    # a pair
    ("123m 456p 789s 234s 1p +1p | self_drawn", "Favoured player (East or banker) won", 1),          # East
    ("123m 456p 789s 234s 1p +1p | seat=S self_drawn", "Favoured player (East or banker) won", 0),
    ("123m 456p 789s 234s 1p +1p | seat=S dealer classical_banker", "Favoured player (East or banker) won", 1),
    ("123m 456p 789s 234s 1p +1p | seat=E classical_banker", "Favoured player (East or banker) won", 0),
    ("123m 456p 789s 234s 1p +1p | seat=E classical_favoured_win_doubles=false",
     "Favoured player (East or banker) won", 0),
    ("123m 456m 789m 234m 5z +5z | seat=S self_drawn", "One suit with honours", 1),
    ("123m 456m 789m 234m 5m +5m | seat=S self_drawn", "One suit with honours", 0),                   # pure
    ("123m 456m 789m 555z 1m +1m | seat=S self_drawn", "One suit with honours", 0),                   # honour pung
    ("123m 456m 789m 555z 1m +1m | seat=S self_drawn classical_one_suit_honours=any",
     "One suit with honours", 1),
    ("123m 456m 789m 234p 5z +5z | seat=S self_drawn", "One suit with honours", 0),                   # two suits
    ("123m 456m 789m 234m 5m +5m | seat=S self_drawn", "Pure one suit", 1),
    ("123m 456m 789m 234m 5z +5z | seat=S self_drawn", "Pure one suit", 0),
    ("111z 333z 555z 777z 6z +6z | seat=S self_drawn", "All honours", 1),
    ("111z 333z 555z 777z 6p +6p | seat=S self_drawn", "All honours", 0),
    ("123m 456p 789s 234s 1p +1p | self_drawn first_turn", "Mahjong from heaven", 1),               # East, dealt
    ("123m 456p 789s 234s 1p +1p | seat=S self_drawn first_turn", "Mahjong from heaven", 0),
    ("123m 456p 789s 234s 1p +1p | first_turn", "Mahjong from heaven", 0),                          # claimed
    ("123m 456p 789s 234s 1p +1p | self_drawn", "Mahjong from heaven", 0),
]


@pytest.mark.parametrize("hand, item, count", DOUBLING_ROWS)
def test_doubling_rows(hand, item, count):
    assert found(hand).get(item, 0) == count


def test_doublings_multiply():
    # all honours: x4 -> 2^4; three pungs of dragons: three more doublings
    result = score("111z 555z 666z 777z 2z +2z | seat=W self_drawn")
    # pungs of honours concealed 4 x 8 = 32 + mahjong 20 + 2 = 54; dragons x3, all honours x4 -> 54 * 2^7
    assert (result.base, result.doubles, result.total) == (54, 7, 54 * 128)


def test_suit_doublings_are_for_the_winner_only():
    # "zárva", "győzelem": a non-winner with one suit and a dragon pair earns its pair, no doubling
    assert found("123m 456m 789m 23m 55z | seat=S") == {"Pair of dragons": 1}
    assert found("111z 333z 444z 66z 77z | seat=S") == {"Concealed pung of terminals or honours": 3,
                                                         "Pair of dragons": 2}


# --------------------------------------------------------------------------------------------------
# "+ az Extra jutalompontok (1000, 2000, 3000, 4000)": each extra hand, earned and not

EXTRA_ROWS = [
    ("123456789m 1234z +5m", "Nagysor"),
    ("[1'23m] 456789m 1234z +9m", "Nagysor"),                 # its chows may be declared
    ("123456789p 567z 1z +1z", "Nagysor"),                    # "Bezárható három sárkány és egy szélpárral is"
    ("1112345678999s +5s", "KilencLámpás"),
    ("1112345678999s +9s", "KilencLámpás"),
    ("111333555777m 9m +9m", "Páratlan-színjáték"),
    ("111333555m [7'77m] 9m +9m", "Páratlan-színjáték"),
    ("123345567789s 5z +5z", "Egyszínű sor-játék"),
    ("123345567789s 1z +1z", "Egyszínű sor-játék"),
    ("123345567789s 9s +9s", "Egyszínű sor-játék"),          # "lehet a sorok színének két lapja is"
    ("1133m 55p 77s 99s 11z 5z +5z", "Pár-játék (szimpla)"),
    ("133m 55p 77s 99s 5555z +1m", "Pár-játék (szimpla)"),   # four alike are two pairs
    ("1122335566778s +8s", "Pár-játék (színes)"),
    ("1199m 1199p 11s 115z +5z", "Pár-játék (sarkos)"),
    ("1122334455667z +7z", "Pár-játék (honőrös)"),
    ("222333444666s 6z +6z", "Zöld-játék"),
    ("234s 234s 666s 888s 6z +6z", "Zöld-játék"),
    ("111222333444z 5p +5p", "Szelek játéka"),
    ("[1'11z] 222333444z 9s +9s", "Szelek játéka"),
    ("111222333444z 5z +5z", "Négybarát"),
    ("19m 19p 19s 1234567z +1z", "Világcsoda"),
    ("19m 19p 19s 1234567z +5m", "Világcsoda"),               # any 14th tile: "egy kő eldobható"
]


@pytest.mark.parametrize("hand, extra", EXTRA_ROWS)
def test_extra_hands(hand, extra):
    items = found(hand + " | seat=S self_drawn")
    assert [name for name in items if name in {r.name for r in EXTRAS}] == [extra]


NOT_EXTRA_ROWS = [
    # (hand, extra it must not earn): near misses that are still a mahjong
    ("123456789m 555z 1z +1z", "Nagysor"),                    # a pung, not the singles
    ("111234567999s 5s +5s", "KilencLámpás"),                 # no 8
    ("111333555777m 8m +8m", "Páratlan-színjáték"),           # an even pair
    ("111333555777m 9p +9p", "Páratlan-színjáték"),           # two suits
    ("123345456789s 5z +5z", "Egyszínű sor-játék"),           # 456 is not one of its runs
    ("123345567789s 5m +5m", "Egyszínű sor-játék"),           # the pair of another suit
    ("222333444555s 6z +6z", "Zöld-játék"),                   # 5s is "nem teljesen zöld"
    ("111222333z 999s 5p +5p", "Szelek játéka"),              # three winds only
    ("111222333444z 5p +5p", "Négybarát"),                    # no dragon pair
    ("1133m 55p 77s 99s 11z 5z +5z", "Pár-játék (színes)"),   # several suits
    ("112233556677s 5z +5z", "Pár-játék (színes)"),           # one suit and a dragon pair
    ("1199m 1199p 22s 11z 5z +5z", "Pár-játék (sarkos)"),     # 22s is no corner tile
    ("112233445566z 9s +9s", "Pár-játék (honőrös)"),          # one pair of terminals
    ("123m 456p 789s 234s 1p +1p", "Pár-játék (szimpla)"),    # a regular hand
]


@pytest.mark.parametrize("hand, extra", NOT_EXTRA_ROWS)
def test_near_misses_earn_no_extra(hand, extra):
    result = score(hand + " | seat=S self_drawn")
    assert result.valid
    assert extra not in {item.name for item in result.items}


@pytest.mark.parametrize("hand", [
    "123456789m 123z 5m +5m",        # Nagysor without North
    "19m 19p 19s 123456z 5m +5m",     # Világcsoda without Red
    "113355p 77s 99s [1'11z] +9s",    # pairs cannot be declared
    "123m 456p 789s 13z 55p +5p",
])
def test_near_misses_that_are_no_mahjong(hand):
    result = score(hand + " | seat=S")
    assert not result.valid and result.error.code == "not_mahjong"
    assert "mahjong" in result.error.message


def test_kilenclampas_pungs_exposed_when_declared_or_robbed():
    # the claimed 1s completes the pung of 1s: exposed 4 + concealed 9s 8 + 20 = 32; pure x3 -> 256 + 1000
    assert total("112345678999s 5s +1s | seat=S") == 32 * 8 + 1000
    # drawn: 8 + 8 + 20 + 2 = 38 -> 304 + 1000
    assert total("112345678999s 5s +1s | seat=S self_drawn") == 38 * 8 + 1000
    # a fourth 1s can be the closing tile: the claimed 1s leaves both pungs concealed: 36 -> 288 + 1000
    assert total("1112345678999s +1s | seat=S") == 36 * 8 + 1000
    # a declared pung of 1s: 4 + 8 + 20 + 2 = 34 -> 272 + 1000
    assert total("[1'11s] 2345678999s +5s | seat=S self_drawn") == 34 * 8 + 1000


def test_only_the_highest_extra_counts():
    # Négybarát is also a Szelek játéka; the hand is one game: 3000, not 5000
    items = found("111222333444z 5z +5z | seat=S self_drawn")
    assert items["Négybarát"] == 1 and "Szelek játéka" not in items


def test_extras_as_limit_hands():
    # classical_extras=limit: the extra hand is worth exactly its points
    result = score("111222333444z 5z +5z | seat=S self_drawn classical_extras=limit")
    assert (result.base, result.doubles, result.total) == (3000, 0, 3000)
    assert [(i.name, i.points) for i in result.items] == [("Négybarát", 3000)]
    # an ordinary hand is unchanged by the option
    assert total("123m 456p 789s 234s 1p +1p | seat=S self_drawn classical_extras=limit") == 22


# --------------------------------------------------------------------------------------------------
# Worked hands: the arithmetic written out


def test_worked_1_exposed_pungs_and_a_red_pung():
    # exposed pung 5m 2 + exposed pung Red 4 + other flower (4f, North's) 4 + mahjong 20 + self-drawn 2 = 32;
    # Red pung x1 -> 64
    result = score("234m 567p 8s [5'55m] [777'z] 4f +8s | seat=S self_drawn")
    assert (result.base, result.doubles, result.total) == (32, 1, 64)


def test_worked_2_east_wins_on_a_discard():
    # concealed pung 9p 8 + concealed pung East (own wind) 8 + exposed pung 3s 2 + mahjong 20 = 38
    # (claimed: no +2); own wind x1, East won x1 -> 38 * 4 = 152
    result = score("999p 111z 456m 7m [33'3s] +7m")
    assert (result.base, result.doubles, result.total) == (38, 2, 152)


def test_worked_3_concealed_kong_of_dragons():
    # concealed kong Green 32 + concealed pung 2m 4 + pair White 2 + own flower (3f, West) 8 + mahjong 20 + 2
    # = 68; Green kong x1 -> 136
    result = score("222m 345p 678s 5z 3f (6666z) +5z | seat=W self_drawn")
    assert (result.base, result.doubles, result.total) == (68, 1, 136)


def test_worked_4_one_suit_closed_by_a_wind_pair():
    # chows 0 + concealed pung 9m 8 + pair own wind (North) 2 + mahjong 20 + 2 = 32; one suit with honours x1
    # -> 64
    result = score("123m 456m 678m 999m 4z +4z | seat=N self_drawn")
    assert (result.base, result.doubles, result.total) == (32, 1, 64)


def test_worked_5_pure_one_suit():
    # concealed pung 1p 8 + exposed pung 5p 2 + mahjong 20 = 30 (claimed); pure one suit x3 -> 240
    result = score("111p 234p 678p 9p [55'5p] +9p | seat=W")
    assert (result.base, result.doubles, result.total) == (30, 3, 240)


def test_worked_6_all_honours_with_dragons():
    # exposed pungs of East (not own) 4 and White 4, concealed pungs Red 8 and South 8 (own), pair North 0,
    # mahjong 20 + 2 = 46; White x1, Red x1, South (own) x1, all honours x4 -> 46 * 2^7 = 5888
    result = score("777z 222z 4z [1'11z] [555'z] +4z | seat=S self_drawn")
    assert (result.base, result.doubles, result.total) == (46, 7, 5888)


def test_worked_7_mahjong_from_heaven():
    # East wins on the dealt tiles: concealed pung 8s 4 + mahjong 20 + 2 = 26;
    # East won x1, from heaven x2 -> 26 * 8 = 208
    result = score("123m 456p 888s 789s 1m +1m | seat=E self_drawn first_turn")
    assert (result.base, result.doubles, result.total) == (26, 3, 208)


def test_worked_8_negybarat_added():
    # four concealed wind pungs 4 x 8 = 32 + pair Red 2 + mahjong 20 + 2 = 56; West (own) x1, all honours x4
    # -> 56 * 32 = 1792, + Négybarát 3000 = 4792
    result = score("111222333444z 7z +7z | seat=W self_drawn")
    assert (result.base, result.doubles, result.total) == (56, 5, 4792)


def test_worked_9_vilagcsoda():
    # no figures: mahjong 20 + 2 = 22, x1 for East's win -> 44, + Világcsoda 4000 = 4044
    result = score("19m 19p 19s 1234567z +3s | seat=E self_drawn")
    assert (result.base, result.doubles, result.total) == (22, 1, 4044)
    assert [kind for kind, _ in result.arrangement] == ["orphans", "discard"]
    assert [t.code for t in result.arrangement[1][1]] == ["3s"]


def test_worked_10_pairs_of_one_suit():
    # seven pairs: no scoring pair, mahjong 20 (claimed) = 20; pure one suit x3 -> 160; + Pár-játék (színes)
    # 2000 = 2160
    result = score("1122335566778s +8s | seat=S")
    assert (result.base, result.doubles, result.total) == (20, 3, 2160)


def test_worked_11_kilenclampas():
    # concealed pungs 1s and 9s 8 + 8 + mahjong 20 + 2 = 38; pure one suit x3 -> 304; + KilencLámpás 1000
    result = score("1112345678999s +5s | seat=S self_drawn")
    assert (result.base, result.doubles, result.total) == (38, 3, 1304)


def test_worked_12_robbed_tile_and_flowers():
    # exposed kong 4p 8 + pung 1s completed by the claimed 1s, exposed 4 + pair of own wind (East) 2 + own
    # season (5f, East's) 8 + other flower (3f) 4 + mahjong 20 = 46; East won x1 -> 92
    result = score("123m 789m 11s 11z [4444'p] 35f +1s")
    assert (result.base, result.doubles, result.total) == (46, 1, 92)


# --------------------------------------------------------------------------------------------------
# Non-winners: every player's hand is scored


def test_non_winner_scores_its_figures_pairs_and_flowers():
    # concealed pungs 1m 8 and South (own, 2222z) 8 + pair White 2 + other flower 4 = 22; South x1 -> 44
    result = score("1112m 55z 2222z 789p 1f | seat=S")
    assert (result.base, result.doubles, result.total) == (22, 1, 44)
    assert "Mahjong" not in {i.name for i in result.items}


def test_non_winner_with_melds():
    # exposed pung White 4 + concealed kong South (own) 32 + own season (6f) 8 = 44; White x1, South x1 -> 176
    result = score("[5'55z] (2222z) 19m 19p 779s 6f | seat=S")
    assert (result.base, result.doubles, result.total) == (44, 2, 176)


def test_non_winner_counts_every_scoring_pair():
    # "csak 1 db a kész Mahjonggban": an unfinished hand may hold several: 55z 66z 22z (own) = 6
    assert total("55z 66z 22z 123m 456p 9s | seat=S") == 6
    assert total("123m 456p 789s 1234z | seat=S") == 0


def test_non_winner_is_never_doubled_for_suit_or_honours():
    assert score("111z 333z 444z 66z 77z | seat=S").doubles == 0


def test_thirteen_orphans_without_a_winning_tile_get_a_note():
    result = score("19m 19p 19s 1234567z | seat=S")
    assert result.valid and result.total == 0
    assert any("Világcsoda" in note for note in result.notes)


# --------------------------------------------------------------------------------------------------
# Invalid hands and options


def test_a_winner_that_is_no_mahjong_is_invalid():
    result = score("123m 456p 789s 24s 1p 5z +1p | seat=S")
    assert not result.valid and result.error.code == "not_mahjong"


def test_contradictory_context_and_bad_options():
    result = score("123m 456p 789s 234s 1p +1p | self_drawn robbing_kong")
    assert not result.valid and result.error.code == "impossible_context"
    result = score("123m 456p 789s 234s 1p +1p | classical_extras=sometimes")
    assert not result.valid and result.error.code == "bad_context" and "added, limit" in result.error.message
    result = score("123m 456p 789s 234s 1p +1p | classical_banker=perhaps")
    assert not result.valid and result.error.code == "bad_context"


def test_to_dict_lists_points_and_doubling_items():
    data = score("234m 567p 8s [5'55m] [777'z] 4f +8s | seat=S self_drawn").to_dict()
    assert data["base"] == 32 and data["doubles"] == 1 and data["total"] == 64
    assert {"name": "Pung or kong of dragons or own wind", "doubles": 1, "count": 1} in data["items"]
    assert {"name": "Mahjong", "points": 20, "count": 1} in data["items"]


# --------------------------------------------------------------------------------------------------
# Is it a mahjong, and what does it wait on


@pytest.mark.parametrize("hand, waits", [
    ("123m 456m 789m 23p 55s", ["1p", "4p"]),
    ("123m 456m 789m 111p 5s", ["5s"]),
    ("1112345678999s", [f"{r}s" for r in range(1, 10)]),                     # KilencLámpás
    ("123456789m 123z 4z", [f"{r}m" for r in range(1, 10)]),                  # Nagysor: any tile of the suit
    ("123456789p 567z 1z", ["1z"]),                                            # Nagysor with the dragons
    ("19m 19p 19s 123456z 1m", ["7z"]),                                        # Világcsoda
    ("1133m 55p 77s 99s 11z 5z", ["5z"]),                                      # pairs
    ("123m 456m 789m 1111p", []),                                              # the fifth 1p does not exist
])
def test_waits(hand, waits):
    assert [t.code for t in waiting_tiles(parse_hand(hand), "classical")] == waits


def test_thirteen_orphans_wait_on_any_tile():
    # 13 tiles plus any one, which is thrown away ("Ekkor és csak ekkor, egy kő eldobható")
    assert len(waiting_tiles(parse_hand("19m 19p 19s 1234567z"), "classical")) == 34


def test_is_mahjong():
    assert RULES.is_mahjong(parse_hand("123m 456m 789m 234p 5s +5s"))
    assert not RULES.is_mahjong(parse_hand("123m 456m 789m 234p 5s"))         # no winning tile
    assert not RULES.is_mahjong(parse_hand("123m 456m 789m 234p 5z +6z"))


# --------------------------------------------------------------------------------------------------
# Settlement: "mindenkitől duplán kap, ezzel szemben, ha elveszti duplán fizet"

WINNER = "123m 456p 789s 234s 1p +1p"       # 20 + 2 self-drawn = 22; 20 when claimed (x2 for East)
LOSER_0 = "123m 456p 789s 2345s"             # 0
LOSER_16 = "555z 123p 456p 789p 1s"          # concealed White pung 8, x1 = 16
LOSER_8 = "111m 234p 567p 89s 13z"           # concealed pung 1m = 8


def table(hands: dict, **kw) -> Table:
    return Table.build({seat: parse_hand(text) for seat, text in hands.items()}, **kw)


def net(hands: dict, **kw) -> dict[str, int]:
    result = settle(table(hands, **kw), "classical")
    assert sum(result.net().values()) == 0
    return result.net()


def test_pay_1_everyone_pays_the_winner_east_double():
    # S wins self-drawn with 22: W and N pay 22, East pays 44. Losers all 0: nothing more.
    assert net({E: LOSER_0, S: WINNER, W: LOSER_0, N: LOSER_0}, winner=S) == {"E": -44, "S": 88, "W": -22, "N": -22}


def test_pay_1b_without_the_banker_option_east_keeps_the_privileges():
    result = settle(table({E: LOSER_0, S: WINNER, W: LOSER_0, N: LOSER_0}, winner=S, dealer=N), "classical")
    assert result.net() == {"E": -44, "S": 88, "W": -22, "N": -22}
    assert any("classical_banker" in note for note in result.notes)


def test_pay_2_east_wins_and_receives_double():
    # East's hand 22 x2 (East won) = 44; each pays double: 88
    assert net({E: WINNER, S: LOSER_0, W: LOSER_0, N: LOSER_0}, winner=E) == {"E": 264, "S": -88, "W": -88, "N": -88}


def test_pay_2b_favoured_win_counted_once():
    winner = WINNER + " | classical_favoured_win_doubles=false"
    hands = {E: winner, S: LOSER_0 + " | classical_favoured_win_doubles=false",
             W: LOSER_0 + " | classical_favoured_win_doubles=false",
             N: LOSER_0 + " | classical_favoured_win_doubles=false"}
    # 22, paid double: 44 each
    assert net(hands, winner=E) == {"E": 132, "S": -44, "W": -44, "N": -44}


def test_pay_3_losers_settle_their_differences():
    # N wins on West's discard: 20. Each pays 20, East 40.
    # Losers: E 0, S 16, W 8. S gets 16 from E x2 = 32, and 8 from W; W gets 8 from E x2 = 16.
    result = settle(table({E: LOSER_0, S: LOSER_16, W: LOSER_8, N: WINNER}, winner=N, discarder=W), "classical")
    assert result.net() == {"E": -40 - 32 - 16, "S": -20 + 32 + 8, "W": -20 - 8 + 16, "N": 80}
    assert sum(result.net().values()) == 0


def test_pay_4_losers_do_not_settle_when_the_club_says_so():
    off = " | classical_losers_settle=false"
    hands = {E: LOSER_0 + off, S: LOSER_16 + off, W: LOSER_8 + off, N: WINNER + off}
    result = settle(table(hands, winner=N, discarder=W), "classical")
    assert result.net() == {"E": -40, "S": -20, "W": -20, "N": 80}
    assert any("losers_settle" in note for note in result.notes)


def test_pay_5_the_banker_takes_easts_privileges():
    on = " | classical_banker"
    hands = {E: LOSER_0 + on, S: WINNER + on, W: LOSER_0 + on, N: LOSER_0 + on}
    # West is the banker: S's 22 (self-drawn, not doubled: S is not the banker) is paid 44 by West
    assert net(hands, winner=S, dealer=W) == {"E": -22, "S": 88, "W": -44, "N": -22}


def test_pay_6_three_players():
    # S wins with 22; East pays 44, West 22; losers E 0 and W 16: W gets 16 x2 from East
    assert net({E: LOSER_0, S: WINNER, W: LOSER_16}, winner=S) == {"E": -44 - 32, "S": 66, "W": -22 + 32}


def test_pay_7_a_drawn_deal_pays_nothing():
    result = settle(table({E: LOSER_0, S: LOSER_16, W: LOSER_8, N: LOSER_0}, winner=None), "classical")
    assert result.payments == () and set(result.net().values()) == {0}
    assert "drawn" in result.notes[0]
    assert len(result.scores) == 4     # every hand is still scored


def test_pay_8_a_false_mahjong_cannot_be_settled():
    with pytest.raises(HandError, match="no penalty"):
        settle(table({E: LOSER_0, S: "123m 456p 789s 24s 1p 5z +1p", W: LOSER_0, N: LOSER_0}, winner=S),
               "classical")


def test_pay_8b_a_bad_option_on_a_losers_hand_is_refused():
    with pytest.raises(HandError, match="W's hand"):
        settle(table({E: LOSER_0, S: WINNER, W: LOSER_0 + " | classical_extras=often", N: LOSER_0}, winner=S),
               "classical")


def test_pay_9_hands_must_agree_on_the_options():
    with pytest.raises(HandError, match="classical_losers_settle"):
        settle(table({E: LOSER_0, S: WINNER, W: LOSER_0 + " | classical_losers_settle=false", N: LOSER_0},
                     winner=S), "classical")


def test_settle_from_json_and_the_command_line(cli, tmp_path):
    hands = {"E": LOSER_0, "S": WINNER, "W": LOSER_16, "N": LOSER_8}
    data = {"players": [{"seat": seat, "hand": hand_to_dict(parse_hand(text))} for seat, text in hands.items()],
            "winner": "S", "discarder": None}
    assert settle(table_from_dict(data), "classical").net() == {
        # S wins 22: E pays 44, W and N 22. Losers E 0, W 16, N 8: W gets 32 from E and 8 from N,
        # N gets 16 from E.
        "E": -44 - 32 - 16, "S": 88, "W": -22 + 32 + 8, "N": -22 - 8 + 16}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    run = cli("settle", "--rules", "classical", "--json", str(path))
    assert run.status == 0, run.err
    out = json.loads(run.out)
    assert out["net"] == {"E": -92, "S": 88, "W": 18, "N": -14}
    assert out["scores"]["W"]["total"] == 16


def test_score_from_the_command_line(cli):
    run = cli("score", "--rules", "classical", "--json", "--notation", "123m 456p 789s 234s 1p +1p | seat=S")
    assert run.status == 0 and json.loads(run.out)["total"] == 20
    run = cli("score", "--rules", "classical", "--notation", "123m 456p 789s 24s 1p 5z +1p")
    assert run.status == 2
