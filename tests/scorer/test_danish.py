"""The danish rule set (scorer/danish/), item by item from seed 002, the special-hands table row by row,
any player's hand (fishing or not), the penalties, the payments, and worked hands with their arithmetic.

Hands are in the text notation; seat=S (not East) unless a test is about East, since the default seat
is East and East's hand carries one more doubling.
"""

from __future__ import annotations

import json

import pytest

from scorer import score as score_under
from scorer.errors import HandError
from scorer.hand import Context
from scorer.notation import parse_hand
from scorer.rules import RULE_SETS, get_rule_set
from scorer.table import Table, settle
from scorer.tiles import Tile, Wind
from scorer.waits import waiting_tiles

from scorer.danish import book, fishing_tiles, is_fishing, is_mahjong, score_tiles

E, S, W, N = Wind.EAST, Wind.SOUTH, Wind.WEST, Wind.NORTH
RULES = get_rule_set("danish")


def score(text: str):
    return RULES.score(parse_hand(text))


def items(result) -> dict[str, tuple[int, int]]:
    """name -> (points or doubles, count)."""
    return {i.name: (i.points if i.points is not None else i.doubles, i.count) for i in result.items}


def codes(tiles) -> list[str]:
    return [t.code for t in tiles]


# --------------------------------------------------------------------------------------------------
# The plug-in


def test_registered_with_the_protocol():
    assert "danish" in RULE_SETS and RULES.name == "danish" and RULES.scores_every_hand
    keys = {k.key: k for k in RULES.context_keys}
    for key in ("self_drawn", "seat_wind", "prevalent_wind", "last_tile", "kong_replacement", "robbing_kong",
                "first_turn", "danish_east_first_discard", "danish_claimed_east_first_discard", "danish_revealed",
                "danish_wrong_count", "danish_east_double", "danish_losers_settle", "danish_draw_settles",
                "danish_unmixed_one_suit", "danish_clean_hand", "danish_red_bamboo"):
        assert key in keys
    assert keys["danish_east_double"].default is True
    assert keys["danish_clean_hand"].choices == ("no_honours", "one_suit")
    assert score_under(parse_hand("123m 456p 789s [5'55m] 9s +9s | seat=S"), "danish").total == 96


def test_result_json_lists_points_and_doubling_items():
    data = score("123m 456p 789s [5'55m] 9s +9s | seat=S").to_dict()
    assert data["rules"] == "danish" and data["valid"] and data["base"] == 24 and data["doubles"] == 2
    assert {"name": "Ren hånd", "doubles": 2, "count": 1} in data["items"]
    assert {"name": "At gå mahjong", "points": 20, "count": 1} in data["items"]
    assert data["total"] == 96 and data["settlement"] == {"east": -192, "others": -96}


# --------------------------------------------------------------------------------------------------
# ## Point: the point table, open and concealed


@pytest.mark.parametrize("name, value, earns, other", [
    ("Pung af 2...8, åben", 2, "[2'22m] 345m 678p 123s 9s +9s", "222m 345m 678p 123s 9s +9s"),
    ("Pung af 2...8, skjult", 4, "222m 345m 678p 123s 9s +9s", "[2'22m] 345m 678p 123s 9s +9s"),
    ("Pung af 1, 9, vinde og drager, åben", 4, "[1'11m] 345m 678p 123s 9s +9s", "111m 345m 678p 123s 9s +9s"),
    ("Pung af 1, 9, vinde og drager, skjult", 8, "111m 345m 678p 123s 9s +9s", "[1'11m] 345m 678p 123s 9s +9s"),
    ("Kong af 2...8, åben", 8, "[2222'm] 345m 678p 123s 9s +9s", "(2222m) 345m 678p 123s 9s +9s"),
    ("Kong af 2...8, skjult", 16, "(2222m) 345m 678p 123s 9s +9s", "[2222'm] 345m 678p 123s 9s +9s"),
    ("Kong af 1, 9, vinde og drager, åben", 16, "[9999'm] 345m 678p 123s 9s +9s", "(9999m) 345m 678p 123s 9s +9s"),
    ("Kong af 1, 9, vinde og drager, skjult", 32, "(9999m) 345m 678p 123s 9s +9s", "[9999'm] 345m 678p 123s 9s +9s"),
])
def test_point_table(name, value, earns, other):
    assert items(score(earns + " | seat=S"))[name] == (value, 1)
    result = score(other + " | seat=S")
    assert result.valid and name not in items(result)


def test_a_pung_completed_by_a_claimed_tile_is_open_and_by_a_drawn_tile_concealed():
    claimed = items(score("22m 345m 678p 123s 99s +2m | seat=S"))
    drawn = items(score("22m 345m 678p 123s 99s +2m | seat=S self_drawn"))
    assert claimed["Pung af 2...8, åben"] == (2, 1) and "Pung af 2...8, skjult" not in claimed
    assert drawn["Pung af 2...8, skjult"] == (4, 1) and "Pung af 2...8, åben" not in drawn


def test_twenty_for_mahjong_only_for_a_mahjong():
    assert items(score("123m 456p 789s 123s 9s +9s | seat=S"))["At gå mahjong"] == (20, 1)
    assert "At gå mahjong" not in items(score("123m 456p 789s 123s 9s | seat=S"))


# --------------------------------------------------------------------------------------------------
# ## To point


