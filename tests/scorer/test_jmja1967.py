"""The jmja1967 rule set (seed 004: Japan Mah-Jong Association rules of 1967, Finnish translation).

Every item and table row of the book, each with a hand that earns it and one that must not; every limit
hand; both payment tables row by row; worked hands with the arithmetic in comments; non-winners' hands.
Hands are in the text notation (scorer/notation.py). Seat and round default to East.
"""

import json

import pytest

from scorer.errors import HandError
from scorer.jmja1967 import RULE_SET
from scorer.jmja1967.catalog import DOUBLINGS, GROUP_TABLE, LIMITS, POINTS, group_points, round_points
from scorer.jmja1967.settlement import FOUR_PLAYERS, PAYMENT_MAXIMUM, THREE_PLAYERS, payment_maximum
from scorer.notation import parse_hand
from scorer.rules import RULE_SETS
from scorer.table import Table, settle
from scorer.tiles import Wind
from scorer.waits import waiting_tiles

from tests.conftest import assert_readable

E, S, W, N = Wind.EAST, Wind.SOUTH, Wind.WEST, Wind.NORTH


def score(text):
    return RULE_SET.score(parse_hand(text))


def items(text):
    """name -> (points or doubles, count) of a valid hand."""
    result = score(text)
    assert result.valid, result.error
    return {i.name: (i.points if i.points is not None else i.doubles, i.count) for i in result.items}


def total(text):
    result = score(text)
    assert result.valid, result.error
    return result.total


# Item names, as the results give them
MAHJONG = "Mahjong"
FROM_WALL = "Mahjong tile from the wall"
ONLY = "Only possible tile"
CONCEALED_CLAIMED = "Mahjong from the hand, last tile claimed"
LUCKY = "Pung or kong of dragons, own wind or round wind"
LUCKY_DOUBLE = "Pung or kong of the double wind"
FROM_HAND = "Mahjong from the hand"
PONG_GAME = "Pong game (four pongs or kongs, 0-2 of them concealed)"
PONG_GAME_3 = "Pong game with three concealed pongs or kongs"
THREE_AND_CHOW = "Three concealed pongs or kongs and a chow"
LAST_WALL = "Mahjong tile is the last tile of the wall"
LAST_DISCARD = "Mahjong tile is the last discard"
DEAD_WALL = "Replacement tile from the dead wall"
ROBBING = "Robbing the kong"
STRAIGHT = "Three consecutive chows 1-9 of one suit"
WORTHLESS = "Worthless hand"
NO_VALUE = "No value tiles"
ALL_VALUE = "All value tiles"
EVERY_GROUP = "Value tiles in every group"
HALF_FLUSH = "Half flush"
FULL_FLUSH = "Full flush"
LITTLE_DRAGONS = "Three little dragons"


# --------------------------------------------------------------------------------------------------
# The registry and the catalogue


def test_registered_with_its_keys_and_options():
    assert RULE_SETS["jmja1967"] is RULE_SET
    assert RULE_SET.scores_every_hand is False  # "vain voittajalle maksetaan"
    keys = {k.key: k for k in RULE_SET.context_keys}
    for spec_key in ("self_drawn", "seat_wind", "prevalent_wind", "dealer", "last_tile", "kong_replacement",
                     "robbing_kong", "first_turn"):
        assert spec_key in keys
    assert keys["jmja1967_rounding"].default == "nearest" and keys["jmja1967_rounding"].choices == ("nearest", "up")
    assert keys["jmja1967_claimed_pong_concealed"].default is False
    assert keys["jmja1967_three_player_self_draw"].default == "east_2_other_1"
    assert keys["jmja1967_false_calls"].default == 0 and keys["jmja1967_wrong_draws"].default == 0
    assert all(k.key.startswith("jmja1967_") for k in RULE_SET.context_keys if k.key not in (
        "self_drawn", "seat_wind", "prevalent_wind", "dealer", "last_tile", "kong_replacement", "robbing_kong",
        "first_turn"))


def test_catalogue_values_are_the_books():
    assert [(r.key, r.value) for r in POINTS] == [
        ("mahjong", 20), ("from_wall", 2), ("only_possible", 2), ("concealed_claimed", 10)]
    assert {r.key: r.value for r in DOUBLINGS} == {
        "lucky_group": 1, "double_wind_group": 2, "concealed_self_drawn": 1, "pong_game": 1,
        "pong_game_three_concealed": 2, "three_concealed_and_chow": 1, "last_wall_tile": 1, "last_discard": 1,
        "dead_wall": 1, "robbing_kong": 1, "pure_straight": 1, "worthless": 1, "no_value_tiles": 1,
        "all_value_tiles": 1, "value_in_every_group": 1, "half_flush": 1, "full_flush": 4,
        "three_little_dragons": 1}
    assert [r.key for r in LIMITS] == [
        "three_great_dragons", "four_little_blessings", "four_great_blessings", "all_honours", "all_terminals",
        "hidden_treasure", "heavenly_blessing", "earthly_blessing", "nine_gates", "thirteen_orphans"]
    assert all(r.value == 500 for r in LIMITS)


# --------------------------------------------------------------------------------------------------
# The group table: "tavalliset -24 816 / reunatiilet, vieras tuuli -48 1632 /
# lohikäärmeet, oma tuuli, erän tuuli 248 1632 / kaksoistuuli 448 1632"


@pytest.mark.parametrize("row, cells", [
    ("ordinary", (0, 2, 4, 8, 16)),
    ("terminal", (0, 4, 8, 16, 32)),
    ("valued", (2, 4, 8, 16, 32)),
    ("double_wind", (4, 4, 8, 16, 32)),
])
def test_group_table_rows(row, cells):
    assert (group_points("pair", row, True), group_points("pung", row, False), group_points("pung", row, True),
            group_points("kong", row, False), group_points("kong", row, True)) == cells
    assert group_points("chow", row, True) == 0
    assert row in GROUP_TABLE


