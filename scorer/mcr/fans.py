"""The 81 MCR fans, one small unit each, with its points beside it.

Names and numbers are the official English ones of seed 003 (1 = Big Four Winds .. 81 = Flower Tiles);
``book=`` is the item number in seed 000 section V, so that each rule can be checked line by line.
``excludes`` lists what the fan already implies (seed 000 IV, principle 1: an implied combination is
not counted again). Fans formed between sets (``set_fan``) give the condition on their members; which
sets may count together is decided for all of them at once in combos.py (principles 2, 3 and 5).

Readings chosen where the books leave room, with their source lines:

- Kongs. 003 fan 57 "Två Kongs, byggda av slängda brickor eller dolda. En kan kombineras med Concealed
  Kong" and 000 item 33 "Egy húzott és egy kézben kong" (6 points): one melded plus one concealed kong
  scores Two Melded Kongs (4) + Concealed Kong (2). 003 fans 17 and 5 (Three Kongs, Four Kongs): "Får
  kombineras med Concealed Kong": three or four kongs do not imply that any is concealed (principle 1),
  so concealed kongs among them still score Concealed Kong, or Two Concealed Kongs for two or more.
- Lesser Honors and Knitted Tiles: 000 item 45 names "6 honours and 8 knitted tiles"; 003 fan 34 allows
  any number of each ("behöver inte vara kompletta"). We follow 003: 5 to 7 honours (7 is Greater), the
  rest different tiles of one knitted straight; with all 9 of them it also scores Knitted Straight.
- Pung of Terminals or Honors: 000 III b counts a seat or prevalent wind pung at 2 (4 when both), so a
  wind pung scored as Seat or Prevalent Wind, or inside Big Three Winds / Little and Big Four Winds, is
  not also a Pung of Terminals or Honors. 000 item 5 and 003 fan 73 exclude dragons.
- Waits (000 items 9-11; 003 fans 77-79) count only when the winning tile is the only tile that
  completes the hand; a tile of which all four copies are already in the hand cannot complete it.
"""

from __future__ import annotations

from scorer.mcr.analysis import Analysis
from scorer.mcr.catalog import fan, set_fan
from scorer.shapes import rank_of, suit_of

WINDS = range(27, 31)
DRAGONS = range(31, 34)
GREEN = frozenset({19, 20, 21, 23, 25, 32})  # 2s 3s 4s 6s 8s, Green Dragon
REVERSIBLE = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31})  # dots 1-5 8 9, bamboo 2 4 5 6 8 9, White


def _wind_pungs(a: Analysis) -> int:
    return a.wind_pungs


def _dragon_pungs(a: Analysis) -> int:
    return a.dragon_pungs


def _kongs(a: Analysis) -> int:
    return a.melded_kongs + a.concealed_kongs


def _pair_in(a: Analysis, tiles: range) -> bool:
    return a.pair is not None and a.pair.tile in tiles


def _no_honors(a: Analysis) -> bool:
    return 3 not in a.suits


def _numbered_suits(a: Analysis) -> int:
    return len(a.suits - {3})


def _every_part(a: Analysis, test) -> bool:
    return a.is_regular and all(test(p) for p in a.parts)


def _has_terminal_or_honor(part) -> bool:
    return any(i >= 27 or rank_of(i) in (1, 9) for i in part.indices)


def _has_five(part) -> bool:
    return any(i < 27 and rank_of(i) == 5 for i in part.indices)


def _terminal_chows(a: Analysis) -> list[tuple[int, int]]:
    """(suit, lowest rank) of each chow, when all four are 1-2-3 or 7-8-9."""
    return sorted((suit_of(c.tile), rank_of(c.tile)) for c in a.chows)


def _ranks_within(a: Analysis, low: int, high: int) -> bool:
    return _no_honors(a) and all(low <= r <= high for r in a.numbered_ranks)


# ---- 88 points ----------------------------------------------------------------------------------------

@fan(1, "Big Four Winds", 88, book=76, excludes=("Big Three Winds", "Little Four Winds", "All Pungs", "Seat Wind",
                                                 "Prevalent Wind", "Pung of Terminals or Honors"))