@pytest.mark.parametrize("name, earns, other", [
    ("Par af egen vind", "123m 456m 789p 123s 3z +3z | seat=W", "123m 456m 789p 123s 3z +3z | seat=S"),
    ("Par af drager", "123m 456m 789p 123s 5z +5z | seat=S", "123m 456m 789p 123s 9s +9s | seat=S"),
    ("Par af rundens vind", "123m 456m 789p 123s 1z +1z | seat=S", "123m 456m 789p 123s 1z +1z | seat=S prevalent=N"),
    ("At gå mahjong det eneste mulige sted", "123m 456m 789p 123s 5s +5s | seat=S",
     "123m 456m 789p 23s 55s +1s | seat=S"),
    ("At gå mahjong med en sten fra væggen", "123m 456m 789p 23s 55s +1s | seat=S self_drawn",
     "123m 456m 789p 23s 55s +1s | seat=S"),
    ("At gå mahjong ved at færdiggøre spurvens hoved", "123m 456m 789p 123s 5s +5s | seat=S",
     "123m 456m 789p 23s 55s +1s | seat=S"),
    ("At punge eller konge første udspil fra øst", "[2'22m] 456m 789p 123s 5s +5s | seat=S danish_claimed_east_first_discard",
     "[2'22m] 456m 789p 123s 5s +5s | seat=S"),
])
def test_two_point_items(name, earns, other):
    assert items(score(earns))[name] == (2, 1)
    result = score(other)
    assert result.valid and name not in items(result)


def test_own_wind_that_is_the_rounds_wind_counts_twice():
    found = items(score("123m 456m 789p 123s 2z +2z | seat=S prevalent=S"))
    assert found["Par af egen vind"] == (2, 1) and found["Par af rundens vind"] == (2, 1)
    pung = items(score("[2'22z] 456m 789p 123s 5s +5s | seat=S prevalent=S"))
    assert pung["Pung/kong af egen vind"] == (1, 1) and pung["Pung/kong af rundens vind"] == (1, 1)


def test_a_non_winner_counts_its_pairs_and_the_first_discard_claim():
    found = items(score("[2'22m] 55z 77z 147p 369s | seat=S danish_claimed_east_first_discard"))
    assert found["Par af drager"] == (2, 2) and found["At punge eller konge første udspil fra øst"] == (2, 1)


def test_a_loose_tile_is_drawn_from_the_wall():
    found = items(score("123m 456m 789m 5s [5555'p] +5s | seat=S kong_replacement"))
    assert found["At gå mahjong med en sten fra væggen"] == (2, 1)


# --------------------------------------------------------------------------------------------------
# ## Fordoblinger: Altid en fordobling


@pytest.mark.parametrize("name, count, earns, other", [
    ("Pung/kong af drager", 1, "[5'55z] 456m 789p 123s 9s +9s | seat=S", "55z 456m 789p 123s 99s +9s | seat=S"),
    ("Pung/kong af drager", 2, "[5'55z] (6666z) 123s 789p 9s +9s | seat=S", "[5'55z] 123m 789p 123s 9s +9s | seat=S"),
    ("Pung/kong af egen vind", 1, "[3'33z] 456m 789p 123s 9s +9s | seat=W", "[3'33z] 456m 789p 123s 9s +9s | seat=S"),
    ("Pung/kong af rundens vind", 1, "[4'44z] 456m 789p 123s 9s +9s | seat=S prevalent=N",
     "[4'44z] 456m 789p 123s 9s +9s | seat=S prevalent=E"),
])
def test_always_one_doubling(name, count, earns, other):
    assert items(score(earns))[name] == (1, count)
    result = score(other)
    assert result.valid and items(result).get(name, (1, 0))[1] < count


def test_always_doublings_count_for_a_hand_that_neither_won_nor_fishes():
    result = score("[5'55z] 111m 99p 246s 13z | seat=S")
    assert not is_fishing(parse_hand("[5'55z] 111m 99p 246s 13z | seat=S"))
    assert items(result)["Pung/kong af drager"] == (1, 1)
    assert "Én række" not in items(result) and "Ingen chows" not in items(result)


# --------------------------------------------------------------------------------------------------
# ### Fiske eller mahjong: one doubling


@pytest.mark.parametrize("name, earns, other", [
    ("Én række", "123m 456m 789m 2m [1'11z] +2m | seat=S", "123m 456p 789m 2m [1'11z] +2m | seat=S"),
    ("Ingen chows", "[2'22m] 333p 444s 666m 8p +8p | seat=S", "[2'22m] 345p 444s 666m 8p +8p | seat=S"),
    ("At gå mahjong med sidste brik fra muren", "123m 456m 789p 23s 55s +1s | seat=S last_tile self_drawn",
     "123m 456m 789p 23s 55s +1s | seat=S last_tile"),
    ("At gå mahjong med en løs brik", "123m 456m 789m 5s [5555'p] +5s | seat=S kong_replacement",
     "123m 456m 789m 5s [5555'p] +5s | seat=S self_drawn"),
    ("At stjæle en kong", "123m 456m 78m 99p [2'22s] +9m | seat=S robbing_kong", "123m 456m 78m 99p [2'22s] +9m | seat=S"),
])
def test_fishing_or_mahjong_one_doubling(name, earns, other):
    assert items(score(earns))[name] == (1, 1)
    result = score(other)
    assert result.valid and name not in items(result)


def test_pattern_doublings_need_a_fishing_or_mahjong_hand():
    fishing = items(score("[2'22m] 333p 444s 666m 8p | seat=S"))          # fishing on 8p
    not_fishing = items(score("[2'22m] 333p 444s 66m 8p 1s | seat=S"))   # two tiles away
    assert fishing["Ingen chows"] == (1, 1) and fishing["Ren hånd"] == (2, 1)
    assert "Ingen chows" not in not_fishing and "Ren hånd" not in not_fishing


# --------------------------------------------------------------------------------------------------
# ### Fiske eller mahjong: two doublings


def test_clean_hand_no_dragons_or_winds():
    assert items(score("123m 456p 789s 123s 9s +9s | seat=S"))["Ren hånd"] == (2, 1)
    assert "Ren hånd" not in items(score("123m 456p 789s 123s 5z +5z | seat=S"))
    pure = items(score("123m 456m 789m 234m 9m +9m | seat=S"))
    assert pure["Ren hånd"] == (2, 1) and pure["Én række"] == (1, 1)  # three doublings for a pure suit


def test_clean_hand_option_one_suit():
    assert "Ren hånd" not in items(score("123m 456p 789s 123s 9s +9s | seat=S danish_clean_hand=one_suit"))
    assert items(score("123m 456m 789m 234m 9m +9m | seat=S danish_clean_hand=one_suit"))["Ren hånd"] == (2, 1)