# Each cell with a hand that earns it: 234p 567p 345s, the group, and a pair won on a claimed tile.
@pytest.mark.parametrize("group, pair, context, name, points", [
    # tavalliset: pong 2 / 4, kong 8 / 16
    ("[5'55m]", "9s", "", "Pung of ordinary tiles, exposed", 2),
    ("555m", "9s", "", "Pung of ordinary tiles, concealed", 4),
    ("[5555'm]", "9s", "", "Kong of ordinary tiles, exposed", 8),
    ("(5555m)", "9s", "", "Kong of ordinary tiles, concealed", 16),
    # reunatiilet: pong 4 / 8, kong 16 / 32
    ("[1'11m]", "9s", "", "Pung of terminals or other wind, exposed", 4),
    ("999m", "9s", "", "Pung of terminals or other wind, concealed", 8),
    ("[9999'm]", "9s", "", "Kong of terminals or other wind, exposed", 16),
    ("(1111m)", "9s", "", "Kong of terminals or other wind, concealed", 32),
    # vieras tuuli (North for South in an East round) is in the same row
    ("[4'44z]", "9s", "seat=S", "Pung of terminals or other wind, exposed", 4),
    ("(4444z)", "9s", "seat=S", "Kong of terminals or other wind, concealed", 32),
    # lohikäärmeet, oma tuuli, erän tuuli: pair 2, pong 4 / 8, kong 16 / 32
    ("[6'66z]", "9s", "", "Pung of dragons, own wind or round wind, exposed", 4),
    ("222z", "9s", "seat=S", "Pung of dragons, own wind or round wind, concealed", 8),
    ("[1111'z]", "9s", "seat=S", "Kong of dragons, own wind or round wind, exposed", 16),
    ("(7777z)", "9s", "", "Kong of dragons, own wind or round wind, concealed", 32),
    ("[5'55m]", "7z", "", "Pair of dragons, own wind or round wind", 2),
    ("[5'55m]", "2z", "seat=S", "Pair of dragons, own wind or round wind", 2),   # own wind
    ("[5'55m]", "1z", "seat=S", "Pair of dragons, own wind or round wind", 2),   # round wind
    # kaksoistuuli: pair 4, pong 4 / 8, kong 16 / 32
    ("[5'55m]", "2z", "seat=S prevalent=S", "Pair of the double wind", 4),
    ("[1'11z]", "9s", "", "Pung of the double wind, exposed", 4),
    ("333z", "9s", "seat=W prevalent=W", "Pung of the double wind, concealed", 8),
    ("[4444'z]", "9s", "seat=N prevalent=N", "Kong of the double wind, exposed", 16),
    ("(1111z)", "9s", "", "Kong of the double wind, concealed", 32),
])
def test_group_table_cells_in_hands(group, pair, context, name, points):
    # the pair is completed by a claimed tile, so a standing pong stays concealed
    text = f"234p 567p 345s {group} {pair} +{pair} | {context}"
    found = items(text)
    assert found[name] == (points, 1), found


@pytest.mark.parametrize("pair, context", [
    ("66m", ""),            # tavalliset: "-"
    ("99m", ""),            # reunatiilet: "-"
    ("44z", "seat=S"),      # vieras tuuli: "-"
])
def test_pairs_that_score_nothing(pair, context):
    found = items(f"234p 567p 345s [5'55m] {pair[0]}{pair[-1]} +{pair[0]}{pair[-1]} | {context}")
    assert not [name for name in found if name.startswith("Pair")]


def test_a_chow_scores_no_points():
    found = items("234p 567p 345s [3'45m] 9s +9s")
    assert not [name for name in found if name.startswith(("Pung", "Kong", "Pair"))]


# --------------------------------------------------------------------------------------------------
# Basic points: "mahjong 20, ryhmille taulukon mukaan, viimeinen tiili muurista 2, ainoa mahdollisuus 2,
# mahjong kädestä, viimeinen tiili huudettu 10"


def test_mahjong_20_for_the_winner_only():
    assert items("234p 567p 345s [5'55m] 9s +9s")[MAHJONG] == (20, 1)
    assert MAHJONG not in items("234p 567p 345s [5'55m] 9s")


def test_mahjong_tile_from_the_wall_2():
    assert items("234p 567p 345s [5'55m] 9s +9s | self_drawn")[FROM_WALL] == (2, 1)
    assert FROM_WALL not in items("234p 567p 345s [5'55m] 9s +9s")


def test_only_possible_tile_2():
    assert items("234p 567p 345s [5'55m] 9s +9s")[ONLY] == (2, 1)   # single wait: 9s only
    assert items("234p 567p 79s [5'55m] 55z +8s")[ONLY] == (2, 1)   # closed wait: 8s only
    assert items("234p 567p 12s [5'55m] 55z +3s")[ONLY] == (2, 1)   # edge wait: 3s only
    assert ONLY not in items("234p 567p 67s [5'55m] 55z +8s")       # 5s or 8s


def test_only_possible_counts_tile_kinds_as_scorer_waits_does():
    before = parse_hand("234p 567p 345s [5'55m] 9s")
    assert [t.code for t in waiting_tiles(before, "jmja1967")] == ["9s"]
    # 5556s: 4s 6s 7s, or the pair; not one possibility
    assert ONLY not in items("234p 567p 789s 5556m +6m")
    assert ONLY not in items("234p 567p 345s 55z 99m +9m")          # shanpon: 5z or 9m


def test_mahjong_from_the_hand_with_the_last_tile_claimed_10():
    assert items("234p 567p 345s 555m 9s +9s")[CONCEALED_CLAIMED] == (10, 1)
    assert items("234p 567p 345s (5555m) 9s +9s")[CONCEALED_CLAIMED] == (10, 1)  # a concealed kong is "kädestä"
    assert CONCEALED_CLAIMED not in items("234p 567p 345s [5'55m] 9s +9s")      # an exposed meld
    assert CONCEALED_CLAIMED not in items("234p 567p 345s 555m 9s +9s | self_drawn")  # drawn: a doubling instead