def big_four_winds(a: Analysis) -> bool:
    return _wind_pungs(a) == 4


@fan(2, "Big Three Dragons", 88, book=77, excludes=("Little Three Dragons", "Two Dragon Pungs", "Dragon Pung"))
def big_three_dragons(a: Analysis) -> bool:
    return _dragon_pungs(a) == 3


@fan(3, "All Green", 88, book=78, excludes=("Half Flush", "One Voided Suit"))
def all_green(a: Analysis) -> bool:
    return all(i in GREEN for i in a.kinds)


NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)


@fan(4, "Nine Gates", 88, book=79, excludes=("Full Flush", "Concealed Hand", "Fully Concealed Hand", "No Honors",
                                             ("Pung of Terminals or Honors", 1)))
def nine_gates(a: Analysis) -> bool:
    if a.declared_melds or a.form != "regular" or len(a.suits) != 1 or 3 in a.suits:
        return False
    base = suit_of(a.win) * 9
    counts = list(a.counts[base:base + 9])
    counts[a.win - base] -= 1
    return tuple(counts) == NINE_GATES


@fan(5, "Four Kongs", 88, book=80, excludes=("Three Kongs", "Two Melded Kongs", "Melded Kong", "All Pungs",
                                             "Single Wait"))
def four_kongs(a: Analysis) -> bool:
    return _kongs(a) == 4


@fan(6, "Seven Shifted Pairs", 88, book=81, excludes=("Seven Pairs", "Full Flush", "Concealed Hand",
                                                      "Fully Concealed Hand", "Single Wait", "No Honors",
                                                      "One Voided Suit"))
def seven_shifted_pairs(a: Analysis) -> bool:
    kinds = a.kinds
    return (a.form == "seven_pairs" and len(kinds) == 7 and kinds[-1] < 27
            and suit_of(kinds[0]) == suit_of(kinds[-1]) and kinds[-1] - kinds[0] == 6)


@fan(7, "Thirteen Orphans", 88, book=82, excludes=("All Terminals and Honors", "All Types", "Concealed Hand",
                                                   "Fully Concealed Hand", "Single Wait"))
def thirteen_orphans(a: Analysis) -> bool:
    return a.form == "thirteen_orphans"


# ---- 64 points ----------------------------------------------------------------------------------------

@fan(8, "All Terminals", 64, book=70, excludes=("All Terminals and Honors", "All Pungs", "Outside Hand",
                                                "Pung of Terminals or Honors", "No Honors", "Double Pung"))
def all_terminals(a: Analysis) -> bool:
    return all(i < 27 and rank_of(i) in (1, 9) for i in a.kinds)


@fan(9, "Little Four Winds", 64, book=71, excludes=("Big Three Winds",))
def little_four_winds(a: Analysis) -> bool:
    return _wind_pungs(a) == 3 and _pair_in(a, WINDS)


@fan(10, "Little Three Dragons", 64, book=72, excludes=("Two Dragon Pungs", "Dragon Pung"))
def little_three_dragons(a: Analysis) -> bool:
    return _dragon_pungs(a) == 2 and _pair_in(a, DRAGONS)


@fan(11, "All Honors", 64, book=73, excludes=("All Terminals and Honors", "All Pungs", "Outside Hand",
                                              "Pung of Terminals or Honors"))
def all_honors(a: Analysis) -> bool:
    return a.suits == {3}


@fan(12, "Four Concealed Pungs", 64, book=74, excludes=("Three Concealed Pungs", "Two Concealed Pungs", "All Pungs",
                                                        "Concealed Hand", "Fully Concealed Hand"))
def four_concealed_pungs(a: Analysis) -> bool:
    return a.concealed_pungs == 4


@fan(13, "Pure Terminal Chows", 64, book=75, excludes=("Full Flush", "All Chows", "Pure Double Chow",
                                                       "Two Terminal Chows", "No Honors"))
def pure_terminal_chows(a: Analysis) -> bool:
    if len(a.chows) != 4 or a.pair is None or a.pair.tile >= 27 or rank_of(a.pair.tile) != 5:
        return False
    suit = suit_of(a.pair.tile)
    return _terminal_chows(a) == [(suit, 1), (suit, 1), (suit, 7), (suit, 7)]