def test_only_officers():
    found = items(score("[1'11m] [9'99p] [1'11s] 111z 9m +9m | seat=S prevalent=S"))
    assert found["Kun officerer"] == (2, 1) and found["Ingen chows"] == (1, 1)
    assert "Kun officerer" not in items(score("[1'11m] [9'99p] [2'22s] 111z 9m +9m | seat=S prevalent=S"))


def test_concealed_mahjong_all_from_the_wall_no_kongs():
    assert items(score("123m 456m 789p 123s 5s +5s | seat=S self_drawn"))["Skjult mahjong"] == (2, 1)
    assert "Skjult mahjong" not in items(score("123m 456m 789p 123s 5s +5s | seat=S"))  # claimed last tile
    assert "Skjult mahjong" not in items(score("(2222m) 456m 789p 123s 5s +5s | seat=S self_drawn"))  # a kong
    assert "Skjult mahjong" not in items(score("[1'23m] 456m 789p 123s 5s +5s | seat=S self_drawn"))  # a meld


def test_concealed_fishing_needs_two_chows():
    assert items(score("123m 456m 222s 23p 55s | seat=S"))["Skjult mahjong"] == (2, 1)
    one_chow = items(score("123m 222p 333s 444m 5s | seat=S"))
    assert "Skjult mahjong" not in one_chow


def test_concealed_hand_without_points_gets_ten():
    # "Hvis hånden ikke giver point tildeles 10 point": 10 x 2**(Ren hånd 2 + Skjult mahjong 2) = 160
    result = score("123m 456m 789m 23p 55s | seat=S")
    assert items(result)["Skjult mahjong: hånden giver ingen point"] == (10, 1)
    assert (result.base, result.doubles, result.total) == (10, 4, 160)
    # a concealed pung gives points: no 10; 4 x 2**4 = 64
    with_points = score("123m 456m 222s 23p 55s | seat=S")
    assert "Skjult mahjong: hånden giver ingen point" not in items(with_points) and with_points.total == 64
    # not concealed (an exposed chow): no doubling, no 10
    assert "Skjult mahjong: hånden giver ingen point" not in items(score("[1'23m] 456m 789m 23p 55s | seat=S"))


# --------------------------------------------------------------------------------------------------
# The limit: 1000, 2000 for East


def test_limit_1000_and_2000_for_east():
    # 32 + 32 + 4 + 20 + 2 + 2 + 2 = 94; dragons 2 + round wind 1 + Én række 1 = 4; 94 x 16 = 1504 -> 1000
    south = score("(5555z) (6666z) [1'11z] 234m 9m +9m | seat=S self_drawn")
    assert (south.base, south.doubles, south.total) == (94, 4, 1000)
    # East: own wind too (5) and East's doubling (6): 94 x 64 -> 2000
    east = score("(5555z) (6666z) [1'11z] 234m 9m +9m | seat=E self_drawn")
    assert (east.base, east.doubles, east.total) == (94, 6, 2000)
    assert items(east)["Øst betaler og modtager dobbelt"] == (1, 1)


def test_east_option_off_caps_at_2000_without_doubling():
    result = score("(5555z) (6666z) [1'11z] 234m 9m +9m | seat=E self_drawn danish_east_double=false")
    assert (result.doubles, result.total) == (5, 2000) and "Øst betaler og modtager dobbelt" not in items(result)
    small = score("123m 456p 789s [5'55m] 9s +9s | seat=E danish_east_double=false")
    assert small.total == 96


# --------------------------------------------------------------------------------------------------
# The special-hands table: every row, its mahjong value (concealed and open) and its fishing value