# --------------------------------------------------------------------------------------------------
# Doublings: lucky groups ("onnelliset ryhmät")


def test_lucky_group_dragon_own_and_round_wind_pong_or_kong_1_each():
    assert items("234p 567p [6'66z] 777z 9s +9s")[LUCKY] == (1, 2)
    assert items("234p 567p 345s [2'22z] 9s +9s | seat=S")[LUCKY] == (1, 1)        # own wind
    assert items("234p 567p 345s [1'11z] 9s +9s | seat=S")[LUCKY] == (1, 1)        # round wind
    assert items("234p 567p 345s [5555'z] 9s +9s")[LUCKY] == (1, 1)                # a kong too
    assert LUCKY not in items("234p 567p 345s [4'44z] 9s +9s | seat=S")            # other wind
    assert LUCKY not in items("234p 567p 345s [5'55m] 7z +7z")                    # a pair is no pong


def test_double_wind_pong_2_and_not_also_the_single_lucky_group():
    found = items("234p 567p 345s [2'22z] 9s +9s | seat=S prevalent=S")
    assert found[LUCKY_DOUBLE] == (2, 1) and LUCKY not in found
    assert LUCKY_DOUBLE not in items("234p 567p 345s [2'22z] 9s +9s | seat=S")


def test_mahjong_from_the_hand_1_when_the_last_tile_too_is_from_the_hand():
    assert items("234p 567p 345s 555m 9s +9s | self_drawn")[FROM_HAND] == (1, 1)
    assert items("234p 567p 345s (5555m) 9s +9s | self_drawn")[FROM_HAND] == (1, 1)
    assert FROM_HAND not in items("234p 567p 345s 555m 9s +9s")                  # claimed: 10 points instead
    assert FROM_HAND not in items("234p 567p 345s [5'55m] 9s +9s | self_drawn")  # an exposed meld


# --------------------------------------------------------------------------------------------------
# Group combinations ("ryhmäyhdistelmät")


def test_pong_game_with_0_1_2_concealed_pongs_1():
    assert items("[2'22m] [3'33p] [4'44s] [6'66s] 9s +9s")[PONG_GAME] == (1, 1)        # 0 concealed
    assert items("222m [3'33p] [4'44s] [6'66s] 9s +9s")[PONG_GAME] == (1, 1)           # 1 concealed
    assert items("222m 333p [4'44s] [6'66s] 9s +9s")[PONG_GAME] == (1, 1)              # 2 concealed
    assert PONG_GAME not in items("222m 333p [4'44s] [6'78s] 9s +9s")                  # a chow


def test_pong_game_with_three_concealed_pongs_2():
    found = items("222m 333p (4444s) [6'66s] 9s +9s")
    assert found[PONG_GAME_3] == (2, 1) and PONG_GAME not in found
    # the claimed tile completes the 6s pong: exposed ("kokonaan kädestä" it is not), so 3 concealed
    found = items("222m 333p 444s 66s 99s +6s")
    assert found[PONG_GAME_3] == (2, 1)
    assert PONG_GAME_3 not in items("222m 333p [4'44s] [6'66s] 9s +9s")


def test_four_concealed_pongs_is_the_hidden_treasure_not_a_pong_game_row():
    assert items("222m 333p 444s 666s 9s +9s") == {"Hidden treasure": (500, 1)}


def test_three_concealed_pongs_and_a_chow_1():
    assert items("222m 333p 444s [6'78s] 9s +9s")[THREE_AND_CHOW] == (1, 1)
    assert items("222m 333p (4444s) 678s 9s +9s | self_drawn")[THREE_AND_CHOW] == (1, 1)
    assert THREE_AND_CHOW not in items("222m 333p [4'44s] [6'78s] 9s +9s")            # two concealed
    assert THREE_AND_CHOW not in items("222m 333p 44s 678s 99s +4s")                  # 4s pong claimed: two


# --------------------------------------------------------------------------------------------------
# Ways of mahjong ("mahjongtavat")


def test_last_tile_of_the_wall_1():
    found = items("234p 567p 345s [5'55m] 9s +9s | self_drawn last_tile")
    assert found[LAST_WALL] == (1, 1) and LAST_DISCARD not in found
    assert LAST_WALL not in items("234p 567p 345s [5'55m] 9s +9s | self_drawn")


def test_last_discard_1():
    found = items("234p 567p 345s [5'55m] 9s +9s | last_tile")
    assert found[LAST_DISCARD] == (1, 1) and LAST_WALL not in found
    assert LAST_DISCARD not in items("234p 567p 345s [5'55m] 9s +9s")


def test_replacement_tile_from_the_dead_wall_1():
    found = items("234p 567p 345s [5555'm] 9s +9s | self_drawn kong_replacement")
    assert found[DEAD_WALL] == (1, 1) and found[FROM_WALL] == (2, 1)
    assert DEAD_WALL not in items("234p 567p 345s [5555'm] 9s +9s | self_drawn")


def test_robbing_the_kong_1():
    assert items("234p 567p 67s [5'55m] 55z +8s | robbing_kong")[ROBBING] == (1, 1)
    assert ROBBING not in items("234p 567p 67s [5'55m] 55z +8s")


def test_three_consecutive_chows_1_to_9_of_one_suit_1():
    assert items("123m 456m 789m 234p 9s +9s")[STRAIGHT] == (1, 1)
    assert items("[1'23m] 456m 789m 234p 9s +9s")[STRAIGHT] == (1, 1)    # an exposed chow counts
    assert STRAIGHT not in items("123m 456p 789m 234p 9s +9s")           # two suits
    assert STRAIGHT not in items("234m 567m 789m 234p 9s +9s")           # not 1-9


# --------------------------------------------------------------------------------------------------
# The worthless hand ("arvoton käsi"): "1. 4 tsaoa 2. pari ei ole kunnianarvoisia (saa olla vieras tuuli)
# 3. viimeinen tiili ei ole ainoa mahdollisuus 4. viimeinen tiili ei ole muurista, paitsi jos muut tiilet
# ovat kaikki kädestä = peruspisteet joko 20 tai 30"