# ---- 48 points ----------------------------------------------------------------------------------------

@set_fan(14, "Quadruple Chow", 48, book=68, group="chows", arity=4,
         excludes=("Pure Triple Chow", "Pure Double Chow", "Tile Hog"))
def quadruple_chow(t0: int, t1: int, t2: int, t3: int) -> bool:
    return t0 == t1 == t2 == t3


@set_fan(15, "Four Pure Shifted Pungs", 48, book=69, group="pungs", arity=4,
         excludes=("Pure Shifted Pungs", "All Pungs"))
def four_pure_shifted_pungs(t0: int, t1: int, t2: int, t3: int) -> bool:
    return t3 < 27 and suit_of(t0) == suit_of(t3) and (t1 - t0, t2 - t1, t3 - t2) == (1, 1, 1)


# ---- 32 points ----------------------------------------------------------------------------------------

@set_fan(16, "Four Pure Shifted Chows", 32, book=65, group="chows", arity=4,
         excludes=("Pure Shifted Chows", "Short Straight", "Two Terminal Chows"))
def four_pure_shifted_chows(t0: int, t1: int, t2: int, t3: int) -> bool:
    steps = (t1 - t0, t2 - t1, t3 - t2)
    return suit_of(t0) == suit_of(t3) and steps in ((1, 1, 1), (2, 2, 2))


@fan(17, "Three Kongs", 32, book=66, excludes=("Two Melded Kongs", "Melded Kong"))
def three_kongs(a: Analysis) -> bool:
    return _kongs(a) == 3


@fan(18, "All Terminals and Honors", 32, book=67, excludes=("All Pungs", "Outside Hand", "Pung of Terminals or Honors"))
def all_terminals_and_honors(a: Analysis) -> bool:
    return all(i >= 27 or rank_of(i) in (1, 9) for i in a.kinds)


# ---- 24 points ----------------------------------------------------------------------------------------

@fan(19, "Seven Pairs", 24, book=56, excludes=("Concealed Hand", "Fully Concealed Hand", "Single Wait"))
def seven_pairs(a: Analysis) -> bool:
    return a.form == "seven_pairs"


@fan(20, "Greater Honors and Knitted Tiles", 24, book=57,
     excludes=("Lesser Honors and Knitted Tiles", "All Types", "Concealed Hand", "Fully Concealed Hand"))
def greater_honors_and_knitted_tiles(a: Analysis) -> bool:
    return a.honors_and_knitted == "greater"


@fan(21, "All Even Pungs", 24, book=58, excludes=("All Pungs", "All Simples", "No Honors"))
def all_even_pungs(a: Analysis) -> bool:
    return _every_part(a, lambda p: p.kind != "chow" and p.tile < 27 and rank_of(p.tile) % 2 == 0)


@fan(22, "Full Flush", 24, book=59, excludes=("No Honors",))
def full_flush(a: Analysis) -> bool:
    return len(a.suits) == 1 and 3 not in a.suits


@set_fan(23, "Pure Triple Chow", 24, book=60, group="chows", arity=3, excludes=("Pure Double Chow",))
def pure_triple_chow(t0: int, t1: int, t2: int) -> bool:
    return t0 == t1 == t2


@set_fan(24, "Pure Shifted Pungs", 24, book=61, group="pungs", arity=3)
def pure_shifted_pungs(t0: int, t1: int, t2: int) -> bool:
    return t2 < 27 and suit_of(t0) == suit_of(t2) and (t1 - t0, t2 - t1) == (1, 1)


@fan(25, "Upper Tiles", 24, book=62, excludes=("Upper Four", "No Honors"))
def upper_tiles(a: Analysis) -> bool:
    return _ranks_within(a, 7, 9)


@fan(26, "Middle Tiles", 24, book=63, excludes=("All Simples", "No Honors"))
def middle_tiles(a: Analysis) -> bool:
    return _ranks_within(a, 4, 6)


@fan(27, "Lower Tiles", 24, book=64, excludes=("Lower Four", "No Honors"))
def lower_tiles(a: Analysis) -> bool:
    return _ranks_within(a, 1, 3)


# ---- 16 points ----------------------------------------------------------------------------------------