SPECIALS = [
    # name, concealed mahjong, open mahjong (None: must be concealed; the hand then is no such hand),
    # fishing hand, near miss (a hand that must not be it)
    ("Kun konger", "(2222m) (3333m) (4444m) (1111z) 8m +8m | seat=S prevalent=S",
     "[2222'm] [3333'm] [4444'm] [1111'z] 8m +8m | seat=S prevalent=S",
     "[2222'm] [3333'm] [4444'm] [1111'z] 8m | seat=S prevalent=S",
     "[2222'm] [3333'p] [4444'm] [1111'z] 8m +8m | seat=S prevalent=S"),
    ("Kinesiske ulige", "111333555m 777m 9m +9m | seat=S", "[1'11m] 333555777m 9m +9m | seat=S",
     "[1'11m] 333555777m 9m | seat=S", "111333555m 777m 8m +8m | seat=S"),
    ("Vinde & drager", "111222333z 555z 6z +6z | seat=N prevalent=N", "[1'11z] 222333555z 6z +6z | seat=N prevalent=N",
     "[1'11z] [2'22z] [3'33z] 5577z | seat=N prevalent=N", "[1'11z] [2'22z] [3'33z] 55z 99m +9m | seat=N prevalent=N"),
    ("Fire velsignelser", "111222333444z 9m +9m | seat=S", "[1'11z] 222333444z 9m +9m | seat=S",
     "[1'11z] 222333444z 9m | seat=S", "[1'11z] 222333z 444m 9m +9m | seat=S"),
    ("Tre store vismænd", "555666777z 123m 9m +9m | seat=S", "[5'55z] 666777z 123m 9m +9m | seat=S",
     "[5'55z] 666777z 123m 9m | seat=S", "[5'55z] 666z 77z 123m 99m +9m | seat=S"),
    ("Rød lilje", "555777z 555999s 1s +1s | seat=S", "[5'55z] 777z 555999s 1s +1s | seat=S",
     "[5'55z] 777z 555999s 1s | seat=S", "555777z 555888s 1s +1s | seat=S"),
    ("Dalens lilje", "555666z 222888s 6s +6s | seat=S", "[5'55z] 666z 222888s 6s +6s | seat=S",
     "[5'55z] 666z 222888s 6s | seat=S", "555666z 222999s 6s +6s | seat=S"),
    ("Kejserlig jade", "666z 234s 234s 666s 8s +8s | seat=S", "[6'66z] 234s 234s 666s 8s +8s | seat=S",
     "[6'66z] 234s 234s 666s 8s | seat=S", "66z 234s 234s 666s 88s +8s | seat=S"),
    ("Kongelig rubin", "777z 111555999s 7s +7s | seat=S", "[7'77z] 111555999s 7s +7s | seat=S",
     "[7'77z] 111555999s 7s | seat=S", "777z 111555999s 6s +6s | seat=S"),
    ("Rubin jade", "777z 666z 555s 222s 9s +9s | seat=S", "[7'77z] 666z 555s 222s 9s +9s | seat=S",
     "[7'77z] 666z 555s 222s 9s | seat=S", "777z 666z 555s 777s 9s +9s | seat=S"),
    ("Par", "1122334455p 667z +7z | seat=S", None, "1122334455p 667z | seat=S", "11223344m 5566p 7z +7z | seat=S"),
    ("Himmelske tvillinger", "1122334455667m +7m | seat=S", None, "1122334455667m | seat=S",
     "1122334455m 667z +7z | seat=S"),
    ("Spurvens reservat", "111s 2233446688s +1s | seat=S", None, "111s 2233446688s | seat=S",
     "1199s 22334466s 8s +8s | seat=S"),
    ("Jade par", "2233446688s 666z +6z | seat=S", None, "2244668888s 666z | seat=S", "2233446699s 666z +6z | seat=S"),
    ("Rubin jade par", "2233446677s 66z 7z +7z | seat=S", None, "2233446677s 66z 7z | seat=S",
     "2233446677s 66z 5z +5z | seat=S"),
    ("Forblæste drager", "555666z 1122334z +4z | seat=S", "[5'55z] 666z 1122334z +4z | seat=S",
     "555666z 1122334z | seat=S", "555z 666m 1122334z +4z | seat=S"),
    ("Himlens porte", "1112345678999m +5m | seat=S", None, "1112345678899m | seat=S", "1112345678999m +1m | seat=S"),
    ("Løb, pung & par", "123456789m 555m 1m +1m | seat=S", None, "123456789m 555m 1m | seat=S",
     "123456789m 555p 1p +1p | seat=S"),
    ("Rød lanterne", "777z 222z 1234567p +1p | seat=S", "[7'77z] 222z 1234567p +1p | seat=S",
     "[7'77z] 222z 1234567p | seat=S", "777z 222z 1234567p +1p | seat=W"),
    ("Snoende slange", "123456789s 1234z +1z | seat=S", None, "123456789s 1234z | seat=S",
     "123456789s 1235z +1z | seat=S"),
    ("Blandede pungen", "222m 333p 444s 555m 6s +6s | seat=S self_drawn",
     "[2'22m] 333p 444s 555m 6s +6s | seat=S self_drawn", "222m 333p 444s 555m 6s | seat=S",
     "222m 333p 444s 555m 6s +6s | seat=S"),
    ("1'ere & 9'ere", "111m 999p 111s 999s 1p +1p | seat=S", "[1'11m] 999p 111s 999s 1p +1p | seat=S",
     "[1'11m] 999p 111s 999s 1p | seat=S danish_clean_hand=one_suit", "111m 999p 111s 999s 5z +5z | seat=S"),
    ("13° af den kejserlige skat", "19m 19p 19s 1234567z +1m | seat=S", None, "19m 19p 19s 1234567z | seat=S",
     "19m 19p 18s 1234567z +1m | seat=S"),
    ("Par i officerer", "1199m 1199p 11s 556z +6z | seat=S", None, "1199m 1199p 11s 556z | seat=S",
     "1199m 1199p 22s 556z +6z | seat=S"),
    ("Strikke", "1133557m 113355p +7p | seat=S", None, "1133557m 113355p | seat=S", "1133557m 113355s +7p | seat=S"),
    ("Trippel strik", "13579m 1357p 1357s +9p | seat=S", None, "13579m 1357p 1357s | seat=S",
     "13579m 1357p 1357s +8p | seat=S"),
    ("Guldsmed", "567z 222m 333p 444s 5s +5s | seat=S", "567z [2'22m] 333p 444s 5s +5s | seat=S",
     "567z [2'22m] 333p 444s 5s | seat=S", "567z 222m 333p 444p 5s +5s | seat=S"),
    ("Forblæste 9'ere", "999m 999p 999s 1234z +1z | seat=S", "[9'99m] 999p 999s 1234z +1z | seat=S",
     "[9'99m] 999p 999s 1234z | seat=S", "999m 999p 888s 1234z +1z | seat=S"),
    ("Forblæste 1'ere", "111m 111p 111s 1234z +1z | seat=S", "[1'11m] 111p 111s 1234z +1z | seat=S",
     "[1'11m] 111p 111s 1234z | seat=S", "111m 111p 111s 1235z +5z | seat=S"),
    ("Forblæste chows", "123m 456p 789s 1234z +4z | seat=S", "[1'23m] 456p 789s 1234z +4z | seat=S",
     "[1'23m] 456p 789s 1234z | seat=S", "123m 456m 789s 1234z +4z | seat=S"),
]


def test_the_table_has_every_row_of_the_book():
    assert [row.name for row in book.SPECIAL_HANDS] == [name for name, *_ in SPECIALS]
    assert len(book.SPECIAL_HANDS) == 30


@pytest.mark.parametrize("name, concealed, open_, fishing, miss", SPECIALS, ids=[s[0] for s in SPECIALS])
def test_special_hand_mahjong_concealed(name, concealed, open_, fishing, miss):
    row = book.special(name)
    result = score(concealed)
    assert result.valid and items(result) == {name: (row.concealed, 1)}
    assert result.total == row.concealed and result.doubles == 0
    assert is_mahjong(parse_hand(concealed))


