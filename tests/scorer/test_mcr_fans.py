"""MCR fans, one by one, against the rule books (seed 000: Hungarian MCR rule book, sections IV and V;
seed 003: Swedish overview with the official English fan names) and the spec's fan table.

Every one of the 81 fans (Flower Tiles included) has a hand that scores it and a near-miss hand that
must not. Then the five counting principles of seed 000 IV, the 8-point minimum and the settlement,
the worked examples of the two seeds, and the waits.

Hands are written in the text notation of ``scorer.notation`` (``[5'55m]`` an exposed pung claimed from
the left, ``(6666z)`` a concealed kong, ``+9p`` the winning tile, context after ``|``). Unless a hand
says otherwise the winner sits East in the East round (seat=E prevalent=E) and won on a discard.

Where a test asserts the whole item list, the expected list follows the books: a fan that is
inevitably contained in a higher one is not counted (000 IV.1, "az implikáció elve").
"""

from __future__ import annotations

import pytest

from scorer.errors import HandError
from scorer.mcr import RULE_SET
from scorer.mcr.catalog import FANS
from scorer.notation import parse_hand

# The spec's "MCR fan names (canonical, with points)" table (shared/spec/tiles-and-hands.md).
SPEC_FANS: dict[int, list[str]] = {
    88: ["Big Four Winds", "Big Three Dragons", "All Green", "Nine Gates", "Four Kongs", "Seven Shifted Pairs",
         "Thirteen Orphans"],
    64: ["All Terminals", "Little Four Winds", "Little Three Dragons", "All Honors", "Four Concealed Pungs",
         "Pure Terminal Chows"],
    48: ["Quadruple Chow", "Four Pure Shifted Pungs"],
    32: ["Four Pure Shifted Chows", "Three Kongs", "All Terminals and Honors"],
    24: ["Seven Pairs", "Greater Honors and Knitted Tiles", "All Even Pungs", "Full Flush", "Pure Triple Chow",
         "Pure Shifted Pungs", "Upper Tiles", "Middle Tiles", "Lower Tiles"],
    16: ["Pure Straight", "Three-Suited Terminal Chows", "Pure Shifted Chows", "All Fives", "Triple Pung",
         "Three Concealed Pungs"],
    12: ["Lesser Honors and Knitted Tiles", "Knitted Straight", "Upper Four", "Lower Four", "Big Three Winds"],
    8: ["Mixed Straight", "Reversible Tiles", "Mixed Triple Chow", "Mixed Shifted Pungs", "Chicken Hand",
        "Last Tile Draw", "Last Tile Claim", "Out with Replacement Tile", "Robbing the Kong", "Two Concealed Kongs"],
    6: ["All Pungs", "Half Flush", "Mixed Shifted Chows", "All Types", "Melded Hand", "Two Dragon Pungs"],
    4: ["Outside Hand", "Fully Concealed Hand", "Two Melded Kongs", "Last Tile"],
    2: ["Dragon Pung", "Prevalent Wind", "Seat Wind", "Concealed Hand", "All Chows", "Tile Hog", "Double Pung",
        "Two Concealed Pungs", "Concealed Kong", "All Simples"],
    1: ["Pure Double Chow", "Mixed Double Chow", "Short Straight", "Two Terminal Chows", "Pung of Terminals or Honors",
        "Melded Kong", "One Voided Suit", "No Honors", "Edge Wait", "Closed Wait", "Single Wait", "Self-Drawn",
        "Flower Tiles"],
}
POINTS: dict[str, int] = {name: points for points, names in SPEC_FANS.items() for name in names}


def score(text: str):
    return RULE_SET.score(parse_hand(text))


def fans(result) -> dict[str, int]:
    return {item.name: item.count for item in result.items}


def value(expected: dict[str, int]) -> int:
    return sum(POINTS[name] * count for name, count in expected.items())


# ---- the catalogue ------------------------------------------------------------------------------------

def test_catalogue_has_the_81_official_names_with_their_points():
    assert len(POINTS) == 81
    assert {name: fan.points for name, fan in FANS.items()} == POINTS


def test_catalogue_numbers_run_1_to_81_from_the_88_pointers_down():
    """Seed 003 numbers the fans 1 (Big Four Winds) .. 81 (Flower Tiles), highest points first."""
    by_number = sorted(FANS.values(), key=lambda f: f.number)
    assert [f.number for f in by_number] == list(range(1, 82))
    assert by_number[0].name == "Big Four Winds" and by_number[-1].name == "Flower Tiles"
    assert [f.points for f in by_number] == sorted((f.points for f in by_number), reverse=True)


# ---- every fan: a hand that scores it -----------------------------------------------------------------
# (fan, hand, count of the fan, the whole item list expected by the book or None where only the fan
# itself is checked)