WORTHLESS_HAND = "234m 567p 345s 99p 78s +6s"   # four chows, a plain pair, waiting on 6s or 9s


def test_worthless_hand_concealed_claimed_base_30():
    result = score(WORTHLESS_HAND)
    assert dict((i.name, i.doubles) for i in result.items)[WORTHLESS] == 1
    assert result.base == 30 and result.doubles == 1 and result.total == 60


def test_worthless_hand_exposed_claimed_base_20():
    result = score("234m 567p [3'45s] 99p 78s +6s")
    assert WORTHLESS in {i.name for i in result.items}
    assert result.base == 20 and result.total == 40


def test_worthless_hand_concealed_drawn_base_20_without_the_2_for_the_wall():
    result = score(WORTHLESS_HAND + " | self_drawn")
    names = {i.name for i in result.items}
    assert WORTHLESS in names and FROM_HAND in names and FROM_WALL not in names
    assert result.base == 20 and result.doubles == 2 and result.total == 80
    assert "20 or 30" in result.notes[0]


def test_worthless_condition_1_four_chows():
    assert WORTHLESS not in items("234m 567p [3'33s] 99p 78s +6s")


def test_worthless_condition_2_the_pair_is_no_honour_but_may_be_an_other_wind():
    assert WORTHLESS not in items("234m 567p 345s 77z 78s +6s")                 # dragon
    assert WORTHLESS not in items("234m 567p 345s 33z 78s +6s | seat=W")        # own wind
    assert WORTHLESS not in items("234m 567p 345s 11z 78s +6s | seat=W")        # round wind
    assert WORTHLESS in items("234m 567p 345s 33z 78s +6s | seat=S")            # other wind: allowed
    assert WORTHLESS in items("234m 567p 345s 11m 78s +6s")                     # a terminal pair: allowed


def test_worthless_condition_3_not_the_only_possible_tile():
    assert WORTHLESS not in items("234m 567p 345s 99p 79s +8s")                 # closed wait
    assert WORTHLESS not in items("234m 567p 345s 678s 9p +9p")                 # single wait


def test_worthless_condition_4_not_from_the_wall_unless_all_else_from_the_hand():
    assert WORTHLESS not in items("234m 567p [3'45s] 99p 78s +6s | self_drawn")
    result = score("234m 567p [3'45s] 99p 78s +6s | self_drawn")
    assert result.base == 22 and result.total == 20   # 20 + 2, no doubling, to the nearest ten


# --------------------------------------------------------------------------------------------------
# Composition ("koostumus")


def test_no_value_tiles_1():
    assert items("234m 567p 345s 88p 78s +6s")[NO_VALUE] == (1, 1)
    assert NO_VALUE not in items("234m 567p 345s 99p 78s +6s")     # a 9
    assert NO_VALUE not in items("234m 567p 345s 33z 78s +6s")     # a wind


def test_all_value_tiles_1():
    found = items("111m 999p [1'11s] 777z 2z +2z")
    assert found[ALL_VALUE] == (1, 1)
    assert ALL_VALUE not in items("111m 999p [1'11s] 777z 5s +5s")


def test_value_tiles_in_every_group_1_pair_included():
    assert items("123m 789p 789s [1'11z] 9s +9s")[EVERY_GROUP] == (1, 1)
    assert EVERY_GROUP not in items("123m 789p 789s [1'11z] 5s +5s")     # the pair has none
    assert EVERY_GROUP not in items("123m 678p 789s [1'11z] 9s +9s")     # a chow has none


def test_all_value_tiles_also_has_value_tiles_in_every_group():
    found = items("111m 999p [1'11s] 777z 2z +2z")
    assert found[ALL_VALUE] == (1, 1) and found[EVERY_GROUP] == (1, 1)


def test_half_flush_1():
    assert items("123m 456m 789m 5z [7'77z] +5z")[HALF_FLUSH] == (1, 1)
    assert HALF_FLUSH not in items("123m 456m 789p 5z [7'77z] +5z")     # two suits
    assert HALF_FLUSH not in items("123m 456m 789m 1m [2'34m] +1m")     # no honours: a full flush


def test_full_flush_4():
    found = items("123m 456m 789m 1m [2'34m] +1m")
    assert found[FULL_FLUSH] == (4, 1) and HALF_FLUSH not in found
    assert FULL_FLUSH not in items("123m 456m 789m 5z [7'77z] +5z")


def test_three_little_dragons_1():
    found = items("[555z] [6'66z] 77z 123m 45m +6m | seat=S")
    assert found[LITTLE_DRAGONS] == (1, 1) and found[LUCKY] == (1, 2)
    assert LITTLE_DRAGONS not in items("[555z] 234p 77z 123m 45m +6m")    # one dragon pong


# --------------------------------------------------------------------------------------------------
# Limit hands ("maksimikädet"): 500


def limit_of(text):
    result = score(text)
    assert result.valid, result.error
    return result.items[0].name if result.total == 500 and result.items[0].points == 500 else None


@pytest.mark.parametrize("text, name", [
    ("[555z] [6'66z] 777z 123m 4m +4m", "Three great dragons"),
    ("[111z] [2'22z] 333z 4z 123m +4z", "Four little blessings"),
    ("[111z] [2'22z] 333z 444z 2m +2m", "Four great blessings"),
    ("[111z] [2'22z] 555z 666z 7z +7z", "All honours"),
    ("[111m] [9'99p] 111s 999s 1p +1p", "All terminals"),
    ("222m 333p 444s 666s 9s +9s", "Hidden treasure"),
    ("222m 333p 444s 66s 99s +6s | self_drawn", "Hidden treasure"),
    ("123m 456p 789s 234s 5p +5p | first_turn dealer self_drawn", "Heavenly blessing"),
    ("123m 456p 789s 234s 5p +5p | first_turn seat=S", "Earthly blessing"),
    ("123m 456p 789s 234s 5p +5p | first_turn seat=W self_drawn", "Earthly blessing"),
    ("1112345678999m +5m", "Nine gates"),
    ("1112345678999p +9p | self_drawn", "Nine gates"),
    ("19m 19p 19s 1234567z +1z", "Thirteen orphans"),
    ("19m 19p 19s 12345z 77z +6z", "Thirteen orphans"),
])
def test_limit_hands(text, name):
    assert limit_of(text) == name
    result = score(text)
    assert (result.base, result.doubles, result.total) == (500, 0, 500)