@pytest.mark.parametrize("name, concealed, open_, fishing, miss", [s for s in SPECIALS if s[2] is not None],
                         ids=[s[0] for s in SPECIALS if s[2] is not None])
def test_special_hand_mahjong_open(name, concealed, open_, fishing, miss):
    row = book.special(name)
    result = score(open_)
    if row.open is None:  # "s:": exposed, it is not this hand
        assert name not in items(result)
    else:
        assert items(result) == {name: (row.open, 1)} and result.total == row.open


@pytest.mark.parametrize("name, concealed, open_, fishing, miss", SPECIALS, ids=[s[0] for s in SPECIALS])
def test_special_hand_fishing_value(name, concealed, open_, fishing, miss):
    row = book.special(name)
    hand = parse_hand(fishing)
    assert is_fishing(hand)
    result = RULES.score(hand)
    assert items(result) == {name + " (fiske)": (row.fishing, 1)} and result.total == row.fishing


@pytest.mark.parametrize("name, concealed, open_, fishing, miss", SPECIALS, ids=[s[0] for s in SPECIALS])
def test_special_hand_near_miss(name, concealed, open_, fishing, miss):
    result = score(miss)
    assert name not in items(result)
    assert not any(n.startswith(name) for n in items(result))


@pytest.mark.parametrize("name, concealed_value, open_value, fishing", [
    ("Kun konger", 1000, 1000, 400), ("Kinesiske ulige", 1000, 1000, 400), ("Vinde & drager", 1000, 1000, 400),
    ("Fire velsignelser", 1000, 1000, 1000), ("Tre store vismænd", 1000, 1000, 1000),
    ("Rød lilje", 2000, 2000, 500), ("Dalens lilje", 2000, 2000, 500), ("Kejserlig jade", 2000, 2000, 500),
    ("Kongelig rubin", 2000, 2000, 500), ("Rubin jade", 1000, 1000, 400), ("Par", 500, None, 200),
    ("Himmelske tvillinger", 1000, None, 400), ("Spurvens reservat", 1000, None, 400), ("Jade par", 1000, None, 400),
    ("Rubin jade par", 1000, None, 400), ("Forblæste drager", 1000, None, 400), ("Himlens porte", 1000, None, 400),
    ("Løb, pung & par", 1000, None, 400), ("Rød lanterne", 2000, 1000, 500), ("Snoende slange", 1000, None, 400),
    ("Blandede pungen", 1000, None, 400), ("1'ere & 9'ere", 1000, 1000, 400),
    ("13° af den kejserlige skat", 2000, None, 500), ("Par i officerer", 1000, None, 400), ("Strikke", 500, None, 200),
    ("Trippel strik", 500, None, 200), ("Guldsmed", 1000, 500, 400), ("Forblæste 9'ere", 1000, 500, 400),
    ("Forblæste 1'ere", 1000, 500, 400), ("Forblæste chows", 1000, 500, 400),
])
def test_special_values_are_the_books(name, concealed_value, open_value, fishing):
    # "å: V" -> V open or concealed; "s: V" -> V concealed only; "s: V1 å: V2" -> V1 concealed, V2 open
    row = book.special(name)
    assert (row.value(concealed=True), row.value(concealed=False), row.fishing) == (concealed_value, open_value, fishing)
    assert name in row.line


def test_three_dragons_footnote_even_when_not_fishing():
    # "†1000 point hvis man har en p/k i hver drage, selv om man ikke fisker."
    hand = parse_hand("[5'55z] 666777z 147m 9p | seat=S")
    assert not is_fishing(hand)
    assert items(RULES.score(hand)) == {"Tre store vismænd (p/k i hver drage)": (1000, 1)}
    assert RULES.score(parse_hand("[5'55z] 666z 77z 147m 9p 1s | seat=S")).total < 1000
    # a mahjong all the more, even one the one-suit rule keeps from being "Tre store vismænd"
    assert score("555666777z 123m 9p +9p | seat=S").total == 1000


def test_special_or_normal_the_higher_counts():
    # "1'ere & 9'ere" fishing is worth 400, but the hand counts more as a normal fishing hand:
    # 4 + 8 + 8 + 8 = 28 points; Ingen chows 1 + Ren hånd 2 + Kun officerer 2 = 5 doublings; 28 x 32 = 896
    result = score("[1'11m] 999p 111s 999s 1p | seat=S")
    assert (result.base, result.doubles, result.total) == (28, 5, 896)
    assert "1'ere & 9'ere (fiske)" not in items(result)


def test_blandede_pungen_needs_the_last_tile_from_the_wall():
    assert score("222m 333p 444s 555m 6s +6s | seat=S self_drawn").total == 1000
    # claimed: 16 + 2 (pair) + 20 = 38 ... x 2**(Ingen chows 1 + Ren hånd 2) = 304
    assert score("222m 333p 444s 555m 6s +6s | seat=S").total == 304


def test_concealed_special_may_be_won_on_a_discard():
    assert score("1122334455667m +7m | seat=S").total == 1000  # not self-drawn: still "s: 1000"


def test_unmixed_rows_are_one_suit_and_the_option_turns_it_off():
    mixed_pairs = "11223344m 5566p 7z +7z | seat=S"
    assert score(mixed_pairs).error.code == "not_mahjong"
    assert items(score(mixed_pairs + " danish_unmixed_one_suit=false")) == {"Par": (500, 1)}
    mixed_kongs = "[2222'm] [3333'p] [4444'm] [1111'z] 8m +8m | seat=S prevalent=S"
    assert items(score(mixed_kongs + " danish_unmixed_one_suit=false")) == {"Kun konger": (1000, 1)}


def test_red_bamboo_option():
    assert score("555777z 555999s 1s +1s | seat=S").total == 2000
    assert "Rød lilje" not in items(score("555777z 555999s 1s +1s | seat=S danish_red_bamboo=579"))
    assert score("555777z 555999s 7s +7s | seat=S danish_red_bamboo=579").total == 2000