@set_fan(28, "Pure Straight", 16, book=50, group="chows", arity=3)
def pure_straight(t0: int, t1: int, t2: int) -> bool:
    return suit_of(t0) == suit_of(t2) and rank_of(t0) == 1 and t1 == t0 + 3 and t2 == t0 + 6


@fan(29, "Three-Suited Terminal Chows", 16, book=51,
     excludes=("All Chows", "No Honors", "Mixed Double Chow", "Two Terminal Chows"))
def three_suited_terminal_chows(a: Analysis) -> bool:
    if len(a.chows) != 4 or a.pair is None or a.pair.tile >= 27 or rank_of(a.pair.tile) != 5:
        return False
    others = sorted({0, 1, 2} - {suit_of(a.pair.tile)})
    return _terminal_chows(a) == [(others[0], 1), (others[0], 7), (others[1], 1), (others[1], 7)]


@set_fan(30, "Pure Shifted Chows", 16, book=52, group="chows", arity=3)
def pure_shifted_chows(t0: int, t1: int, t2: int) -> bool:
    return suit_of(t0) == suit_of(t2) and (t1 - t0, t2 - t1) in ((1, 1), (2, 2))


@fan(31, "All Fives", 16, book=53, excludes=("All Simples", "No Honors"))
def all_fives(a: Analysis) -> bool:
    return _every_part(a, _has_five)


@set_fan(32, "Triple Pung", 16, book=54, group="pungs", arity=3)
def triple_pung(t0: int, t1: int, t2: int) -> bool:
    return t2 < 27 and len({suit_of(t0), suit_of(t1), suit_of(t2)}) == 3 and rank_of(t0) == rank_of(t1) == rank_of(t2)


@fan(33, "Three Concealed Pungs", 16, book=55, excludes=("Two Concealed Pungs",))
def three_concealed_pungs(a: Analysis) -> bool:
    return a.concealed_pungs == 3


# ---- 12 points ----------------------------------------------------------------------------------------

@fan(34, "Lesser Honors and Knitted Tiles", 12, book=45, excludes=("All Types", "Concealed Hand", "Fully Concealed Hand"))
def lesser_honors_and_knitted_tiles(a: Analysis) -> bool:
    return a.honors_and_knitted == "lesser"


@fan(35, "Knitted Straight", 12, book=46)
def knitted_straight(a: Analysis) -> bool:
    if a.form == "knitted_straight":
        return True
    return a.honors_and_knitted is not None and sum(1 for i in a.kinds if i < 27) == 9


@fan(36, "Upper Four", 12, book=47, excludes=("No Honors",))
def upper_four(a: Analysis) -> bool:
    return _ranks_within(a, 6, 9)


@fan(37, "Lower Four", 12, book=48, excludes=("No Honors",))
def lower_four(a: Analysis) -> bool:
    return _ranks_within(a, 1, 4)


@fan(38, "Big Three Winds", 12, book=49)
def big_three_winds(a: Analysis) -> bool:
    return _wind_pungs(a) == 3


# ---- 8 points -----------------------------------------------------------------------------------------

@set_fan(39, "Mixed Straight", 8, book=35, group="chows", arity=3)
def mixed_straight(t0: int, t1: int, t2: int) -> bool:
    return len({suit_of(t0), suit_of(t1), suit_of(t2)}) == 3 and sorted(map(rank_of, (t0, t1, t2))) == [1, 4, 7]


@fan(40, "Reversible Tiles", 8, book=36, excludes=("One Voided Suit",))
def reversible_tiles(a: Analysis) -> bool:
    return all(i in REVERSIBLE for i in a.kinds)


@set_fan(41, "Mixed Triple Chow", 8, book=37, group="chows", arity=3, excludes=("Mixed Double Chow",))
def mixed_triple_chow(t0: int, t1: int, t2: int) -> bool:
    return len({suit_of(t0), suit_of(t1), suit_of(t2)}) == 3 and rank_of(t0) == rank_of(t1) == rank_of(t2)