@pytest.mark.parametrize("text", [
    "[555z] [6'66z] 77z 123m 45m +6m",                   # two dragon pongs and a pair: three little dragons
    "[111z] [2'22z] 33z 123m 45m +6m",                   # two wind pongs and a wind pair
    "[111z] [2'22z] 555z 666z 1m +1m",                   # honours but a terminal pair
    "[111m] [9'99p] 111s 789s 1p +1p",                   # terminals but a chow
    "222m 333p 444s 66s 99s +6s",                        # the claimed 6s completes a pong: three concealed
    "123m 456p 789s 234s 5p +5p | first_turn dealer",    # East claimed: not "from the deal"
    "123m 456p [7'89s] 234s 5p +5p | first_turn seat=S",  # a meld: not in the first go-around
    "1112345567899m +9m",                                # 9 gates' tiles, but not the nine-sided wait
    "123m 456p 789s 234s 5p +5p | seat=S",               # no first_turn
])
def test_near_limit_hands_are_not_limits(text):
    assert limit_of(text) is None


def test_hidden_treasure_with_the_claimed_pong_option():
    assert limit_of("222m 333p 444s 66s 99s +6s | jmja1967_claimed_pong_concealed") == "Hidden treasure"


def test_a_hand_that_is_two_limit_hands_is_worth_500_once():
    result = score("[111z] [2'22z] 333z 444z 5z +5z")   # four great blessings, all honours
    assert result.total == 500 and len(result.items) == 1
    assert any("All honours" in note for note in result.notes)


def test_nine_gates_needs_no_meld():
    assert limit_of("(1111m) 2345678999m +5m") is None


# --------------------------------------------------------------------------------------------------
# What a mahjong is


@pytest.mark.parametrize("text, expected", [
    ("123m 456p 789s 234s 5p +5p", True),
    ("1112345678999m +1m", True),
    ("19m 19p 19s 1234567z +9s", True),
    ("1122m 3344p 5566s 7z +7z", False),    # seven pairs: not in the book
    ("123m 456p 789s 234s 5p +6p", False),
    ("123m 456p 789s 234s 5p", False),      # no winning tile
])
def test_is_mahjong(text, expected):
    assert RULE_SET.is_mahjong(parse_hand(text)) is expected


def test_waits_use_is_mahjong():
    assert [t.code for t in waiting_tiles(parse_hand("1112345678999p"), "jmja1967")] == [
        f"{n}p" for n in range(1, 10)]
    assert len(waiting_tiles(parse_hand("19m 19p 19s 1234567z"), "jmja1967")) == 13
    assert [t.code for t in waiting_tiles(parse_hand("19m 19p 19s 12345z 77z"), "jmja1967")] == ["6z"]


# --------------------------------------------------------------------------------------------------
# Invalid hands


def test_not_mahjong_is_invalid_with_a_clear_message():
    result = score("1122m 3344p 5566s 7z +7z")
    assert not result.valid and result.error.code == "not_mahjong"
    assert "four groups" in result.error.message
    assert result.to_dict()["valid"] is False


def test_holy_discard_is_invalid():
    result = score("234p 567p 345s [5'55m] 9s +9s | jmja1967_sacred_discard")
    assert result.error.code == "sacred_discard"


@pytest.mark.parametrize("text, code", [
    ("234p 567p 67s [5'55m] 55z +8s | robbing_kong self_drawn", "impossible_context"),
    ("234p 567p 78s [5'55m] 88s +8s | robbing_kong", "impossible_context"),   # another 8s in the hand
    ("234p 567p 345s [5555'm] 9s +9s | kong_replacement", "impossible_context"),
    ("234p 567p 345s [5'55m] 9s +9s | self_drawn kong_replacement", "impossible_context"),
    ("234p 567p 345s [5'55m] 9s +9s | self_drawn jmja1967_sacred_discard", "impossible_context"),
    ("234p 567p 345s [5'55m] 9s +9s | jmja1967_rounding=down", "bad_context"),
    ("234p 567p 345s [5'55m] 9s +9s | jmja1967_false_calls=-1", "bad_context"),
])
def test_impossible_contexts(text, code):
    result = score(text)
    assert not result.valid and result.error.code == code
    assert_readable(HandError(result.error.code, result.error.message))


# --------------------------------------------------------------------------------------------------
# Rounding ("lähimpään kymmeneen") and the maximum ("pisteiden maksimi on 500")


def test_rounding_to_the_nearest_ten():
    assert [round_points(n) for n in (20, 22, 24, 26, 28, 30, 44, 48, 112, 224)] == [
        20, 20, 20, 30, 30, 30, 40, 50, 110, 220]
    assert [round_points(n, "up") for n in (20, 22, 24, 26, 30)] == [20, 30, 30, 30, 30]


def test_rounding_option_in_a_hand():
    text = "234p 567p 345s [5'55m] 9s +9s | seat=W"   # 20 + 2 + 2 = 24
    assert total(text) == 20
    assert total(text + " jmja1967_rounding=up") == 30


def test_maximum_500():
    result = score("111m 999p 555s 22z 11z +1z")   # 54 x 2^4 = 864
    assert result.base == 54 and result.doubles == 4 and result.total == 500
    assert any("maximum" in note for note in result.notes)


# --------------------------------------------------------------------------------------------------
# Worked hands, the arithmetic written out