def test_the_narrower_row_wins_a_tie():
    assert items(score("111s 2233446688s +1s | seat=S")) == {"Spurvens reservat": (1000, 1)}  # also Himmelske tvillinger
    assert items(score("1122334455667m +7m | seat=S")) == {"Himmelske tvillinger": (1000, 1)}  # also Par (500)


def test_special_hands_are_doubled_for_east():
    result = score("555777z 555999s 1s +1s | seat=E")
    assert result.total == 4000 and items(result)["Øst betaler og modtager dobbelt"] == (1, 1)


# --------------------------------------------------------------------------------------------------
# Særlige hænder


@pytest.mark.parametrize("name, value, earns, other", [
    ("Himlens ynde", 2000, "123m 456m 789m 234p 5s +5s | seat=E first_turn self_drawn",
     "123m 456m 789m 234p 5s +5s | seat=S first_turn self_drawn"),
    ("Jordens ynde", 1000, "123m 456m 789m 234p 5s +5s | seat=S danish_east_first_discard",
     "123m 456m 789m 234p 5s +5s | seat=S"),
    ("At plukke blommeblomsten fra taget", 1000, "123m 456m 789m 5p [1111'z] +5p | seat=S kong_replacement",
     "123m 456m 789m 5s [1111'z] +5s | seat=S kong_replacement"),
    ("At hente månen fra bunden af havet", 1000, "123m 456m 789s 234p 1p +1p | seat=S last_tile self_drawn",
     "123m 456m 789s 234p 1p +1p | seat=S last_tile"),
])
def test_blessings(name, value, earns, other):
    result = score(earns)
    assert items(result) == {name: (value, 1)} and result.total == value
    result = score(other)
    assert result.valid and name not in items(result)


def test_heavens_blessing_is_easts_figure_not_doubled_again():
    result = score("123m 456m 789m 234p 5s +5s | seat=E first_turn self_drawn")
    assert result.total == 2000 and "Øst betaler og modtager dobbelt" not in items(result)


def test_contradictory_context_is_refused():
    assert score("123m 456m 789m 234p 5s +5s | seat=E danish_east_first_discard").error.code == "impossible_context"
    assert score("123m 456m 789m 234p 5s +5s | seat=S robbing_kong self_drawn").error.code == "impossible_context"
    assert score("123m 456m 789m 234p 5s +5s | seat=S kong_replacement").error.code == "impossible_context"
    assert score("123m 456m 789m 234p 5s +5s | seat=S danish_clean_hand=maybe").error.code == "bad_context"


# --------------------------------------------------------------------------------------------------
# Any player's hand: non-winners, fishing, waits


def test_non_winner_scores_melds_concealed_pungs_and_pairs():
    # open dragon pung 4 + concealed pung of 1m 8 = 12; dragon pung 1 doubling; 12 x 2 = 24
    result = score("[5'55z] 111m 99p 246s 13z | seat=S")
    assert (result.base, result.doubles, result.total) == (12, 1, 24)
    assert "At gå mahjong" not in items(result)
    assert "Not fishing" in result.notes[-1]


def test_fishing_hand_gets_fishing_doublings():
    # concealed pung 222s 4; fishing on 1p/4p: Ren hånd 2 + Skjult mahjong 2 (two chows held); 4 x 16 = 64
    result = score("123m 456m 222s 23p 55s | seat=S")
    assert (result.base, result.doubles, result.total) == (4, 4, 64)
    assert result.notes[-1] == "Fishing ('fisker') on 1p, 4p."