P = pytest.param
POSITIVE = [
    # 88
    P("Big Four Winds", "[111'z] [222'z] 333z 444z 5m +5m", 1,
      {"Big Four Winds": 1, "Half Flush": 1, "Two Concealed Pungs": 1, "Single Wait": 1}),
    P("Big Three Dragons", "[555'z] [666'z] 777z 123m 9m +9m", 1,
      {"Big Three Dragons": 1, "Half Flush": 1, "Outside Hand": 1, "Single Wait": 1}),
    P("All Green", "234s 234s 666s 88s 66z +6z", 1,
      {"All Green": 1, "Dragon Pung": 1, "Concealed Hand": 1, "Pure Double Chow": 1}),
    P("Nine Gates", "1112345678999m +5m", 1, None),
    P("Four Kongs", "[1111'm] [2222'p] [3333's] [4444'z] 5z +5z", 1, None),
    P("Seven Shifted Pairs", "1122334455667m +7m", 1, {"Seven Shifted Pairs": 1}),
    P("Thirteen Orphans", "19m19p19s1234567z +1m", 1, {"Thirteen Orphans": 1}),
    # 64
    P("All Terminals", "111m 999m 111p 999p 1s +1s", 1, None),
    P("Little Four Winds", "[111'z] [222'z] [333'z] 4z 567m +4z", 1,
      {"Little Four Winds": 1, "Half Flush": 1, "Prevalent Wind": 1, "Seat Wind": 1, "Single Wait": 1}),
    P("Little Three Dragons", "[555'z] [666'z] 7z 123m 789m +7z", 1,
      {"Little Three Dragons": 1, "Half Flush": 1, "Outside Hand": 1, "Two Terminal Chows": 1, "Single Wait": 1}),
    P("All Honors", "[111'z] [222'z] 555z 666z 7z +7z", 1,
      {"Little Three Dragons": 1, "All Honors": 1, "Prevalent Wind": 1, "Seat Wind": 1, "Two Concealed Pungs": 1,
       "Single Wait": 1}),
    P("Four Concealed Pungs", "111m 222p 333s 555z 9m +9m", 1, None),
    P("Pure Terminal Chows", "123123789789s 5s +5s", 1,
      {"Pure Terminal Chows": 1, "Concealed Hand": 1, "Single Wait": 1}),
    # 48
    P("Quadruple Chow", "234234234234m 9p +9p", 1,
      {"Quadruple Chow": 1, "Concealed Hand": 1, "All Chows": 1, "One Voided Suit": 1, "Single Wait": 1}),
    P("Four Pure Shifted Pungs", "[2'22m] [3'33m] 444m 555m 9p +9p", 1,
      {"Four Pure Shifted Pungs": 1, "Two Concealed Pungs": 1, "One Voided Suit": 1, "No Honors": 1,
       "Single Wait": 1}),
    # 32
    P("Four Pure Shifted Chows", "123m 234m 345m 456m 9p +9p", 1,
      {"Four Pure Shifted Chows": 1, "Concealed Hand": 1, "All Chows": 1, "One Voided Suit": 1, "Single Wait": 1}),
    P("Three Kongs", "[1111'm] [2222'p] [3333's] 567p 9s +9s", 1,
      {"Three Kongs": 1, "Mixed Shifted Pungs": 1, "Pung of Terminals or Honors": 1, "No Honors": 1,
       "Single Wait": 1}),
    P("All Terminals and Honors", "[1'11m] 999p 111z 555z 9s +9s", 1,
      {"All Terminals and Honors": 1, "Three Concealed Pungs": 1, "All Types": 1, "Dragon Pung": 1,
       "Prevalent Wind": 1, "Seat Wind": 1, "Single Wait": 1}),
    # 24
    P("Seven Pairs", "11m 22p 33s 44z 55m 77p 8s +8s", 1, {"Seven Pairs": 1}),
    P("Greater Honors and Knitted Tiles", "147m 25p 36s 123456z +7z", 1, {"Greater Honors and Knitted Tiles": 1}),
    P("All Even Pungs", "[2'22m] 444p 666s 888m 2s +2s", 1,
      {"All Even Pungs": 1, "Three Concealed Pungs": 1, "Single Wait": 1}),
    P("Full Flush", "[2'34m] 666m 789m 111m 5m +5m", 1,
      {"Full Flush": 1, "Two Concealed Pungs": 1, "Pung of Terminals or Honors": 1}),
    P("Pure Triple Chow", "[2'34m] [2'34m] 234m 567p 9s +9s", 1,
      {"Pure Triple Chow": 1, "All Chows": 1, "Single Wait": 1}),
    P("Pure Shifted Pungs", "[2'22m] [3'33m] [4'44m] 567p 9s +9s", 1,
      {"Pure Shifted Pungs": 1, "No Honors": 1, "Single Wait": 1}),
    P("Upper Tiles", "[7'89m] 789p 777s 888s 9m +9m", 1,
      {"Upper Tiles": 1, "Two Concealed Pungs": 1, "Mixed Double Chow": 1, "Single Wait": 1}),
    P("Middle Tiles", "[4'56m] 456p 444s 555s 6m +6m", 1,
      {"Middle Tiles": 1, "Two Concealed Pungs": 1, "Mixed Double Chow": 1, "Single Wait": 1}),
    P("Lower Tiles", "[1'23m] 123p 111s 222s 3m +3m", 1,
      {"Lower Tiles": 1, "Two Concealed Pungs": 1, "Mixed Double Chow": 1, "Pung of Terminals or Honors": 1,
       "Single Wait": 1}),
    # 16
    P("Pure Straight", "123m 456m 789m 234p 5s +5s", 1,
      {"Pure Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("Three-Suited Terminal Chows", "123m 789m 123p 789p 5s +5s", 1,
      {"Three-Suited Terminal Chows": 1, "Concealed Hand": 1, "Single Wait": 1}),
    P("Pure Shifted Chows", "123m 234m 345m 678p 9s +9s", 1,
      {"Pure Shifted Chows": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("All Fives", "[4'56m] 345p 555s 456p 5m +5m", 1,
      {"All Fives": 1, "Mixed Double Chow": 1, "Single Wait": 1}),
    P("Triple Pung", "[2'22m] [2'22p] 222s 567m 9s +9s", 1,
      {"Triple Pung": 1, "No Honors": 1, "Single Wait": 1}),
    P("Three Concealed Pungs", "222m 444p 666s [5'67m] 9s +9s", 1,
      {"Three Concealed Pungs": 1, "No Honors": 1, "Single Wait": 1}),
    # 12
    P("Lesser Honors and Knitted Tiles", "147m 258p 36s 12345z +6z", 1, {"Lesser Honors and Knitted Tiles": 1}),
    P("Knitted Straight", "147m 258p 369s 234m 5z +5z", 1,
      {"Knitted Straight": 1, "Concealed Hand": 1, "Single Wait": 1}),
    P("Upper Four", "[6'78m] 789p 666s 999s 7m +7m", 1,
      {"Upper Four": 1, "Two Concealed Pungs": 1, "Pung of Terminals or Honors": 1, "Single Wait": 1}),
    P("Lower Four", "[2'34m] 123p 444s 111s 3m +3m", 1,
      {"Lower Four": 1, "Two Concealed Pungs": 1, "Pung of Terminals or Honors": 1, "Single Wait": 1}),
    P("Big Three Winds", "[111'z] [222'z] [333'z] 567m 9p +9p | seat=N prevalent=N", 1,
      {"Big Three Winds": 1, "One Voided Suit": 1, "Single Wait": 1}),
    # 8
    P("Mixed Straight", "123m 456p 789s 345m 9m +9m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("Reversible Tiles", "123p 345p 999p 456s 5z +5z", 1,
      {"Reversible Tiles": 1, "Concealed Hand": 1, "Pung of Terminals or Honors": 1, "Single Wait": 1}),
    P("Mixed Triple Chow", "234m 234p 234s 567m 9s +9s", 1,
      {"Mixed Triple Chow": 1, "Concealed Hand": 1, "All Chows": 1, "Short Straight": 1, "Single Wait": 1}),
    P("Mixed Shifted Pungs", "[2'22m] [3'33p] 444s 567m 9s +9s", 1,
      {"Mixed Shifted Pungs": 1, "No Honors": 1, "Single Wait": 1}),
    P("Chicken Hand", "[1'23m] [4'56p] [6'78s] 23s 55z +4s", 1, {"Chicken Hand": 1}),
    P("Last Tile Draw", "[1'23m] [4'56p] [6'78s] 23s 55z +4s | self_drawn last_tile", 1, {"Last Tile Draw": 1}),
    P("Last Tile Claim", "[1'23m] [4'56p] [6'78s] 23s 55z +4s | last_tile", 1, {"Last Tile Claim": 1}),
    P("Out with Replacement Tile", "[1111'm] 234p 567s 789s 9m +9m | self_drawn kong_replacement", 1,
      {"Out with Replacement Tile": 1, "Pung of Terminals or Honors": 1, "Melded Kong": 1, "No Honors": 1,
       "Single Wait": 1}),
    P("Robbing the Kong", "123m 456p 78s 345s 55z +9s | robbing_kong", 1,
      {"Mixed Straight": 1, "Robbing the Kong": 1, "Concealed Hand": 1}),
    P("Two Concealed Kongs", "(1111m) (2222p) 345s 678s 9s +9s", 1,
      {"Two Concealed Kongs": 1, "Concealed Hand": 1, "Short Straight": 1, "Pung of Terminals or Honors": 1,
       "No Honors": 1}),
    # 6
    P("All Pungs", "[2'22m] [3'33p] [5'55s] 777m 9p +9p", 1, {"All Pungs": 1, "No Honors": 1, "Single Wait": 1}),
    P("Half Flush", "[1'23m] 456m 777m 111z 5z +5z", 1,
      {"Half Flush": 1, "Prevalent Wind": 1, "Seat Wind": 1, "Two Concealed Pungs": 1, "Short Straight": 1,
       "Single Wait": 1}),
    P("Mixed Shifted Chows", "123m 234p 345s 678m 9s +9s", 1,
      {"Mixed Shifted Chows": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("All Types", "[2'34m] 456p 678s 222z 5z +5z", 1,
      {"All Types": 1, "Pung of Terminals or Honors": 1, "Single Wait": 1}),
    P("Melded Hand", "[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z", 1,
      {"Mixed Straight": 1, "All Types": 1, "Melded Hand": 1, "Pung of Terminals or Honors": 1}),
    P("Two Dragon Pungs", "[5'55z] [6'66z] 123m 456m 9m +9m", 1,
      {"Half Flush": 1, "Two Dragon Pungs": 1, "Short Straight": 1, "Single Wait": 1}),
    # 4
    P("Outside Hand", "[1'23m] 789m 111s 999p 5z +5z", 1,
      {"Outside Hand": 1, "Two Concealed Pungs": 1, "Two Terminal Chows": 1, "Pung of Terminals or Honors": 2,
       "Single Wait": 1}),
    P("Fully Concealed Hand", "123m 456p 789s 345s 5m +5m | self_drawn", 1,
      {"Mixed Straight": 1, "Fully Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("Two Melded Kongs", "[5555'z] [6666'z] 345s 678s 9s +9s", 1,
      {"Half Flush": 1, "Two Dragon Pungs": 1, "Two Melded Kongs": 1, "Short Straight": 1}),
    P("Last Tile", "12m 456p 789s 345s 99m +3m | last_of_kind", 1,
      {"Mixed Straight": 1, "Last Tile": 1, "Concealed Hand": 1, "All Chows": 1, "Edge Wait": 1}),
    # 2
    P("Dragon Pung", "[5'55z] 123m 456p 789s 9s +9s", 1, {"Mixed Straight": 1, "Dragon Pung": 1}),
    P("Prevalent Wind", "[2'22z] 123m 456p 789s 9s +9s | seat=W prevalent=S", 1,
      {"Mixed Straight": 1, "Prevalent Wind": 1}),
    P("Seat Wind", "[2'22z] 123m 456p 789s 9s +9s | seat=S prevalent=W", 1, {"Mixed Straight": 1, "Seat Wind": 1}),
    P("Concealed Hand", "123m 456p 789s 555s 9m +9m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "No Honors": 1, "Single Wait": 1}),
    P("All Chows", "123m 456p 789s 234s 9m +9m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("Tile Hog", "123m 456p 789s 333m 5z +5z", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "Tile Hog": 1, "Single Wait": 1}),
    P("Double Pung", "[2'22m] [2'22p] [5'55s] 777m 9p +9p", 1,
      {"All Pungs": 1, "Double Pung": 1, "No Honors": 1, "Single Wait": 1}),
    P("Two Concealed Pungs", "222m 777p [5'55s] [8'88m] 9p +9p", 1,
      {"All Pungs": 1, "Two Concealed Pungs": 1, "No Honors": 1}),
    P("Concealed Kong", "(2222m) 123p 456s 789m 9p +9p", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "Concealed Kong": 1, "No Honors": 1, "Single Wait": 1}),
    # All Simples implies No Honors (000 IV.1): not counted beside it.
    P("All Simples", "[2'34m] 234p 234s 666m 8s +8s", 1,
      {"Mixed Triple Chow": 1, "All Simples": 1, "Single Wait": 1}),
    # 1
    P("Pure Double Chow", "[5'55z] [6'66z] 234m 234m 9m +9m", 1,
      {"Half Flush": 1, "Two Dragon Pungs": 1, "Pure Double Chow": 1, "Single Wait": 1}),
    P("Mixed Double Chow", "[5'55z] [6'66z] 234m 234p 9m +9m", 1,
      {"Two Dragon Pungs": 1, "Mixed Double Chow": 1, "One Voided Suit": 1, "Single Wait": 1}),
    P("Short Straight", "[5'55z] [6'66z] 234m 567m 9m +9m", 1,
      {"Half Flush": 1, "Two Dragon Pungs": 1, "Short Straight": 1, "Single Wait": 1}),
    P("Two Terminal Chows", "[5'55z] [6'66z] 123m 789m 9m +9m", 1,
      {"Half Flush": 1, "Two Dragon Pungs": 1, "Outside Hand": 1, "Two Terminal Chows": 1}),
    P("Pung of Terminals or Honors", "[9'99m] 123m 456p 789s 5z +5z", 1,
      {"Mixed Straight": 1, "Pung of Terminals or Honors": 1, "Single Wait": 1}),
    P("Melded Kong", "[6666'm] 123m 456p 789s 5z +5z", 1,
      {"Mixed Straight": 1, "Melded Kong": 1, "Single Wait": 1}),
    P("One Voided Suit", "[5'55z] [6'66z] 123m 456p 9p +9p", 1,
      {"Two Dragon Pungs": 1, "One Voided Suit": 1, "Single Wait": 1}),
    P("No Honors", "[1'23m] 456p 789s 666m 9s +9s", 1, {"Mixed Straight": 1, "No Honors": 1}),
    P("Edge Wait", "12m 456p 789s 345s 99m +3m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Edge Wait": 1}),
    P("Closed Wait", "13m 456p 789s 345s 99m +2m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Closed Wait": 1}),
    P("Single Wait", "123m 456p 789s 345s 5m +5m", 1,
      {"Mixed Straight": 1, "Concealed Hand": 1, "All Chows": 1, "Single Wait": 1}),
    P("Self-Drawn", "[1'23m] 456p 789s 345s 5m +5m | self_drawn", 1,
      {"Mixed Straight": 1, "All Chows": 1, "Single Wait": 1, "Self-Drawn": 1}),
    P("Flower Tiles", "[1'23m] 456p 789s 345s 5m 1f 5f +5m", 2,
      {"Mixed Straight": 1, "All Chows": 1, "Single Wait": 1, "Flower Tiles": 2}),
]
POSITIVE = [P(*p.values, id=p.values[0]) for p in POSITIVE]


@pytest.mark.parametrize("fan, hand, count, expected", POSITIVE)
def test_fan_is_scored(fan, hand, count, expected):
    result = score(hand)
    assert result.valid, result.error
    assert fans(result).get(fan) == count, fans(result)
    for item in result.items:
        assert item.points == POINTS[item.name]
    assert result.total == sum(item.points * item.count for item in result.items)
    if expected is not None:
        assert fans(result) == expected
        assert result.total == value(expected)


# ---- every fan: a near miss that must not score it ----------------------------------------------------

NEAR_MISS = [
    P("Big Four Winds", "[111'z] [222'z] 333z 44z 55m +5m"),  # Little Four Winds: the fourth wind is the pair
    P("Big Three Dragons", "[555'z] [666'z] 7z 123m 789m +7z"),  # Little Three Dragons
    P("All Green", "234s 234s 666s 88s 77z +7z"),  # Red, not Green Dragon
    P("Nine Gates", "[1'11m] 2345678999m +5m"),  # the 1-1-1 was claimed: not concealed
    P("Four Kongs", "[1111'm] [2222'p] [3333's] [444'z] 5z +5z"),  # three kongs and a pung
    P("Seven Shifted Pairs", "1122334455668m +8m"),  # 6-6 then 8-8: not consecutive
    P("Thirteen Orphans", "11m99m11p99p11s99s1z +1z"),  # terminals and honours, but in pairs
    P("All Terminals", "111m 999m 111p 111z 1s +1s"),  # a wind pung: All Terminals and Honors
    P("Little Four Winds", "[111'z] [222'z] [333'z] 5z 567m +5z"),  # pair of White, not of the fourth wind
    P("Little Three Dragons", "[555'z] [666'z] 1z 123m 789m +1z"),  # pair of East, not of Red
    P("All Honors", "[111'z] [222'z] 555z 666z 9m +9m"),  # pair of 9m
    P("Four Concealed Pungs", "111m 222p 333s 55z 99m +5z"),  # the Red pung completed by a discard
    P("Pure Terminal Chows", "123123789789s 5p +5p"),  # the fives are in another suit
    P("Quadruple Chow", "234234234m 345m 9p +9p"),  # the fourth chow is shifted
    P("Four Pure Shifted Pungs", "[2'22m] [3'33m] 444m 666m 9p +9p"),  # 5 skipped
    P("Four Pure Shifted Chows", "123m 234m 345m 567m 9p +9p"),  # steps 1, 1, 2
    P("Three Kongs", "[1111'm] [2222'p] [333's] 567p 9s +9s"),  # two kongs and a pung
    P("All Terminals and Honors", "123m 999p 111z 555z 9s +9s"),  # a 1-2-3 chow
    P("Seven Pairs", "11m 22p 33s 44z 55m 77p 8s +9s"),  # six pairs and two odd tiles: no mahjong
    P("Greater Honors and Knitted Tiles", "147m 258p 36s 12345z +6z"),  # six honours: Lesser
    P("All Even Pungs", "[2'22m] 444p 666s 999m 2s +2s"),  # a pung of nines
    P("Full Flush", "[1'23m] 456m 777m 111z 5z +5z"),  # honours: Half Flush
    P("Pure Triple Chow", "[2'34m] [2'34m] 234p 567p 9s +9s"),  # the third 2-3-4 in another suit
    P("Pure Shifted Pungs", "[2'22m] [3'33m] [4'44p] 567p 9s +9s"),  # the 4-pung in another suit
    P("Upper Tiles", "[7'89m] 789p 777s 666s 9m +9m"),  # a six: Upper Four
    P("Middle Tiles", "[4'56m] 456p 333s 555s 6m +6m"),  # a three
    P("Lower Tiles", "[1'23m] 123p 111s 444s 3m +3m"),  # a four: Lower Four
    P("Pure Straight", "123m 456m 789p 234p 5s +5s"),  # 7-8-9 in another suit
    P("Three-Suited Terminal Chows", "123m 789m 123p 789p 2s +2s"),  # the pair is not fives
    P("Pure Shifted Chows", "123m 234m 456m 678p 9s +9s"),  # steps 1 then 2
    P("All Fives", "[4'56m] 345p 555s 678p 5m +5m"),  # 6-7-8 has no five
    P("Triple Pung", "[2'22m] [2'22p] 333s 567m 9s +9s"),  # the third pung is threes
    P("Three Concealed Pungs", "222m 444p 66s 99s [5'67m] +6s"),  # the 6s pung completed by a discard
    P("Lesser Honors and Knitted Tiles", "147m 25p 36s 123456z +7z"),  # all seven honours: Greater
    P("Knitted Straight", "123m 456p 789s 234m 5z +5z"),  # a straight across suits, not knitted
    P("Upper Four", "[5'67m] 789p 666s 999s 7m +7m"),  # a five
    P("Lower Four", "[3'45m] 123p 444s 111s 3m +3m"),  # a five
    P("Big Three Winds", "[111'z] [222'z] [555'z] 567m 9p +9p | seat=N prevalent=N"),  # two winds and White
    P("Mixed Straight", "123m 456p 789p 345m 9m +9m"),  # 4-5-6 and 7-8-9 in the same suit
    P("Reversible Tiles", "123p 345p 999p 345s 5z +5z"),  # 3s is not reversible
    P("Mixed Triple Chow", "234m 234p 345s 567m 9s +9s"),  # the bamboo chow is 3-4-5
    P("Mixed Shifted Pungs", "[2'22m] [3'33p] 555s 567m 9s +9s"),  # 2, 3, 5
    P("Chicken Hand", "[1'23m] [4'56p] [6'78s] 23s 55z +4s | self_drawn"),  # Self-Drawn scores 1
    P("Last Tile Draw", "[1'23m] [4'56p] [6'78s] 23s 55z +4s | last_tile"),  # claimed: Last Tile Claim
    P("Last Tile Claim", "[1'23m] [4'56p] [6'78s] 23s 55z +4s | self_drawn last_tile"),  # drawn: Last Tile Draw
    P("Out with Replacement Tile", "[1111'm] 234p 567s 789s 9m +9m | self_drawn"),  # an ordinary draw
    P("Robbing the Kong", "123m 456p 78s 345s 55z +9s"),  # an ordinary discard
    P("Two Concealed Kongs", "(1111m) [2222'p] 345s 678s 9s +9s"),  # one of the kongs melded
    P("All Pungs", "[2'22m] [3'33p] [5'55s] 789m 9p +9p"),  # a chow
    P("Half Flush", "[1'23m] 456m 777p 111z 5z +5z"),  # a second suit
    P("Mixed Shifted Chows", "123m 234p 345p 678m 9s +9s"),  # 2-3-4 and 3-4-5 in the same suit
    P("All Types", "[2'34m] 456p 678s 222z 3z +3z"),  # no dragon
    P("Melded Hand", "[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z | self_drawn"),  # the last tile self-drawn
    P("Two Dragon Pungs", "[5'55z] 6z 123m 456p 789s +6z"),  # the Green Dragons are the pair
    P("Outside Hand", "[1'23m] 789m 111s 999p 5s +5s"),  # pair of fives
    P("Fully Concealed Hand", "[1'23m] 456p 789s 345s 5m +5m | self_drawn"),  # an exposed chow
    P("Two Melded Kongs", "[5555'z] [666'z] 345s 678s 9s +9s"),  # one kong and a pung
    P("Last Tile", "12m 456p 789s 345s 99m +3m"),  # not the last 3m
    P("Dragon Pung", "[9'99m] 123m 456p 789s 5z +5z"),  # only a pair of White
    P("Prevalent Wind", "[2'22z] 123m 456p 789s 9s +9s | seat=N prevalent=W"),  # South is neither wind
    P("Seat Wind", "[2'22z] 123m 456p 789s 9s +9s | seat=N prevalent=W"),  # the winner sits North
    P("Concealed Hand", "[1'23m] 456p 789s 555s 9m +9m"),  # an exposed chow
    P("All Chows", "123m 456p 789s 234s 5z +5z"),  # an honour pair
    P("Tile Hog", "[6666'm] 123m 456p 789s 5z +5z"),  # the four 6m are a kong
    P("Double Pung", "[2'22m] [3'33p] [5'55s] 777m 9p +9p"),  # 2 and 3
    P("Two Concealed Pungs", "[2'22m] 777p [5'55s] [8'88m] 9p +9p"),  # one concealed pung
    P("Concealed Kong", "[2222'm] 123p 456s 789m 9p +9p"),  # a melded kong
    P("All Simples", "[2'34m] 234p 234s 999m 8s +8s"),  # a pung of nines
    P("Pure Double Chow", "[5'55z] [6'66z] 234m 234p 9m +9m"),  # the second 2-3-4 in another suit
    P("Mixed Double Chow", "[5'55z] [6'66z] 234m 345p 9m +9m"),  # 2-3-4 and 3-4-5
    P("Short Straight", "[5'55z] [6'66z] 234m 678m 9m +9m"),  # 2-3-4 and 6-7-8: a gap
    P("Two Terminal Chows", "[5'55z] [6'66z] 123m 789p 9p +9p"),  # 1-2-3 and 7-8-9 across suits
    P("Pung of Terminals or Honors", "[5'55z] 123m 456p 789s 9s +9s"),  # a dragon pung
    P("Melded Kong", "(6666m) 123m 456p 789s 5z +5z"),  # a concealed kong
    P("One Voided Suit", "[5'55z] [6'66z] 123m 456m 9m +9m"),  # one suit only: Half Flush
    P("No Honors", "[1'23m] 456p 789s 666m 5z +5z"),  # a pair of White
    P("Edge Wait", "12345m 456p 789s 99m +3m"),  # 1-2 + 3-4-5 waits on 3m and 6m
    P("Closed Wait", "1333m 456p 789s 345s +2m"),  # 1-3 + 3-3 waits on 2m and 1m
    P("Single Wait", "1234m 456p 789s 345s +4m"),  # 1-2-3-4 waits on 1m and 4m
    P("Self-Drawn", "[1'23m] 456p 789s 345s 5m +5m"),  # claimed
    P("Flower Tiles", "[5'55z] [6'66z] 123m 456p 9s +9s 1f 2f 3f"),  # 7 points: no mahjong, no flowers
]
NEAR_MISS = [P(*p.values, id=p.values[0]) for p in NEAR_MISS]


@pytest.mark.parametrize("fan, hand", NEAR_MISS)
def test_near_miss_does_not_score_the_fan(fan, hand):
    result = score(hand)
    assert fan not in fans(result), fans(result)


def test_every_fan_has_a_hand_and_a_near_miss():
    assert {p.values[0] for p in POSITIVE} == set(POINTS)
    assert {p.values[0] for p in NEAR_MISS} == set(POINTS)


# ---- near misses that are not hands at all: the context contradicts the tiles -------------------------

@pytest.mark.parametrize("hand, code", [
    # Last Tile (000 V.27): three of the tile are already discarded or exposed, so you cannot hold another.
    P("123m 456p 789s 345s 5m +5m | last_of_kind", "impossible_context", id="Last Tile-holding-another-copy"),
    # Robbing the Kong (000 III, V.43): the tile is taken from another player's kong, never drawn.
    P("123m 456p 78s 345s 55z +9s | robbing_kong self_drawn", "impossible_context", id="Robbing the Kong-self-drawn"),
    # ... and the other three of the tile were in the robbed pung.
    P("123m 456p 789s 345s 9s +9s | robbing_kong", "impossible_context", id="Robbing the Kong-holding-another"),
    # Out with Replacement Tile (000 V.42): the replacement is drawn, after declaring a kong.
    P("[1111'm] 234p 567s 789s 9m +9m | kong_replacement", "impossible_context",
      id="Out with Replacement Tile-not-self-drawn"),
    P("[1'23m] 234p 567s 789s 9m +9m | self_drawn kong_replacement", "impossible_context",
      id="Out with Replacement Tile-no-kong"),
])
def test_context_that_contradicts_the_tiles_is_an_error(hand, code):
    result = score(hand)
    assert not result.valid
    assert result.error.code == code
    assert result.items == ()


@pytest.mark.parametrize("text, code", [
    P("123m 456p 789s 5555m +5m", "too_many_copies", id="five-copies"),
    P("123m 456p 789s 345s +5m", "wrong_tile_count", id="thirteen-tiles"),
    P("[6666'm] 123m 456p 789s 6m +6m", "too_many_copies", id="kong-plus-more-copies"),
])
def test_illegal_hands_are_rejected(text, code):
    with pytest.raises(HandError) as caught:
        score(text)
    assert caught.value.code == code


# ---- 000 IV: the five counting principles -------------------------------------------------------------

@pytest.mark.parametrize("hand, higher, implied", [
    # The book's own example: Pure Straight presupposes Short Straight (and 1-2-3 + 7-8-9).
    P("123m 456m 789m 234p 5s +5s", "Pure Straight", ["Short Straight", "Two Terminal Chows"], id="Pure Straight"),
    P("[2'34m] 666m 789m 111m 5m +5m", "Full Flush", ["No Honors", "One Voided Suit"], id="Full Flush"),
    P("123m 456p 789s 345s 5m +5m | self_drawn", "Fully Concealed Hand", ["Self-Drawn", "Concealed Hand"],
      id="Fully Concealed Hand"),
    # 000 V.40: "a Húzott kővel mahjongért járó pont nem számolható el"
    P("[1'23m] [4'56p] [6'78s] 23s 55z +4s | self_drawn last_tile", "Last Tile Draw", ["Self-Drawn"],
      id="Last Tile Draw"),
    # 000 V.32: "a Zárókőre várt-ért járó pontok nem számolhatóak el"
    P("[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z", "Melded Hand", ["Single Wait"], id="Melded Hand"),
    P("[2'22m] [2'22p] 222s 567m 9s +9s", "Triple Pung", ["Double Pung"], id="Triple Pung"),
    P("222m 444p 666s [5'67m] 9s +9s", "Three Concealed Pungs", ["Two Concealed Pungs"], id="Three Concealed Pungs"),
    P("[555'z] [666'z] 777z 123m 9m +9m", "Big Three Dragons", ["Two Dragon Pungs", "Dragon Pung",
                                                                 "Little Three Dragons"], id="Big Three Dragons"),
    P("[555'z] [666'z] 7z 123m 789m +7z", "Little Three Dragons", ["Two Dragon Pungs", "Dragon Pung"],
      id="Little Three Dragons"),
    P("[111'z] [222'z] [333'z] 4z 567m +4z", "Little Four Winds", ["Big Three Winds", "Pung of Terminals or Honors"],
      id="Little Four Winds"),
    P("[111'z] [222'z] 333z 444z 5m +5m", "Big Four Winds",
      ["Big Three Winds", "Little Four Winds", "All Pungs", "Pung of Terminals or Honors", "Seat Wind",
       "Prevalent Wind"], id="Big Four Winds"),
    P("234m 234p 234s 567m 9s +9s", "Mixed Triple Chow", ["Mixed Double Chow"], id="Mixed Triple Chow"),
    P("[2'34m] [2'34m] 234m 567p 9s +9s", "Pure Triple Chow", ["Pure Double Chow"], id="Pure Triple Chow"),
    P("234234234234m 9p +9p", "Quadruple Chow", ["Pure Triple Chow", "Pure Double Chow", "Tile Hog"],
      id="Quadruple Chow"),
    P("[4'56m] 345p 555s 456p 5m +5m", "All Fives", ["All Simples", "No Honors"], id="All Fives"),
    P("[4'56m] 456p 444s 555s 6m +6m", "Middle Tiles", ["All Simples", "No Honors"], id="Middle Tiles"),
    P("[7'89m] 789p 777s 888s 9m +9m", "Upper Tiles", ["Upper Four", "No Honors"], id="Upper Tiles"),
    P("[1'23m] 123p 111s 222s 3m +3m", "Lower Tiles", ["Lower Four", "No Honors"], id="Lower Tiles"),
    P("[2'22m] 444p 666s 888m 2s +2s", "All Even Pungs", ["All Pungs", "All Simples", "No Honors"],
      id="All Even Pungs"),
    P("1122334455667m +7m", "Seven Shifted Pairs", ["Seven Pairs", "Full Flush", "Concealed Hand", "Single Wait",
                                                      "No Honors"], id="Seven Shifted Pairs"),
    P("19m19p19s1234567z +1m", "Thirteen Orphans", ["All Types", "Concealed Hand", "All Terminals and Honors"],
      id="Thirteen Orphans"),
    P("147m 25p 36s 123456z +7z", "Greater Honors and Knitted Tiles",
      ["Lesser Honors and Knitted Tiles", "All Types", "Concealed Hand"], id="Greater Honors and Knitted Tiles"),
    P("123m 789m 123p 789p 5s +5s", "Three-Suited Terminal Chows",
      ["All Chows", "Mixed Double Chow", "Two Terminal Chows", "No Honors"], id="Three-Suited Terminal Chows"),
    P("123123789789s 5s +5s", "Pure Terminal Chows",
      ["Full Flush", "All Chows", "Pure Double Chow", "Two Terminal Chows", "Seven Pairs"], id="Pure Terminal Chows"),
    P("[1111'm] [2222'p] [3333's] [4444'z] 5z +5z", "Four Kongs",
      ["Three Kongs", "Two Melded Kongs", "Melded Kong", "All Pungs", "Single Wait"], id="Four Kongs"),
    P("[1111'm] [2222'p] [3333's] 567p 9s +9s", "Three Kongs", ["Two Melded Kongs", "Melded Kong"], id="Three Kongs"),
    P("[5555'z] [6666'z] 345s 678s 9s +9s", "Two Melded Kongs", ["Melded Kong"], id="Two Melded Kongs"),
    P("(1111m) (2222p) 345s 678s 9s +9s", "Two Concealed Kongs", ["Concealed Kong", "Two Concealed Pungs"],
      id="Two Concealed Kongs"),
    P("111m 222p 333s 555z 9m +9m", "Four Concealed Pungs",
      ["Three Concealed Pungs", "Two Concealed Pungs", "All Pungs", "Concealed Hand"], id="Four Concealed Pungs"),
    P("111m 999m 111p 999p 1s +1s", "All Terminals",
      ["All Terminals and Honors", "All Pungs", "Outside Hand", "Pung of Terminals or Honors", "No Honors"],
      id="All Terminals"),
    P("[111'z] [222'z] 555z 666z 7z +7z", "All Honors",
      ["All Terminals and Honors", "All Pungs", "Outside Hand", "Pung of Terminals or Honors"], id="All Honors"),
    P("[1'11m] 999p 111z 555z 9s +9s", "All Terminals and Honors",
      ["All Pungs", "Outside Hand", "Pung of Terminals or Honors"], id="All Terminals and Honors"),
    P("[2'22m] [3'33m] 444m 555m 9p +9p", "Four Pure Shifted Pungs", ["Pure Shifted Pungs", "All Pungs"],
      id="Four Pure Shifted Pungs"),
    P("123m 345m 567m 789m 9p +9p", "Four Pure Shifted Chows",
      ["Pure Shifted Chows", "Short Straight", "Two Terminal Chows"], id="Four Pure Shifted Chows"),
    P("123m 456m 789m 234m 5m +5m", "Full Flush", ["No Honors"], id="Full Flush with Pure Straight"),
    P("[2'34m] 567p 345s 666s 9m +9m", "No Honors", [], id="No Honors alone"),
    # All Simples: only 2..8 of the suits, so no honour at all: No Honors is implied.
    P("[2'34m] 234p 234s 666m 8s +8s", "All Simples", ["No Honors"], id="All Simples"),
    P("[4'56m] 456p 333s 555s 6m +6m", "All Simples", ["No Honors"], id="All Simples-7-points"),
    # All Chows: "csak csaókból álló játék, honőrök nélkül" (000 V.18)
    P("123m 456p 789s 234s 9m +9m", "All Chows", ["No Honors"], id="All Chows"),
    P("[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z | seat=S prevalent=E", "Seat Wind", ["Pung of Terminals or Honors"],
      id="Seat Wind"),
])
def test_principle_1_implication(hand, higher, implied):
    """000 IV.1: a combination inevitably contained in a higher one is not counted."""
    result = score(hand)
    found = fans(result)
    assert higher in found, found
    for name in implied:
        assert name not in found, (name, found)


def test_principle_2_non_separation_three_identical_chows_exposed():
    """000 IV.2: three identical chows are not taken apart into Pure Shifted Pungs. Claimed chows cannot be
    regrouped at all: Pure Triple Chow only."""
    result = score("[2'34m] [2'34m] [2'34m] 567p 9s +9s")
    assert fans(result) == {"Pure Triple Chow": 1, "All Chows": 1, "Single Wait": 1}
    assert [kind for kind, _ in result.arrangement].count("chow") == 4


def test_principle_2_and_4_concealed_222333444_read_once_at_the_higher_value():
    """000 IV.2 and IV.4: the concealed tiles 222333444m read either as three 2-3-4 chows or as three shifted
    pungs, never both at once; the player takes the higher.
    Chows: Pure Triple Chow 24 + Concealed Hand 2 + All Chows 2 + Single Wait 1 = 29.
    Pungs: Pure Shifted Pungs 24 + Three Concealed Pungs 16 + Concealed Hand 2 + No Honors 1 + Single Wait 1 = 44."""
    result = score("222333444m 567p 9s +9s")
    found = fans(result)
    assert not ("Pure Triple Chow" in found and "Pure Shifted Pungs" in found)
    assert found == {"Pure Shifted Pungs": 1, "Three Concealed Pungs": 1, "Concealed Hand": 1, "No Honors": 1,
                     "Single Wait": 1}
    assert result.total == 44


def test_principle_4_higher_value_by_one_point():
    """000 IV.4 with the closest choice: 111 22 333s + 2s claimed.
    Chows 1-2-3 x3: Pure Triple Chow 24 + Concealed Hand 2 + All Chows 2 + Closed Wait 1 = 29.
    Pungs (the 2s pung claimed): Pure Shifted Pungs 24 + Concealed Hand 2 + Two Concealed Pungs 2
    + Pung of Terminals or Honors 1 + No Honors 1 = 30. The higher (30) is taken."""
    result = score("11122333s 567m 99p +2s")
    assert fans(result) == {"Pure Shifted Pungs": 1, "Concealed Hand": 1, "Two Concealed Pungs": 1,
                            "Pung of Terminals or Honors": 1, "No Honors": 1}
    assert result.total == 30


def test_principle_4_self_drawn_makes_all_three_pungs_concealed():
    result = score("11122333s 567m 99p +2s | self_drawn")
    assert fans(result) == {"Pure Shifted Pungs": 1, "Three Concealed Pungs": 1, "Fully Concealed Hand": 1,
                            "Pung of Terminals or Honors": 1, "No Honors": 1}
    assert result.total == 46


@pytest.mark.parametrize("hand", [
    P("123m 456m 789m 123m 5s +5s", id="1-2-3-beside-the-straight"),
    P("123123456789m 5s +5s", id="same-tiles-one-group"),
])
def test_principle_3_only_once(hand):
    """000 IV.3: a second 1-2-3 beside a Pure Straight does not make a second straight. It may join the
    straight's 1-2-3 (Pure Double Chow), or 4-5-6 (Short Straight), or 7-8-9 (Two Terminal Chows): once."""
    result = score(hand)
    found = fans(result)
    assert found["Pure Straight"] == 1
    assert sum(found.get(name, 0) for name in ("Pure Double Chow", "Short Straight", "Two Terminal Chows")) == 1
    # Pure Straight 16, one of the 1-pointers, Concealed Hand 2, All Chows 2, One Voided Suit 1, Single Wait 1
    assert result.total == 23


@pytest.mark.parametrize("hand, total", [
    P("123m 456p 789s 123p 5s +5s", 14, id="all-chows"),
    P("123m 456p 789s 123p 5z +5z", 12, id="honour-pair"),
])
def test_principle_5_account_once_the_books_example(hand, total):
    """000 IV.5: Mixed Straight and a 1-2-3 chow in the suit of the straight's 4-5-6: the 1-2-3 counts either as
    Short Straight (with the 4-5-6) or as Mixed Double Chow (with the straight's 1-2-3), not both."""
    result = score(hand)
    found = fans(result)
    assert found["Mixed Straight"] == 1
    assert found.get("Short Straight", 0) + found.get("Mixed Double Chow", 0) == 1
    assert result.total == total


def test_principle_5_four_chows_give_three_one_point_fans_not_four():
    """234567s 234567p: Short Straight x2 and Mixed Double Chow x2 are possible, but with four sets only three
    of them count (000 IV.5). 3 + Concealed Hand 2 + All Chows 2 + Single Wait 1 = 8."""
    result = score("234567s 234567p 9m +9m")
    found = fans(result)
    ones = found.get("Short Straight", 0) + found.get("Mixed Double Chow", 0)
    assert ones == 3
    assert found.get("Short Straight", 0) <= 2 and found.get("Mixed Double Chow", 0) <= 2
    assert result.total == 8 and result.valid


def test_principle_5_three_equal_chows_in_two_suits():
    """456m 456m 456p: Pure Double Chow and one Mixed Double Chow; the second 456m cannot form a second
    Mixed Double Chow with the same 456p."""
    result = score("[4'56m] [4'56m] 456p 555s 5m +5m")
    found = fans(result)
    assert found.get("Pure Double Chow") == 1 and found.get("Mixed Double Chow") == 1


# ---- the 8-point minimum and the settlement (000 IV) --------------------------------------------------

def test_minimum_is_counted_without_flowers():
    """7 points (Two Dragon Pungs 6 + Single Wait 1) and three flowers: still no mahjong (000 IV, V.13)."""
    result = score("[5'55z] [6'66z] 123m 456p 9s +9s 1f 2f 3f")
    assert not result.valid
    assert result.error.code == "below_minimum"
    assert "Flower Tiles" not in fans(result)
    assert result.total == 7


def test_eight_points_with_flowers_is_valid_and_flowers_count():
    result = score("[1'23m] [4'56p] [6'78s] 23s 55z 1f 2f 5f +4s")
    assert result.valid
    assert fans(result) == {"Chicken Hand": 1, "Flower Tiles": 3}
    assert result.total == 11


def test_exactly_eight_points_is_enough():
    result = score("[5'55z] [6'66z] 123m 456p 9p +9p")
    assert result.valid and result.total == 8


@pytest.mark.parametrize("hand", [
    "123m 456m 789m 234p 5s +5s",
    "[1'23m] [4'56p] [6'78s] 23s 55z 1f 2f 5f +4s",
    "[111'z] [222'z] 333z 444z 5m +5m",
])
def test_settlement_on_a_discard(hand):
    """The winner gets 8 from each of the three others, and the hand's value from the discarder."""
    result = score(hand)
    total = result.total
    pay = dict(result.settlement)
    assert pay == {"winner": 3 * 8 + total, "discarder": -(8 + total), "others": -8}
    assert pay["winner"] + pay["discarder"] + 2 * pay["others"] == 0


@pytest.mark.parametrize("hand", [
    "123m 456m 789m 234p 5s +5s | self_drawn",
    "[1'23m] [4'56p] [6'78s] 23s 55z 1f 2f 5f +4s | self_drawn last_tile",
    "(1111m) (2222p) 345s 678s 9s +9s | self_drawn",
])
def test_settlement_on_a_self_draw(hand):
    """On a self-draw every other player pays 8 plus the hand's value."""
    result = score(hand)
    assert result.valid
    total = result.total
    pay = dict(result.settlement)
    assert pay["winner"] == 3 * (8 + total)
    assert pay["others"] == -(8 + total)
    assert pay.get("discarder") is None
    assert pay["winner"] + 3 * pay["others"] == 0


def test_settlement_worked_example_values():
    """Pure Straight, Concealed Hand, All Chows, Single Wait = 21 on a discard: 24 + 21 = 45 to the winner,
    29 from the discarder, 8 from each of the two others. Self-drawn (23): 31 from each, 93 in all."""
    assert dict(score("123m 456m 789m 234p 5s +5s").settlement) == {"winner": 45, "discarder": -29, "others": -8}
    drawn = score("123m 456m 789m 234p 5s +5s | self_drawn")
    assert drawn.total == 23
    assert dict(drawn.settlement)["winner"] == 93 and dict(drawn.settlement)["others"] == -31


@pytest.mark.parametrize("hand, code", [
    P("[5'55z] [6'66z] 123m 456p 9s +9s 1f 2f 3f", "below_minimum", id="below-minimum"),
    P("[5'55z] [6'66z] 123m 456p 9s +8s", "not_mahjong", id="not-mahjong"),
    P("11m 22p 33s 44z 55m 77p 8s +9s", "not_mahjong", id="six-pairs"),
])
def test_false_mahjong_pays_ten_to_each(hand, code):
    """000 IV, last paragraph: a mahjong without 8 points pays 10 to every player."""
    result = score(hand)
    assert not result.valid and result.error.code == code
    pay = dict(result.settlement)
    assert pay == {"winner": -30, "discarder": 10, "others": 10}
    assert pay["winner"] + pay["discarder"] + 2 * pay["others"] == 0


def test_false_mahjong_on_a_self_draw_pays_ten_to_each():
    result = score("[1'23m] [4'56p] [6'78s] 23s 55z +4s | self_drawn")
    assert not result.valid and result.error.code == "below_minimum"
    pay = dict(result.settlement)
    assert pay["winner"] == -30 and pay["others"] == 10
    assert pay.get("discarder") is None
    assert pay["winner"] + 3 * pay["others"] == 0


# ---- worked examples from the seeds -------------------------------------------------------------------

@pytest.mark.parametrize("hand, present, absent", [
    # 000 V.3 "kör 2-3-4, kör 5-6-7"; 003 #71 "2-3-4 och 5-6-7 i bambu"
    P("[5'55z] [6'66z] 234p 567p 9p +9p", {"Short Straight": 1}, [], id="000-V3-Short-Straight-dots"),
    P("[5'55z] [6'66z] 234s 567s 9s +9s", {"Short Straight": 1}, [], id="003-71-Short-Straight-bamboo"),
    # 000 V.4 "egy színből 1-2-3 és 7-8-9 csaó"
    P("[5'55z] [6'66z] 123m 789m 9m +9m", {"Two Terminal Chows": 1}, [], id="000-V4-Two-Terminal-Chows"),
    # 003 #70 / #69
    P("[5'55z] [6'66z] 234m 234p 9m +9m", {"Mixed Double Chow": 1}, [], id="003-70-Mixed-Double-Chow"),
    P("[5'55z] [6'66z] 345s 345s 9s +9s", {"Pure Double Chow": 1}, [], id="003-69-Pure-Double-Chow"),
    # 000 III b: a wind pung is worth 1, a dragon pung 2, own or prevalent wind 2, both at once 4.
    P("[2'22z] 123m 456p 789s 9s +9s | seat=N prevalent=W", {"Pung of Terminals or Honors": 1},
      ["Seat Wind", "Prevalent Wind"], id="000-III-wind-pung-1"),
    P("[5'55z] 123m 456p 789s 9s +9s", {"Dragon Pung": 1}, ["Pung of Terminals or Honors"],
      id="000-III-dragon-pung-2"),
    P("[1'11z] 123m 456p 789s 9s +9s | seat=E prevalent=E", {"Seat Wind": 1, "Prevalent Wind": 1},
      ["Pung of Terminals or Honors"], id="000-III-own-and-prevalent-wind-4"),
    # 000 III c: a kong alone is worth 1 (Melded Kong)
    P("[6666'm] 123m 456p 789s 5z +5z", {"Melded Kong": 1}, ["Concealed Kong"], id="000-III-kong-1"),
    # 000 V.30 "bambusz 1-2-3, írás 2-3-4, kör 3-4-5"
    P("123s 234m 345p 678m 9s +9s", {"Mixed Shifted Chows": 1}, [], id="000-V30-Mixed-Shifted-Chows"),
    # 000 V.35 "kör 1-2-3, bambusz 4-5-6, írás 7-8-9"
    P("123p 456s 789m 345m 9m +9m", {"Mixed Straight": 1}, [], id="000-V35-Mixed-Straight"),
    # 000 V.37 "1-2-3 bambuszból, körből és írásból"
    P("123s 123p 123m 567m 9s +9s", {"Mixed Triple Chow": 1}, ["Mixed Double Chow"], id="000-V37-Mixed-Triple-Chow"),
    # 000 V.38 "írás 4-es pong, kör 5-ös pong, bambusz 6-os pong"
    P("[4'44m] [5'55p] 666s 123m 9s +9s", {"Mixed Shifted Pungs": 1}, [], id="000-V38-Mixed-Shifted-Pungs"),
    # 003 #42 "2-2-2, 3-3-3, 4-4-4" in three suits
    P("[2'22m] [3'33p] [4'44s] 567m 9s +9s", {"Mixed Shifted Pungs": 1}, [], id="003-42-Mixed-Shifted-Pungs"),
    # 000 V.52 "kör 1-2-3, 2-3-4, 3-4-5 vagy írás 2-3-4, 4-5-6, 6-7-8"
    P("123p 234p 345p 678m 9s +9s", {"Pure Shifted Chows": 1}, [], id="000-V52-Pure-Shifted-Chows-by-one"),
    P("234m 456m 678m 123p 9s +9s", {"Pure Shifted Chows": 1}, ["Four Pure Shifted Chows"],
      id="000-V52-Pure-Shifted-Chows-by-two"),
    # 000 V.60 "3 darab bambusz 2-3-4"
    P("[2'34s] [2'34s] [2'34s] 567p 9m +9m", {"Pure Triple Chow": 1}, ["Pure Shifted Pungs"],
      id="000-V60-Pure-Triple-Chow"),
    # 000 V.61 "írás 2-es pong, 3-as pong, 4-es pong"
    P("[2'22m] [3'33m] [4'44m] 567p 9s +9s", {"Pure Shifted Pungs": 1}, [], id="000-V61-Pure-Shifted-Pungs"),
    # 000 V.65 "írás 1-2-3, 2-3-4, 3-4-5, 4-5-6 vagy bambusz 1-2-3, 3-4-5, 5-6-7, 7-8-9"
    P("123m 234m 345m 456m 9p +9p", {"Four Pure Shifted Chows": 1}, ["Pure Shifted Chows"],
      id="000-V65-Four-Pure-Shifted-Chows-by-one"),
    P("123s 345s 567s 789s 9p +9p", {"Four Pure Shifted Chows": 1}, ["Pure Shifted Chows"],
      id="000-V65-Four-Pure-Shifted-Chows-by-two"),
    # 003 #16 "2-3-4, 3-4-5, 4-5-6, 5-6-7"
    P("234p 345p 456p 567p 9m +9m", {"Four Pure Shifted Chows": 1}, [], id="003-16-Four-Pure-Shifted-Chows"),
    # 000 V.68 "4 darab írás 5-6-7"
    P("567567567567m 9p +9p", {"Quadruple Chow": 1}, ["Pure Triple Chow"], id="000-V68-Quadruple-Chow"),
    # 000 V.69 "kör 3-as pong, 4-es pong, 5-ös pong, 6-os pong"; 003 #15 "2-2-2 .. 5-5-5"
    P("[3'33p] [4'44p] [5'55p] [6'66p] 9m +9m", {"Four Pure Shifted Pungs": 1}, ["Pure Shifted Pungs"],
      id="000-V69-Four-Pure-Shifted-Pungs"),
    P("[2'22s] [3'33s] [4'44s] [5'55s] 9m +9m", {"Four Pure Shifted Pungs": 1}, [],
      id="003-15-Four-Pure-Shifted-Pungs"),
    # 000 V.20 Double Pung "két pong azonos számokkal, de különböző színekben"
    P("[2'22m] [2'22p] [5'55s] 777m 9p +9p", {"Double Pung": 1}, [], id="000-V20-Double-Pung"),
    # 000 V.54 Triple Pung; 003 #32
    P("[7'77m] [7'77p] 777s 123m 9s +9s", {"Triple Pung": 1}, ["Double Pung"], id="000-V54-Triple-Pung"),
    # 000 V.31 / 003 #52 All Types: characters, dots, bamboo, winds and dragons
    P("[2'34m] 456p 678s 222z 5z +5z", {"All Types": 1}, [], id="000-V31-All-Types"),
    P("11m 22p 33s 44z 55z 77p 8s +8s", {"All Types": 1, "Seven Pairs": 1}, [], id="000-V31-All-Types-seven-pairs"),
    # 000 V.36 reversible tiles: bamboo 2 4 5 6 8 9, dots 1 2 3 4 5 8 9, White
    P("[2'22s] 456s 888p 999p 5z +5z", {"Reversible Tiles": 1}, [], id="000-V36-Reversible-Tiles"),
    P("[2'22s] 456s 888p 999p 6z +6z", {}, ["Reversible Tiles"], id="000-V36-Green-is-not-reversible"),
    # 000 V.78 All Green: bamboo 2 3 4 6 8 and Green Dragon; 003 #3
    P("[2'34s] 666s 888s 234s 6z +6z", {"All Green": 1}, [], id="000-V78-All-Green"),
    P("[2'34s] 666s 888s 234s 5z +5z", {}, ["All Green"], id="000-V78-White-is-not-green"),
])
def test_worked_examples(hand, present, absent):
    result = score(hand)
    if present:
        assert result.valid, (result.error, fans(result))
    found = fans(result)
    for name, count in present.items():
        assert found.get(name) == count, found
    for name in absent:
        assert name not in found, found


@pytest.mark.parametrize("winning", list("123456789"))
def test_nine_gates_wins_on_any_of_the_nine_tiles(winning):
    """000 V.79: 1-1-1-2-3-4-5-6-7-8-9-9-9 of one suit, concealed: any of the nine tiles of that suit wins."""
    result = score(f"1112345678999p +{winning}p")
    assert result.valid
    found = fans(result)
    assert found["Nine Gates"] == 1
    for name in ("Full Flush", "Concealed Hand", "No Honors"):
        assert name not in found


@pytest.mark.parametrize("winning", ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"])
def test_thirteen_orphans_with_any_fourteenth_tile(winning):
    """000 V.82: one of each terminal and honour, and one more of any of them."""
    result = score(f"19m19p19s1234567z +{winning}")
    assert fans(result) == {"Thirteen Orphans": 1}
    assert result.total == 88


@pytest.mark.parametrize("hand, present, absent", [
    # 000 V.71: three wind pungs, a pair of the fourth and any other set (here a chow)
    P("[2'22z] [3'33z] 444z 1z 789p +1z | seat=S prevalent=S", {"Little Four Winds": 1},
      ["Big Three Winds", "Big Four Winds"], id="000-V71-Little-Four-Winds"),
    # 000 V.72: two dragon pungs, a pair of the third and two other sets
    P("[5'55z] 666z 7z 345m 678p +7z", {"Little Three Dragons": 1}, ["Two Dragon Pungs", "Dragon Pung"],
      id="000-V72-Little-Three-Dragons"),
    # 000 V.76 / V.77 with kongs: "pong/kong"
    P("[1111'z] [2222'z] [333'z] 444z 9m +9m", {"Big Four Winds": 1}, ["Big Three Winds"], id="000-V76-with-kongs"),
    P("[5555'z] [666'z] 777z 123p 9p +9p", {"Big Three Dragons": 1}, ["Two Dragon Pungs"], id="000-V77-with-a-kong"),
    # 003 #34: honours and knitted tiles, the sets need not be complete (000 V.45 gives 6 + 8 as its example)
    P("147m 258p 369s 2345z +7z", {"Lesser Honors and Knitted Tiles": 1}, ["Greater Honors and Knitted Tiles"],
      id="003-34-Lesser-5-honours-need-not-be-complete"),
    P("147m 25p 369s 12345z +6z", {"Lesser Honors and Knitted Tiles": 1}, ["Greater Honors and Knitted Tiles"],
      id="000-V45-Lesser-6-honours-8-knitted"),
    # 000 V.57: every honour and any 7 different knitted tiles
    P("14m 258p 3s 1234567z +9s", {"Greater Honors and Knitted Tiles": 1}, ["Lesser Honors and Knitted Tiles"],
      id="000-V57-Greater"),
    # 000 V.46 / 003 #35: the knitted straight counts as three chows for All Chows
    P("147m 258p 369s 234m 5m +5m", {"Knitted Straight": 1, "All Chows": 1}, [], id="003-35-Knitted-Straight-All-Chows"),
    P("147p 258s 369m [1'23p] 9m +9m", {"Knitted Straight": 1}, ["Concealed Hand"],
      id="000-V46-Knitted-Straight-with-a-claimed-chow"),
    # 000 V.81: seven pairs rising by one in one suit
    P("2233445566778s +8s", {"Seven Shifted Pairs": 1}, ["Seven Pairs"], id="000-V81-Seven-Shifted-Pairs"),
    P("3344556677889p +9p", {"Seven Shifted Pairs": 1}, [], id="003-8-Seven-Shifted-Pairs-up-to-9"),
    # 000 V.56: seven pairs; four alike count as two pairs, and are a Tile Hog (003 #64)
    P("1111m 22p 33p 44s 55s 6z +6z", {"Seven Pairs": 1, "Tile Hog": 1}, [], id="000-V56-Seven-Pairs-with-four-alike"),
    # 000 V.19 / 003 #64: all four of a tile, not a kong
    P("123m 456p 789s 333m 5z +5z", {"Tile Hog": 1}, [], id="000-V19-Tile-Hog"),
    P("[4'44p] 123m 56p 789s 55z +4p", {"Tile Hog": 1}, [], id="000-V19-Tile-Hog-across-a-pung-and-a-chow"),
    # 000 V.22 / 003 #62 / #56: a concealed kong keeps the hand concealed
    P("(6666m) 123m 456p 789s 5z +5z", {"Concealed Kong": 1, "Concealed Hand": 1}, [], id="003-62-concealed-kong"),
    P("(6666m) 123m 456p 789s 5z +5z | self_drawn", {"Concealed Kong": 1, "Fully Concealed Hand": 1},
      ["Self-Drawn", "Concealed Hand"], id="003-56-concealed-kong-self-drawn"),
    # 003 #66: Two Concealed Pungs, one of them a concealed kong
    P("(2222m) 777p [5'55s] [8'88m] 9p +9p", {"Two Concealed Pungs": 1, "Concealed Kong": 1}, [],
      id="003-66-concealed-kong-and-pung"),
    # spec / 000 V.33 / 003 #57: one melded and one concealed kong: Two Melded Kongs 4 + Concealed Kong 2 = 6
    P("(1111m) [2222'p] 345s 678s 9s +9s", {"Two Melded Kongs": 1, "Concealed Kong": 1},
      ["Melded Kong", "Two Concealed Kongs"], id="000-V33-melded-and-concealed-kong"),
    # 003 #17: Three Kongs may be combined with Concealed Kong
    P("(1111m) [2222'p] [3333's] 567p 9s +9s", {"Three Kongs": 1, "Concealed Kong": 1}, ["Two Melded Kongs"],
      id="003-17-Three-Kongs-with-a-concealed-kong"),
    # 003 #5: Four Kongs may be combined with Concealed Kong
    P("(1111m) [2222'p] [3333's] [4444'z] 5z +5z", {"Four Kongs": 1, "Concealed Kong": 1}, ["Three Kongs"],
      id="003-5-Four-Kongs-with-a-concealed-kong"),
    # 000 V.32: every set claimed and the last tile claimed; not with a concealed kong among them
    P("[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z", {"Melded Hand": 1}, ["Single Wait", "Concealed Hand"],
      id="000-V32-Melded-Hand"),
    P("(1111z) [4'56p] [7'89s] [1'23m] 5z +5z", {}, ["Melded Hand"], id="000-V32-concealed-kong-is-not-claimed"),
    # 000 V.27: the last of a tile; the other three visible (here: all in the winner's own pung)
    P("[4'44p] 123m 56p 789s 55z +4p", {"Last Tile": 1}, [], id="000-V27-Last-Tile-others-in-own-pung"),
    # 000 V.27: "a Rabolt konggal nem kombinálható"
    P("123m 456p 78s 345s 55z +9s | robbing_kong last_of_kind", {"Robbing the Kong": 1}, ["Last Tile"],
      id="000-V27-Last-Tile-not-with-Robbing-the-Kong"),
    # 000 V.12: self-drawn, also when drawn in place of a flower (an ordinary self-draw to the scorer)
    P("[1'23m] 456p 789s 345s 5m 1f +5m | self_drawn", {"Self-Drawn": 1, "Flower Tiles": 1}, [],
      id="000-V12-Self-Drawn"),
    # 000 V.40 / V.41 / V.42 / V.43
    P("123m 456p 789s 345s 5m +5m | self_drawn last_tile", {"Last Tile Draw": 1, "Fully Concealed Hand": 1},
      ["Self-Drawn", "Last Tile Claim"], id="000-V40-Last-Tile-Draw"),
    P("123m 456p 789s 345s 5m +5m | last_tile", {"Last Tile Claim": 1, "Concealed Hand": 1}, ["Last Tile Draw"],
      id="000-V41-Last-Tile-Claim"),
    P("(1111m) 234p 567s 789s 9m +9m | self_drawn kong_replacement",
      {"Out with Replacement Tile": 1, "Fully Concealed Hand": 1}, ["Self-Drawn"], id="000-V42-Out-with-Replacement"),
    # 000 V.39: a Chicken Hand with flowers is still a Chicken Hand (flowers aside)
    P("[1'23m] [4'56p] [6'78s] 23s 55z 3f +4s", {"Chicken Hand": 1, "Flower Tiles": 1}, [],
      id="000-V39-Chicken-Hand-with-a-flower"),
    # 000 V.5 / 003 #73: terminals and winds, not dragons; 000 V.14 dragons
    P("[1'11p] 123m 456p 789s 5z +5z", {"Pung of Terminals or Honors": 1}, [], id="000-V5-pung-of-ones"),
    P("[4'44z] 123m 456p 789s 5z +5z", {"Pung of Terminals or Honors": 1}, [], id="000-V5-pung-of-North"),
    # 000 V.24: every set and the pair hold a terminal or an honour
    P("[1'23m] 789m 111s 999p 5z +5z", {"Outside Hand": 1}, [], id="000-V24-Outside-Hand"),
    # 000 V.7: only two suits (honours allowed)
    P("[5'55z] [6'66z] 123m 456p 9p +9p", {"One Voided Suit": 1}, [], id="000-V7-One-Voided-Suit"),
    # 000 V.51: 1-2-3 and 7-8-9 in two suits and a pair of fives in the third
    P("123s 789s 123m 789m 5p +5p", {"Three-Suited Terminal Chows": 1}, [], id="000-V51"),
    # 000 V.75: two 1-2-3, two 7-8-9 and the fives of one suit
    P("123123789789p 5p +5p", {"Pure Terminal Chows": 1}, ["Seven Pairs"], id="000-V75"),
    # 000 V.58 All Even Pungs with a kong
    P("[2222'm] 444p 666s 888m 2s +2s", {"All Even Pungs": 1}, [], id="000-V58-with-a-kong"),
    # 000 V.53 All Fives: every set and the pair hold a five
    P("[5'55m] [3'45p] 567s 456m 5s +5s", {"All Fives": 1}, [], id="000-V53-All-Fives"),
    # 000 V.70 All Terminals; 000 V.73 All Honors; 000 V.67 All Terminals and Honors (seven pairs too)
    P("[1'11m] [9'99p] 111s 999s 9m +9m", {"All Terminals": 1}, [], id="000-V70-All-Terminals"),
    P("11z 22z 33z 44z 55z 66z 7z +7z", {"All Honors": 1, "Seven Pairs": 1}, [], id="000-V73-All-Honors-seven-pairs"),
    P("11m99m11p99p11s99s1z +1z", {"All Terminals and Honors": 1, "Seven Pairs": 1}, ["Thirteen Orphans"],
      id="000-V67-All-Terminals-and-Honors-seven-pairs"),
])
def test_book_descriptions(hand, present, absent):
    result = score(hand)
    assert result.valid, (result.error, fans(result))
    found = fans(result)
    for name, count in present.items():
        assert found.get(name) == count, found
    for name in absent:
        assert name not in found, found


def test_chow_only_from_the_left_player():
    """000 III a: West holds 4 and 6 of dots; South (on West's left) discards 5: West may chow it. From North or
    East (across or right) the 5 cannot be claimed for a chow."""
    hand = parse_hand("123m 789s 345s 5z [5'46p] +5z")
    assert hand.melds[0].claimed_tile.code == "5p"
    for meld in ("[45'6p]", "[465'p]"):
        with pytest.raises(HandError) as caught:
            parse_hand(f"123m 789s 345s 5z {meld} +5z")
        assert caught.value.code == "impossible_chow"


# ---- waits: only when the winning tile is the only tile that completes the hand (000 V.9-11) ------------

@pytest.mark.parametrize("hand, wait", [
    P("12m 456p 789s 345s 99m +3m", "Edge Wait", id="edge-3-of-1-2-3"),
    P("89m 456p 123s 345s 55s +7m", "Edge Wait", id="edge-7-of-7-8-9"),
    P("13m 456p 789s 345s 99m +2m", "Closed Wait", id="closed-2-of-1-2-3"),
    P("46m 123p 789s 345s 99m +5m", "Closed Wait", id="closed-5-of-4-5-6"),
    P("123m 456p 789s 345s 5m +5m", "Single Wait", id="single-pair"),
    P("123m 456p 789s 5z 345s +5z", "Single Wait", id="single-honour-pair"),
    # 1-3 + 3-4-5: the 2 fits nowhere else (000 V.10 "a várt kő nem illeszkedhet más kombinációba")
    P("13345m 456p 789s 99m +2m", "Closed Wait", id="closed-beside-a-chow-sharing-the-3"),
    # 1-2 with all four 6m in the winner's own kong: 3m is the only tile left that wins
    P("12345m [6666'm] 99m 111z +3m", "Edge Wait", id="edge-when-the-other-wait-is-all-in-own-kong"),
])
def test_wait_scored(hand, wait):
    result = score(hand)
    found = fans(result)
    assert found.get(wait) == 1, found
    others = {"Edge Wait", "Closed Wait", "Single Wait"} - {wait}
    assert not others & set(found), found


@pytest.mark.parametrize("hand, wait", [
    # 1-2-3-4-5 + 3m: 3m and 6m both win
    P("12345m 456p 789s 99m +3m", "Edge Wait", id="edge-also-waits-on-6"),
    # 7-8-9-9-9 waits on 7 and 8
    P("89m 456p 123s 345s 99m +7m", "Edge Wait", id="edge-8999-also-waits-on-8"),
    # 1-3 + 3-3: 2m or 1m
    P("1333m 456p 789s 345s +2m", "Closed Wait", id="closed-also-waits-on-1"),
    # 3-5-5-5: 4m (3-4-5 + 5-5) or 3m (3-3 + 5-5-5)
    P("3555m 456p 789s 345s +4m", "Closed Wait", id="closed-3555-also-waits-on-3"),
    # 1-2-3-4: 1m or 4m
    P("1234m 456p 789s 345s +4m", "Single Wait", id="single-1234-two-ways"),
    # a two-sided wait is no wait at all
    P("23m 456p 789s 345s 99m +4m", "Edge Wait", id="two-sided"),
    # pair waits in a shanpon (two pairs) are not single waits
    P("123m 456p 789s 55m 99s +9s", "Single Wait", id="shanpon"),
    # seven pairs: the single wait is in the fan (000 V.56 / 003 #19)
    P("11m 22p 33s 44z 55m 77p 8s +8s", "Single Wait", id="seven-pairs"),
    # Melded Hand implies it (000 V.32)
    P("[1'23m] [4'56p] [7'89s] [2'22z] 5z +5z", "Single Wait", id="melded-hand"),
])
def test_wait_not_scored(hand, wait):
    result = score(hand)
    assert wait not in fans(result), fans(result)


def test_self_drawn_against_claimed():
    """000 V.12: the winning tile drawn by the winner himself."""
    claimed, drawn = score("[1'23m] 456p 789s 345s 5m +5m"), score("[1'23m] 456p 789s 345s 5m +5m | self_drawn")
    assert "Self-Drawn" not in fans(claimed)
    assert fans(drawn)["Self-Drawn"] == 1
    assert drawn.total == claimed.total + 1


# ---- kongs: concealed kongs beside Three / Four Kongs -------------------------------------------------

@pytest.mark.parametrize("hand, kongs", [
    P("(1111m) (2222p) [3333's] 567p 9s +9s", "Three Kongs", id="Three Kongs"),
    P("(1111m) (2222p) [3333's] [4444'z] 5z +5z", "Four Kongs", id="Four Kongs"),
])
def test_two_concealed_kongs_beside_three_or_four_kongs(hand, kongs):
    """Three (or four) kongs do not imply that two of them are concealed (000 IV.1 drops only what is
    inevitably contained), and 003 #17 / #5 say these fans combine with the concealed-kong fans. Two concealed
    kongs are therefore Two Concealed Kongs (000 V.44, 8 points), which in turn implies Concealed Kong and Two
    Concealed Pungs; 000 IV.4 also lets the player take the 8 rather than Concealed Kong 2 + Two Concealed
    Pungs 2."""
    found = fans(score(hand))
    assert found.get(kongs) == 1
    assert found.get("Two Concealed Kongs") == 1, found
    assert "Concealed Kong" not in found and "Two Concealed Pungs" not in found, found