def test_worked_1_worthless_concealed_claimed():
    # 234m 567p 345s 678s 99p, won on a claimed 6s (two-sided wait 6s/9s), South seat.
    # basic: mahjong 20 + from the hand, last tile claimed 10 = 30; doublings: worthless 1.
    # 30 x 2 = 60 -> 60
    result = score("234m 567p 345s 99p 78s +6s | seat=S")
    assert (result.base, result.doubles, result.total) == (30, 1, 60)


def test_worked_2_worthless_concealed_drawn():
    # The same tiles drawn: basic 20 (the worthless hand's base is 20 or 30: no 2 for the wall);
    # doublings: mahjong from the hand 1 + worthless 1 = 2. 20 x 4 = 80.
    result = score("234m 567p 345s 99p 78s +6s | seat=S self_drawn")
    assert (result.base, result.doubles, result.total) == (20, 2, 80)


def test_worked_3_dragon_pong_straight_half_flush():
    # 123m 456m 789m, exposed Red pong, pair of White won on it (single wait), South seat.
    # basic: 20 + Red pong exposed 4 + White pair 2 + only possible 2 = 28
    # doublings: lucky group (Red) 1 + straight 1-9 1 + half flush 1 = 3
    # 28 x 8 = 224 -> nearest ten 220
    result = score("123m 456m 789m 5z [7'77z] +5z | seat=S")
    assert (result.base, result.doubles, result.total) == (28, 3, 220)


def test_worked_4_pong_game_over_the_maximum():
    # 111m 999p 555s concealed, 22z pair, 11z + claimed 1z (shanpon: 1z or 2z), East in the East round.
    # basic: 20 + 1m pong concealed 8 + 9p pong concealed 8 + 5s pong concealed 4 + East pong (claimed:
    #        exposed, double wind) 4 + from the hand, last tile claimed 10 = 54   (South pair: other wind, 0)
    # doublings: double wind pong 2 + pong game with three concealed 2 = 4
    # 54 x 16 = 864 -> maximum 500
    result = score("111m 999p 555s 22z 11z +1z")
    assert (result.base, result.doubles, result.total) == (54, 4, 500)


def test_worked_5_all_simples_rounded_up_to_the_nearest_ten():
    # Exposed 5m pong, 234p 678s 345s, 8p pair won on a claimed 8p (single wait), West seat.
    # basic: 20 + 5m pong exposed 2 + only possible 2 = 24; doublings: no value tiles 1.
    # 24 x 2 = 48 -> nearest ten 50
    result = score("[5'55m] 234p 678s 345s 8p +8p | seat=W")
    assert (result.base, result.doubles, result.total) == (24, 1, 50)


def test_worked_6_exposed_kong_all_simples():
    # Exposed 5m kong, 234p 678s 345s, 8p pair on a claimed 8p, West seat.
    # basic: 20 + 5m kong exposed 8 + only possible 2 = 30; doublings: no value tiles 1. 30 x 2 = 60.
    result = score("[5555'm] 234p 678s 345s 8p +8p | seat=W")
    assert (result.base, result.doubles, result.total) == (30, 1, 60)


def test_worked_7_three_little_dragons():
    # Exposed White and Green pongs, Red pair, 123m, 45m + claimed 6m (3m or 6m), South seat.
    # basic: 20 + White pong exposed 4 + Green pong exposed 4 + Red pair 2 = 30
    # doublings: lucky groups 2 + three little dragons 1 + half flush 1 = 4
    # 30 x 16 = 480 -> 480
    result = score("[555z] [6'66z] 77z 123m 45m +6m | seat=S")
    assert (result.base, result.doubles, result.total) == (30, 4, 480)


def test_worked_8_east_self_drawn_double_wind_pair():
    # East in the East round: 234m 567m, 111p concealed, pairs 11z and 99s; draws the 9s (1z or 9s).
    # basic: 20 + 1p pong concealed 8 + 9s pong concealed (drawn) 8 + East pair (double wind) 4
    #        + from the wall 2 = 42
    # doublings: mahjong from the hand 1. 42 x 2 = 84 -> 80. Each of the three pays 2 x 80 = 160.
    result = score("234m 567m 111p 11z 99s +9s | self_drawn")
    assert (result.base, result.doubles, result.total) == (42, 1, 80)
    assert dict(result.settlement) == {"winner": 480, "discarder": None, "others": -160}


def test_worked_9_replacement_tile_from_the_dead_wall():
    # North in the South round: exposed 2p kong, 345m 678m 456s, Red pair drawn as the kong's
    # replacement tile (single wait).
    # basic: 20 + 2p kong exposed 8 + Red pair 2 + from the wall 2 + only possible 2 = 34
    # doublings: replacement tile from the dead wall 1. 34 x 2 = 68 -> 70.
    result = score("[2222'p] 345m 678m 456s 7z +7z | self_drawn kong_replacement seat=N prevalent=S")
    assert (result.base, result.doubles, result.total) == (34, 1, 70)


def test_worked_10_robbing_the_kong():
    # South: 123p 678m 456s, Red pair, 45m; robs a 3m added to another player's pong (3m or 6m).
    # basic: 20 + Red pair 2 + from the hand, last tile claimed 10 = 32; doublings: robbing the kong 1.
    # 32 x 2 = 64 -> 60
    result = score("123p 678m 456s 77z 45m +3m | robbing_kong seat=S")
    assert (result.base, result.doubles, result.total) == (32, 1, 60)


def test_worked_11_last_discard_three_concealed_pongs_and_a_chow():
    # South: 222m 444p 666s concealed, 789s, 5p claimed as the game's last discard (waits 3p 5p 6p).
    # basic: 20 + three ordinary pongs concealed 4+4+4 + from the hand, last tile claimed 10 = 42
    # doublings: last discard 1 + three concealed pongs and a chow 1 = 2. 42 x 4 = 168 -> 170.
    result = score("222m 444p 666s 789s 5p +5p | last_tile seat=S")
    assert (result.base, result.doubles, result.total) == (42, 2, 170)