def test_fishing_tiles_is_the_shared_waits():
    for text, waits in [
        ("123m 456m 789m 23p 55s", ["1p", "4p"]),
        ("123m 456m 789m 111p 5s", ["5s"]),
        ("1122334455667m", ["1m", "4m", "7m"]),                        # Himmelske tvillinger or chows
        ("19m 19p 19s 1234567z", ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]),
        ("123456789s 1234z", ["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "1z", "2z", "3z", "4z"]),
        ("555666z 1122334z", ["4z"]),                                  # Forblæste drager
        ("11223344m 5566p 7z", []),                                    # mixed seven pairs: no danish hand
        ("123m 456m 789m 29p 55s", []),
    ]:
        hand = parse_hand(text)
        assert codes(fishing_tiles(hand)) == waits, text
        assert codes(waiting_tiles(hand, "danish")) == waits
        assert is_fishing(hand) == bool(waits)


def test_fishing_tiles_of_a_winning_hand_are_those_before_its_last_tile():
    assert codes(fishing_tiles(parse_hand("123m 456p 789s [5'55m] 9s +9s"))) == ["6s", "9s"]


def test_is_mahjong_shapes():
    assert RULES.is_mahjong(parse_hand("123m 456m 789m 234p 5s +5s"))
    assert RULES.is_mahjong(parse_hand("19m 19p 19s 1234567z +1m"))
    assert not RULES.is_mahjong(parse_hand("123m 456m 789m 234p 5s"))            # 13 tiles
    assert not RULES.is_mahjong(parse_hand("123m 456m 789m 235p 5s +5s"))
    assert not RULES.is_mahjong(parse_hand("[5'55z] 666z 1122334z +4z"))          # "s:" hand, exposed
    assert not RULES.is_mahjong(parse_hand("11223344m 5566p 7z +7z"))             # mixed seven pairs


def test_fishing_for_a_special_hand_only():
    # not regular: fishing only for "Snoende slange"; held points none
    result = score("123456789s 1234z | seat=S")
    assert items(result) == {"Snoende slange (fiske)": (400, 1)}


# --------------------------------------------------------------------------------------------------
# ## Strafregler


def test_false_mahjong_is_invalid():
    result = score("123m 456m 789m 235p 5s +5s | seat=S")
    assert not result.valid and result.error.code == "not_mahjong" and "500" in result.error.message


def test_too_many_tiles_scores_nothing():
    result = score("[5'55z] 111m 99p 246s 13z | seat=S danish_wrong_count=too_many")
    assert not result.valid and result.error.code == "too_many_tiles" and result.total == 0
    winner = score("123m 456m 789m 234p 5s +5s | seat=S danish_wrong_count=too_many")
    assert winner.error.code == "too_many_tiles" and winner.total == 0
    assert score_tiles(["123m", "456m", "789m", "1112p", "5s"]).error.code == "too_many_tiles"


def test_too_few_tiles_no_mahjong_no_fishing_points_as_usual():
    fishing = score("123m 456m 222s 23p 55s | seat=S")
    short = score("123m 456m 222s 23p 55s | seat=S danish_wrong_count=too_few")
    assert fishing.total == 64 and short.valid and short.total == 4  # the concealed pung, no doublings
    winner = score("123m 456m 789m 234p 5s +5s | seat=S danish_wrong_count=too_few")
    assert winner.error.code == "too_few_tiles" and "At gå mahjong" not in items(winner)
    # twelve loose tiles: 555z concealed 8, a dragon doubling; 8 x 2 = 16
    loose = score_tiles(["555z", "123m", "456p", "99s", "1s"], context=Context(seat_wind=S))
    assert loose.valid and loose.total == 16 and loose.notes[-1].startswith("Too few")
    assert score_tiles(["555z", "123m", "456p", "99s", "1s", "1s"], winning_tile="1s").error.code == "too_few_tiles"


# --------------------------------------------------------------------------------------------------
# Payments


def _table(hands: dict[Wind, str], **kwargs) -> Table:
    return Table.build({seat: parse_hand(text) for seat, text in hands.items()}, **kwargs)


LOSERS = {E: "[2'22m] 147m 258p 369s 1z",       # 2 points, East: 2 x 2 = 4
          W: "555z 19m 19p 19s 1367z",          # 8 x 2 = 16
          N: "[5'55z] 147m 258p 369s 1s"}       # 4 x 2 = 8
WINNER = "123m 456m 789m 234p 5s +5s"            # 24 x 4 = 96


def test_winner_paid_by_all_east_double_losers_settle():
    result = settle(_table({**LOSERS, S: WINNER}, winner=S, discarder=W), "danish")
    assert [(seat.value, s.total) for seat, s in result.scores] == [("E", 4), ("S", 96), ("W", 16), ("N", 8)]
    paid = [(p.payer.value, p.payee.value, p.amount) for p in result.payments]
    # values (East's halved): E 2, S 96, W 16, N 8. East pays the winner double (2 x 96), the others 96;
    # the losers: E->W 2 x (16 - 2) = 28, E->N 2 x (8 - 2) = 12, N->W 16 - 8 = 8
    assert paid == [("E", "S", 192), ("W", "S", 96), ("N", "S", 96), ("E", "W", 28), ("E", "N", 12), ("N", "W", 8)]
    assert result.net() == {"E": -232, "S": 384, "W": -60, "N": -92} and sum(result.net().values()) == 0


def test_east_wins_and_receives_double():
    hands = {E: WINNER, S: "19m 19p 19s 1234567z", W: LOSERS[W], N: LOSERS[N]}
    result = settle(_table(hands, winner=E, discarder=N), "danish")
    east = dict(result.scores)[E]
    assert east.total == 192  # 24 x 2**(2 + 1)
    assert [(p.payer.value, p.amount) for p in result.payments[:3]] == [("S", 192), ("W", 192), ("N", 192)]
    assert sum(result.net().values()) == 0


def test_only_the_winner_is_paid_when_losers_do_not_settle():
    hands = {seat: text + " | danish_losers_settle=false" for seat, text in {**LOSERS, S: WINNER}.items()}
    result = settle(_table(hands, winner=S, discarder=W), "danish")
    assert result.net() == {"E": -192, "S": 384, "W": -96, "N": -96}


def test_table_options_must_agree():
    hands = {**LOSERS, S: WINNER + " | danish_east_double=false"}
    with pytest.raises(HandError, match="disagree"):
        settle(_table(hands, winner=S, discarder=W), "danish")


def test_drawn_deal_settles_differences_or_pays_nothing():
    hands = {**LOSERS, S: "123m 456m 789m 23p 55s"}  # fishing: 10 x 16 = 160
    result = settle(_table(hands, winner=None), "danish")
    net = result.net()
    assert net["S"] == (160 - 2) * 2 + (160 - 16) + (160 - 8) and sum(net.values()) == 0
    off = {seat: text + " | danish_draw_settles=no" for seat, text in hands.items()}
    assert settle(_table(off, winner=None), "danish").payments == ()


def test_three_players():
    hands = {E: LOSERS[E], S: WINNER, W: LOSERS[W]}
    result = settle(_table(hands, winner=S, discarder=W), "danish")
    assert result.net() == {"E": -220, "S": 288, "W": -68}


def test_false_mahjong_pays_500_to_each_who_revealed():
    hands = {E: LOSERS[E] + " | danish_revealed", S: "123m 456m 789m 235p 5s +5s", W: LOSERS[W] + " | danish_revealed",
             N: LOSERS[N]}
    result = settle(_table(hands, winner=S, discarder=W), "danish")
    assert result.net() == {"E": 500, "S": -1000, "W": 500, "N": 0}
    assert "False mahjong" in result.notes[0]
    nobody = {**hands, E: LOSERS[E], W: LOSERS[W]}
    assert settle(_table(nobody, winner=S, discarder=W), "danish").payments == ()


def test_a_player_with_too_many_tiles_is_worth_nothing_but_pays():
    hands = {**LOSERS, S: WINNER, W: LOSERS[W] + " | danish_wrong_count=too_many"}
    result = settle(_table(hands, winner=S, discarder=W), "danish")
    assert result.net()["W"] == -(96 + 4 + 8)  # pays the winner and both other losers


def test_cli_score_and_settle(cli, tmp_path):
    run = cli("score", "--rules", "danish", "--json", "--notation", "123m 456p 789s [5'55m] 9s +9s | seat=S")
    assert run.status == 0 and json.loads(run.out)["total"] == 96
    players = [{"seat": "E", "hand": {"concealed": ["1m", "4m", "7m", "2p", "5p", "8p", "3s", "6s", "9s", "1z"],
                                      "melds": [{"kind": "pung", "tiles": ["2m", "2m", "2m"]}]}},
               {"seat": "S", "hand": {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m",
                                                    "2p", "3p", "4p", "5s", "5s"], "winning_tile": "5s"}},
               {"seat": "W", "hand": {"concealed": ["5z", "5z", "5z", "1m", "9m", "1p", "9p", "1s", "9s",
                                                    "1z", "3z", "6z", "7z"]}}]
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"players": players, "winner": "S", "discarder": "W"}))
    run = cli("settle", "--rules", "danish", "--json", str(path))
    assert run.status == 0 and json.loads(run.out)["net"] == {"E": -220, "S": 288, "W": -68}