@set_fan(42, "Mixed Shifted Pungs", 8, book=38, group="pungs", arity=3)
def mixed_shifted_pungs(t0: int, t1: int, t2: int) -> bool:
    ranks = sorted(map(rank_of, (t0, t1, t2)))
    return (t2 < 27 and len({suit_of(t0), suit_of(t1), suit_of(t2)}) == 3
            and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[0] + 2)


@fan(43, "Chicken Hand", 8, book=39)
def chicken_hand(a: Analysis) -> bool:
    return False  # decided by the engine: it scores when nothing else does (flowers aside)


@fan(44, "Last Tile Draw", 8, book=40, excludes=("Self-Drawn",))
def last_tile_draw(a: Analysis) -> bool:
    return a.context.last_tile and a.context.self_drawn


@fan(45, "Last Tile Claim", 8, book=41)
def last_tile_claim(a: Analysis) -> bool:
    return a.context.last_tile and not a.context.self_drawn


@fan(46, "Out with Replacement Tile", 8, book=42, excludes=("Self-Drawn",))
def out_with_replacement_tile(a: Analysis) -> bool:
    return a.context.kong_replacement and a.context.self_drawn


@fan(47, "Robbing the Kong", 8, book=43, excludes=("Last Tile",))
def robbing_the_kong(a: Analysis) -> bool:
    return a.context.robbing_kong and not a.context.self_drawn


@fan(48, "Two Concealed Kongs", 8, book=44, excludes=("Concealed Kong", "Two Concealed Pungs"))
def two_concealed_kongs(a: Analysis) -> bool:
    return a.concealed_kongs >= 2


# ---- 6 points -----------------------------------------------------------------------------------------

@fan(49, "All Pungs", 6, book=28)
def all_pungs(a: Analysis) -> bool:
    return a.has_sets and len(a.pungs) == 4


@fan(50, "Half Flush", 6, book=29)
def half_flush(a: Analysis) -> bool:
    return 3 in a.suits and _numbered_suits(a) == 1


@set_fan(51, "Mixed Shifted Chows", 6, book=30, group="chows", arity=3)
def mixed_shifted_chows(t0: int, t1: int, t2: int) -> bool:
    ranks = sorted(map(rank_of, (t0, t1, t2)))
    return len({suit_of(t0), suit_of(t1), suit_of(t2)}) == 3 and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[0] + 2


@fan(52, "All Types", 6, book=31)
def all_types(a: Analysis) -> bool:
    return (_numbered_suits(a) == 3 and any(i in WINDS for i in a.kinds)
            and any(i in DRAGONS for i in a.kinds))


@fan(53, "Melded Hand", 6, book=32, excludes=("Single Wait",))
def melded_hand(a: Analysis) -> bool:
    return a.exposed_melds == 4 and not a.context.self_drawn


@fan(54, "Two Dragon Pungs", 6, book=34, excludes=("Dragon Pung",))
def two_dragon_pungs(a: Analysis) -> bool:
    return _dragon_pungs(a) == 2


# ---- 4 points -----------------------------------------------------------------------------------------

@fan(55, "Outside Hand", 4, book=24)
def outside_hand(a: Analysis) -> bool:
    return _every_part(a, _has_terminal_or_honor)


@fan(56, "Fully Concealed Hand", 4, book=25, excludes=("Self-Drawn",))
def fully_concealed_hand(a: Analysis) -> bool:
    return a.exposed_melds == 0 and a.context.self_drawn


@fan(57, "Two Melded Kongs", 4, book=26, excludes=("Melded Kong",))
def two_melded_kongs(a: Analysis) -> bool:
    return _kongs(a) == 2 and a.melded_kongs >= 1


@fan(58, "Last Tile", 4, book=27)
def last_tile(a: Analysis) -> bool:
    return a.context.last_of_kind


# ---- 2 points -----------------------------------------------------------------------------------------

@fan(59, "Dragon Pung", 2, book=14)
def dragon_pung(a: Analysis) -> int:
    return _dragon_pungs(a)


@fan(60, "Prevalent Wind", 2, book=15)
def prevalent_wind(a: Analysis) -> bool:
    return any(p.tile == 26 + a.context.prevalent_wind.number for p in a.pungs)


@fan(61, "Seat Wind", 2, book=16)
def seat_wind(a: Analysis) -> bool:
    return any(p.tile == 26 + a.context.seat_wind.number for p in a.pungs)