def test_worked_12_terminals_and_honours_over_the_maximum():
    # South: 111m 999p concealed, exposed 1s pong, South pong concealed, White pair won on a claimed White.
    # basic: 20 + 1m 8 + 9p 8 + 1s exposed 4 + South (own wind) concealed 8 + White pair 2 + only possible 2 = 52
    # doublings: lucky group 1 + pong game with three concealed 2 + all value tiles 1 + every group 1 = 5
    # 52 x 32 = 1664 -> maximum 500
    result = score("111m 999p [1'11s] 222z 5z +5z | seat=S")
    assert (result.base, result.doubles, result.total) == (52, 5, 500)


def test_worked_13_non_winner():
    # East in the East round, not the winner: exposed East kong (double wind) 16, White pong standing
    # (concealed) 8, Green pair 2, the rest loose: base 26.
    # doublings: double wind kong 2 + White pong 1 = 3. 26 x 8 = 208 -> 210. No mahjong 20.
    result = score("[1111'z] 555z 66z 23m 45p 7s")
    assert (result.base, result.doubles, result.total) == (26, 3, 210)
    assert MAHJONG not in {i.name for i in result.items}


# --------------------------------------------------------------------------------------------------
# Non-winners: scored by their groups, the best arrangement of their standing tiles


def test_non_winner_hand_is_valid_and_scored_by_groups_only():
    result = score("123m 456m 789m 5z [7'77z] | seat=S")
    assert result.valid and result.settlement == ()
    assert {i.name: i.points or i.doubles for i in result.items} == {
        "Pung of dragons, own wind or round wind, exposed": 4, LUCKY: 1}
    assert (result.base, result.doubles, result.total) == (4, 1, 10)   # 4 x 2 = 8 -> 10
    assert "vain voittajalle maksetaan" in result.notes[0]


def test_non_winner_best_arrangement_takes_the_pong_and_the_best_pair():
    result = score("111p 23p 55m 77z 99s 46s | seat=S")
    found = {i.name: (i.points, i.count) for i in result.items}
    # 111p pong concealed (terminal) 8, and of the three pairs the Red one (2)
    assert found["Pung of terminals or other wind, concealed"] == (8, 1)
    assert found["Pair of dragons, own wind or round wind"] == (2, 1)
    assert result.base == 10 and result.total == 10
    kinds = [kind for kind, _ in result.arrangement]
    assert kinds.count("pair") == 1 and kinds.count("pung") == 1


def test_non_winner_gets_no_mahjong_doublings():
    # a full flush without a winning tile: no flush, no straight
    result = score("123m 456m 789m 1234m")
    assert result.valid and result.items == () and result.total == 0
    assert any(kind == "chow" for kind, _ in result.arrangement)


def test_non_winner_kong_and_lucky_wind():
    result = score("(2222z) 234p 567p 99s 12m | seat=S")
    assert {i.name: i.count for i in result.items} == {
        "Kong of dragons, own wind or round wind, concealed": 1, LUCKY: 1}
    assert result.total == 60   # 32 x 2 = 64 -> 60


# --------------------------------------------------------------------------------------------------
# Payments: four players ("poispanija | itse kukin | itä")


def test_four_player_table_is_the_books():
    assert FOUR_PLAYERS == {
        ("east", "claimed"): {"discarder": 6},            # itä huutaa mahjongin 6--
        ("east", "self_drawn"): {"each": 2},              # itä saa muurista mahjongin -2-
        ("other", "claimed"): {"discarder": 4},           # joku muu huutaa mahjongin 4--
        ("other", "self_drawn"): {"each": 1, "east": 2},  # joku muu saa muurista mahjongin -12
    }


def test_three_player_table_is_the_books():
    assert THREE_PLAYERS == {
        ("east", "claimed"): {"discarder": 4},            # itä huutaa mahjongin 4--
        ("east", "self_drawn"): {"each": 2},              # itä saa mahjongin muurista --2
        ("other", "claimed"): {"discarder": 3},           # joku muu huutaa mahjongin 3--
        ("other", "self_drawn"): {"east": 2, "each": 1},  # joku muu saa mahjongin muurista -2- (+ the other 1)
    }


WIN = "234m 567p 345s 99p 78s +6s"   # worthless: 60 claimed, 80 drawn
OTHERS = {E: "123m 456m 789m 5s [7'77z]", S: "11m 22m 33p 44p 55s 66s 7z", W: "123456789m 1234p",
          N: "111222333p 4567s"}


def table(winner, discarder, seats=(E, S, W, N), winner_text=WIN, extra=None, dealer=E):
    hands = {seat: parse_hand(OTHERS[seat] if seat != winner else winner_text) for seat in seats}
    for seat, text in (extra or {}).items():
        hands[seat] = parse_hand(text)
    return Table.build(hands, winner=winner, discarder=discarder, dealer=dealer)


def net(t):
    result = settle(t, "jmja1967")
    assert sum(result.net().values()) == 0
    return result.net()


def test_four_east_claims_the_discarder_pays_6():
    assert net(table(E, N)) == {"E": 360, "S": 0, "W": 0, "N": -360}          # 6 x 60


def test_four_east_draws_each_pays_2():
    assert net(table(E, None)) == {"E": 480, "S": -160, "W": -160, "N": -160}  # 2 x 80 each


def test_four_another_claims_the_discarder_pays_4():
    assert net(table(S, W)) == {"E": 0, "S": 240, "W": -240, "N": 0}          # 4 x 60
    assert net(table(S, E)) == {"E": -240, "S": 240, "W": 0, "N": 0}          # East discards: still 4


def test_four_another_draws_each_1_east_2():
    assert net(table(S, None)) == {"E": -160, "S": 320, "W": -80, "N": -80}   # 80, East 160


def test_three_east_claims_the_discarder_pays_4():
    assert net(table(E, N, seats=(E, S, N))) == {"E": 240, "S": 0, "N": -240}   # 4 x 60


def test_three_east_draws_each_pays_2():
    assert net(table(E, None, seats=(E, S, N))) == {"E": 320, "S": -160, "N": -160}