# --------------------------------------------------------------------------------------------------
# Worked hands, the arithmetic written out


@pytest.mark.parametrize("text, base, doubles, total", [
    # 1. open pung of 5m 2 + mahjong 20 + completing the pair (9s) 2 = 24; Ren hånd 2 -> 24 x 4 = 96
    ("123m 456p 789s [5'55m] 9s +9s | seat=S", 24, 2, 96),
    # 2. concealed chows, self-drawn single wait: 20 + only place 2 + from the wall 2 + pair 2 = 26;
    #    Ren hånd 2 + Skjult mahjong 2 = 4 -> 26 x 16 = 416
    ("123m 456m 789m 234p 5s +5s | seat=S self_drawn", 26, 4, 416),
    # 3. concealed kongs of White and Green 32 + 32, open pung of East 4, mahjong 20, only place 2, wall 2,
    #    pair 2 = 94; dragons 2 + round wind 1 + Én række 1 = 4 -> 94 x 16 = 1504, limit 1000
    ("(5555z) (6666z) [1'11z] 234m 9m +9m | seat=S self_drawn", 94, 4, 1000),
    # 4. the same for East: own wind 1 more, East 1 more = 6 -> 94 x 64 = 6016, East's limit 2000
    ("(5555z) (6666z) [1'11z] 234m 9m +9m | seat=E self_drawn", 94, 6, 2000),
    # 5. no chows: open 2m 2, concealed 3p 4s 6m 4 + 4 + 4, mahjong 20, only place 2, pair 2 = 38;
    #    Ingen chows 1 + Ren hånd 2 = 3 -> 38 x 8 = 304
    ("[2'22m] 333p 444s 666m 8p +8p | seat=S", 38, 3, 304),
    # 6. open Red 4 + open South (own wind) 4 + 20 + only place 2 + pair 2 = 32; dragon 1 + own wind 1 -> 128
    ("[7'77z] [2'22z] 123m 789p 9s +9s | seat=S", 32, 2, 128),
    # 7. loose tile after a kong: open kong of 5p 8 + 20 + only place 2 + wall 2 + pair 2 = 34;
    #    loose tile 1 + Ren hånd 2 = 3 -> 34 x 8 = 272
    ("123m 456m 789m 5s [5555'p] +5s | seat=S kong_replacement", 34, 3, 272),
    # 8. robbing a kong: open pung 2s 2 + 20 = 22 (9m completes 789m: 6m would too, so not the only place);
    #    robbing 1 + Ren hånd 2 = 3 -> 22 x 8 = 176
    ("123m 456m 78m 99p [2'22s] +9m | seat=S robbing_kong", 22, 3, 176),
    # 9. the wall's last tile, drawn: 20 + wall 2 + pair 2 = 24 (2p also completes: not the only place);
    #    last tile 1 + Ren hånd 2 + Skjult mahjong 2 = 5 -> 24 x 32 = 768
    ("123m 456m 789s 234p 5p +5p | seat=S last_tile self_drawn", 24, 5, 768),
    # 10. a pair of the wind that is both own and round: 20 + 2 + 2 + only place 2 + pair 2 = 28; no doubling
    ("123m 456m 789p 123s 2z +2z | seat=S prevalent=S", 28, 0, 28),
    # 11. the same shape for East in the East round: 28; East 1 -> 56
    ("123m 456m 789p 123s 1z +1z | seat=E prevalent=E", 28, 1, 56),
    # 12. a hand that neither won nor fishes: open Red 4 + concealed 1m 8 = 12; dragon 1 -> 24
    ("[5'55z] 111m 99p 246s 13z | seat=S", 12, 1, 24),
    # 13. the same hand for East: 12; dragon 1 + East 1 -> 48
    ("[5'55z] 111m 99p 246s 13z | seat=E", 12, 2, 48),
    # 14. a concealed fishing hand without points: 10; Ren hånd 2 + Skjult mahjong 2 -> 160
    ("123m 456m 789m 23p 55s | seat=S", 10, 4, 160),
    # 15. a special hand: "Rød lanterne", concealed -> s: 2000
    ("777z 222z 1234567p +1p | seat=S", 2000, 0, 2000),
    # 16. a special fishing hand, open: "Rød lanterne" fiske 500 (the normal count, 4 + 8 = 12 x 2**3 = 96, is less)
    ("[7'77z] 222z 1234567p | seat=S", 500, 0, 500),
])
def test_worked_hands(text, base, doubles, total):
    result = score(text)
    assert result.valid, result.error
    assert (result.base, result.doubles, result.total) == (base, doubles, total)
    assert result.base == sum(i.points * i.count for i in result.items if i.points is not None)
    assert result.doubles == sum(i.doubles * i.count for i in result.items if i.doubles is not None)


def test_flowers_score_nothing_but_are_noted():
    result = score("123m 456p 789s [5'55m] 9s 15f +9s | seat=S")
    assert result.total == 96 and "flowers" in result.notes[0]


def test_tile_type_is_what_the_api_uses():
    assert isinstance(fishing_tiles(parse_hand("123m 456m 789m 23p 55s"))[0], Tile)