@fan(62, "Concealed Hand", 2, book=17)
def concealed_hand(a: Analysis) -> bool:
    return a.exposed_melds == 0 and not a.context.self_drawn


@fan(63, "All Chows", 2, book=18, excludes=("No Honors",))
def all_chows(a: Analysis) -> bool:
    chows = len(a.chows) + (3 if a.form == "knitted_straight" else 0)
    return chows == 4 and a.pair is not None and a.pair.tile < 27


@fan(64, "Tile Hog", 2, book=19)
def tile_hog(a: Analysis) -> int:
    return sum(1 for n in a.counts if n == 4) - _kongs(a)


@set_fan(65, "Double Pung", 2, book=20, group="pungs", arity=2)
def double_pung(t0: int, t1: int) -> bool:
    return t1 < 27 and suit_of(t0) != suit_of(t1) and rank_of(t0) == rank_of(t1)


@fan(66, "Two Concealed Pungs", 2, book=21)
def two_concealed_pungs(a: Analysis) -> bool:
    return a.concealed_pungs == 2


@fan(67, "Concealed Kong", 2, book=22)
def concealed_kong(a: Analysis) -> bool:
    return a.concealed_kongs >= 1


@fan(68, "All Simples", 2, book=23, excludes=("No Honors",))
def all_simples(a: Analysis) -> bool:
    return all(i < 27 and 2 <= rank_of(i) <= 8 for i in a.kinds)


# ---- 1 point ------------------------------------------------------------------------------------------

@set_fan(69, "Pure Double Chow", 1, book=1, group="chows", arity=2)
def pure_double_chow(t0: int, t1: int) -> bool:
    return t0 == t1


@set_fan(70, "Mixed Double Chow", 1, book=2, group="chows", arity=2)
def mixed_double_chow(t0: int, t1: int) -> bool:
    return suit_of(t0) != suit_of(t1) and rank_of(t0) == rank_of(t1)


@set_fan(71, "Short Straight", 1, book=3, group="chows", arity=2)
def short_straight(t0: int, t1: int) -> bool:
    return suit_of(t0) == suit_of(t1) and t1 - t0 == 3


@set_fan(72, "Two Terminal Chows", 1, book=4, group="chows", arity=2)
def two_terminal_chows(t0: int, t1: int) -> bool:
    return suit_of(t0) == suit_of(t1) and rank_of(t0) == 1 and t1 - t0 == 6


@fan(73, "Pung of Terminals or Honors", 1, book=5)
def pung_of_terminals_or_honors(a: Analysis) -> int:
    winds_scored = {26 + a.context.seat_wind.number, 26 + a.context.prevalent_wind.number}
    many_winds = _wind_pungs(a) >= 3  # they score as Big Three Winds or Little / Big Four Winds
    return sum(1 for p in a.pungs
               if (p.tile < 27 and rank_of(p.tile) in (1, 9))
               or (p.tile in WINDS and p.tile not in winds_scored and not many_winds))


@fan(74, "Melded Kong", 1, book=6)
def melded_kong(a: Analysis) -> bool:
    return a.melded_kongs == 1 and a.concealed_kongs == 0


@fan(75, "One Voided Suit", 1, book=7)
def one_voided_suit(a: Analysis) -> bool:
    return _numbered_suits(a) == 2


@fan(76, "No Honors", 1, book=8)
def no_honors(a: Analysis) -> bool:
    return _no_honors(a)


@fan(77, "Edge Wait", 1, book=9)
def edge_wait(a: Analysis) -> bool:
    return a.wait == "edge"


@fan(78, "Closed Wait", 1, book=10)
def closed_wait(a: Analysis) -> bool:
    return a.wait == "closed"


@fan(79, "Single Wait", 1, book=11)
def single_wait(a: Analysis) -> bool:
    return a.wait == "single"


@fan(80, "Self-Drawn", 1, book=12)
def self_drawn(a: Analysis) -> bool:
    return a.context.self_drawn


@fan(81, "Flower Tiles", 1, book=13)
def flower_tiles(a: Analysis) -> int:
    return a.flowers  # never counts towards the 8-point minimum (the engine adds it last)