def test_three_another_claims_the_discarder_pays_3():
    assert net(table(S, N, seats=(E, S, N))) == {"E": 0, "S": 180, "N": -180}
    assert net(table(N, E, seats=(E, S, N))) == {"E": -180, "S": 0, "N": 180}


def test_three_another_draws_east_2_other_1():
    assert net(table(S, None, seats=(E, S, N))) == {"E": -160, "S": 240, "N": -80}


def test_three_another_draws_literal_option_only_east_pays():
    t = table(S, None, seats=(E, S, N), winner_text=WIN + " | jmja1967_three_player_self_draw=east_2_only")
    assert net(t) == {"E": -160, "S": 160, "N": 0}


def test_three_players_without_west_east_and_south_seats():
    # "2. jaossa poistetaan etelätuulet. Pelaajat ovat pohjoinen, itä ja länsi."
    assert net(table(W, None, seats=(E, W, N))) == {"E": -160, "W": 240, "N": -80}


def test_payment_maximum_2000_and_3000():
    assert PAYMENT_MAXIMUM == {"other": 2000, "east": 3000}
    assert payment_maximum(4, east=False) == 2000 and payment_maximum(4, east=True) == 3000
    limit_hand = "19m 19p 19s 1234567z +1z"
    assert net(table(S, W, winner_text=limit_hand))["S"] == 2000
    assert net(table(S, None, winner_text=limit_hand))["S"] == 2000
    assert net(table(E, N, winner_text=limit_hand))["E"] == 3000
    assert net(table(E, None, winner_text=limit_hand))["E"] == 3000


def test_only_the_winner_is_scored_and_paid():
    result = settle(table(S, W), "jmja1967")
    assert [seat for seat, _ in result.scores] == [S]


def test_drawn_deal_pays_nothing_and_returns_fines():
    hands = {seat: parse_hand(OTHERS[seat]) for seat in (E, S, W, N)}
    hands[W] = parse_hand(OTHERS[W] + " | jmja1967_false_calls=1")
    result = settle(Table.build(hands, winner=None), "jmja1967")
    assert result.payments == () and set(result.net().values()) == {0}
    assert any("returned" in note for note in result.notes)


def test_fines_go_to_the_winner():
    t = table(S, W, extra={N: OTHERS[N] + " | jmja1967_false_calls=1 jmja1967_wrong_draws=2",
                           E: OTHERS[E] + " | jmja1967_wrong_draws=1"})
    # N: 100 + 2 x 50 = 200; E: 50; W pays the hand, 4 x 60 = 240
    assert net(t) == {"E": -50, "S": 240 + 250, "W": -240, "N": -200}


def test_the_winners_own_fines_go_back_to_the_winner():
    t = table(S, W, winner_text=WIN + " | jmja1967_false_calls=1")
    assert net(t) == {"E": 0, "S": 240, "W": -240, "N": 0}
    assert any("go back" in note for note in settle(t, "jmja1967").notes)


def test_false_mahjong_pays_nothing():
    t = table(S, W, winner_text="1122m 3344p 5566s 7z +7z")
    result = settle(t, "jmja1967")
    assert result.payments == () and "False mahjong" in result.notes[0]


def test_a_table_whose_dealer_is_not_east_is_refused():
    with pytest.raises(HandError, match="dealer is East"):
        settle(table(S, W, dealer=S), "jmja1967")


def test_three_players_cannot_hold_the_removed_wind():
    t = table(S, N, seats=(E, S, N), extra={E: "123m 456m 789m 3z [7'77z]"})
    with pytest.raises(HandError, match="West winds are out of the game"):
        settle(t, "jmja1967")


def test_heavenly_blessing_at_the_table():
    # East's dealt hand: self-drawn, first turn; each pays 2 x 500.
    t = table(E, None, winner_text="123m 456p 789s 234s 5p +5p | first_turn")
    assert net(t) == {"E": 3000, "S": -1000, "W": -1000, "N": -1000}


# --------------------------------------------------------------------------------------------------
# The command line


def test_cli_score_and_settle(cli, tmp_path):
    run = cli("score", "--rules", "jmja1967", "--json", "--notation", "123m 456m 789m 5z [7'77z] +5z | seat=S")
    assert run.status == 0
    data = json.loads(run.out)
    assert (data["base"], data["doubles"], data["total"]) == (28, 3, 220)
    run = cli("score", "--rules", "jmja1967", "--json", "--notation", "1122m 3344p 5566s 7z +7z")
    assert run.status == 2 and json.loads(run.out)["error"]["code"] == "not_mahjong"
    table_json = {"players": [
        {"seat": "E", "hand": {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5s"],
                               "melds": [{"kind": "pung", "tiles": ["7z", "7z", "7z"]}]}},
        {"seat": "S", "hand": {"concealed": ["2m", "3m", "4m", "5p", "6p", "7p", "3s", "4s", "5s", "9p", "9p",
                                             "7s", "8s", "6s"], "winning_tile": "6s"}},
        {"seat": "N", "hand": {"concealed": ["1p", "1p", "1p", "2p", "2p", "2p", "3p", "3p", "3p", "4s", "5s",
                                             "6s", "7s"]}}],
        "winner": "S", "discarder": "N"}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table_json))
    run = cli("settle", "--rules", "jmja1967", "--json", str(path))
    assert run.status == 0, run.err
    assert json.loads(run.out)["net"] == {"E": 0, "S": 180, "N": -180}   # three players: 3 x 60


def test_flowers_are_not_counted():
    # "tiilet: Maat ... Kunnianarvoisat": the 1967 set has no flowers or seasons
    plain, flowered = score(WORTHLESS_HAND), score("234m 567p 345s 99p 78s 15f +6s")
    assert plain.total == flowered.total == 60
    assert any("flowers" in note for note in flowered.notes)


def test_thirteen_orphans_needs_all_thirteen():
    result = score("19m 19p 19s 1234566z +6z")   # no Red dragon
    assert result.error.code == "not_mahjong"
