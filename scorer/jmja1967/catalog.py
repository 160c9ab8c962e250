"""Every scoring item of the book (seed 004, "PISTELASKU" and "PISTETAULUKOT") as a small named rule
beside its value.

Each rule says how many times it counts for a reading of a hand (0: not at all). Points rules add to
the basic points ("peruspisteet"), doubling rules double them once per doubling ("peruspisteet
kerrotaan kahdella kerran kutakin kertomista kohden"), limit rules ("maksimikädet") are worth the
maximum, 500.

>>> [(r.name, r.value) for r in POINTS]
[('Mahjong', 20), ('Mahjong tile from the wall', 2), ('Only possible tile', 2), ('Mahjong from the hand, last tile claimed', 10)]
>>> GROUP_TABLE[TERMINAL_OR_OTHER_WIND].values
{'pair': 0, 'pung': (4, 8), 'kong': (16, 32)}
>>> round_points(132), round_points(136), round_points(132, "up")
(130, 140, 140)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from scorer.jmja1967.reading import (DOUBLE_WIND, DRAGONS, ORDINARY, TERMINAL_OR_OTHER_WIND, VALUED, WINDS, Reading,
                                     is_value_tile)
from scorer.result import ScoreItem
from scorer.shapes import rank_of, suit_of

MAXIMUM = 500
"""MAKSIMI: "pisteiden maksimi on 500 (kaikki pisteet)"."""


@dataclass(frozen=True)
class Rule:
    key: str
    name: str
    finnish: str   # the book's words
    value: int     # points, doublings, or MAXIMUM for a limit hand
    kind: str      # "points", "doubles" or "limit"
    count: Callable[[Reading], int] = field(repr=False, compare=False)

    def item(self, times: int) -> ScoreItem:
        if self.kind == "doubles":
            return ScoreItem(self.name, count=times, doubles=self.value)
        return ScoreItem(self.name, self.value, times)


POINTS: list[Rule] = []
DOUBLINGS: list[Rule] = []
LIMITS: list[Rule] = []


def _rule(registry: list[Rule], kind: str, key: str, name: str, finnish: str, value: int):
    def register(count: Callable[[Reading], int | bool]) -> Callable:
        registry.append(Rule(key, name, finnish, value, kind, lambda r: int(count(r))))
        return count
    return register


def points(key, name, finnish, value):
    return _rule(POINTS, "points", key, name, finnish, value)


def doubling(key, name, finnish, value):
    return _rule(DOUBLINGS, "doubles", key, name, finnish, value)


def limit(key, name, finnish):
    return _rule(LIMITS, "limit", key, name, finnish, MAXIMUM)


# ------------------------------------------------------------------------------------------------
# Shared tests


def is_worthless(r: Reading) -> bool:
    """ARVOTON KÄSI: "1. 4 tsaoa 2. pari ei ole kunnianarvoisia (saa olla vieras tuuli) 3. viimeinen tiili
    ei ole ainoa mahdollisuus 4. viimeinen tiili ei ole muurista, paitsi jos muut tiilet ovat kaikki
    kädestä = peruspisteet joko 20 tai 30"."""
    return (r.form == "regular" and worthless_four_chows(r) and worthless_plain_pair(r)
            and not r.only_possible and worthless_not_from_wall(r))


def worthless_four_chows(r: Reading) -> bool:
    """Condition 1: "4 tsaoa"."""
    return len(r.chows) == 4


def worthless_plain_pair(r: Reading) -> bool:
    """Condition 2: "pari ei ole kunnianarvoisia (saa olla vieras tuuli)": no dragon, own or round wind."""
    return all(r.tile_class(p.index) not in (VALUED, DOUBLE_WIND) for p in r.pairs)


def worthless_not_from_wall(r: Reading) -> bool:
    """Condition 4: "viimeinen tiili ei ole muurista, paitsi jos muut tiilet ovat kaikki kädestä"."""
    return not r.self_drawn or r.concealed_hand


def suits_used(r: Reading) -> set[int]:
    return {suit_of(i) for i in r.tile_indices}


# ------------------------------------------------------------------------------------------------
# 1. Basic points ("peruspisteet")


@points("mahjong", "Mahjong", "mahjong", 20)
def _mahjong(r: Reading) -> bool:
    return r.winning


@dataclass(frozen=True)
class GroupRow:
    """One row of the group table: pair, pong exposed/concealed, kong exposed/concealed."""

    key: str
    label: str
    finnish: str
    values: dict


# "pari pong kong / tav.käd.tav.käd." — the columns are pair, pong ("tav." ordinary = exposed, "käd."
# kädestä = concealed) and kong (exposed, concealed); the extracted rows read "-24 816", "-48 1632",
# "248 1632", "448 1632" (see docs/rules/jmja1967.md for how they were split).
GROUP_TABLE: dict[str, GroupRow] = {row.key: row for row in (
    GroupRow(ORDINARY, "ordinary tiles", "tavalliset", {"pair": 0, "pung": (2, 4), "kong": (8, 16)}),
    GroupRow(TERMINAL_OR_OTHER_WIND, "terminals or other wind", "reunatiilet, vieras tuuli",
             {"pair": 0, "pung": (4, 8), "kong": (16, 32)}),
    GroupRow(VALUED, "dragons, own wind or round wind", "lohikäärmeet, oma tuuli, erän tuuli",
             {"pair": 2, "pung": (4, 8), "kong": (16, 32)}),
    GroupRow(DOUBLE_WIND, "the double wind", "kaksoistuuli", {"pair": 4, "pung": (4, 8), "kong": (16, 32)}),
)}


def group_points(kind: str, row: str, concealed: bool) -> int:
    """Points for one group ("ryhmille taulukon mukaan"); a chow or a single tile scores nothing.

    >>> group_points("pung", "ordinary", False), group_points("kong", "terminal", True), group_points("pair", "double_wind", True)
    (2, 32, 4)
    """
    if kind not in ("pair", "pung", "kong"):
        return 0
    value = GROUP_TABLE[row].values[kind]
    return value if kind == "pair" else value[1 if concealed else 0]


def group_items(r: Reading) -> list[ScoreItem]:
    """The group table's items for a reading, one per kind of group, in the table's order."""
    rows = list(GROUP_TABLE)
    counted: dict[tuple[int, int, bool], int] = {}
    for part in r.parts:
        row = r.tile_class(part.index)
        if group_points(part.kind, row, part.concealed):
            key = (rows.index(row), ("pair", "pung", "kong").index(part.kind), part.concealed)
            counted[key] = counted.get(key, 0) + 1
    found = []
    for (row_index, kind_index, concealed), times in sorted(counted.items()):
        row, kind = GROUP_TABLE[rows[row_index]], ("pair", "pung", "kong")[kind_index]
        if kind == "pair":
            name = f"Pair of {row.label}"
        else:
            name = f"{kind.title()} of {row.label}, {'concealed' if concealed else 'exposed'}"
        found.append(ScoreItem(name, group_points(kind, row.key, concealed), times))
    return found


@points("from_wall", "Mahjong tile from the wall", "viimeinen tiili muurista / mahjongtiili kädestä", 2)
def _from_wall(r: Reading) -> bool:
    # The worthless hand's basic points are 20 or 30 ("= peruspisteet joko 20 tai 30"): its wall tile adds none.
    return r.winning and r.self_drawn and not is_worthless(r)


@points("only_possible", "Only possible tile", "ainoa mahdollisuus", 2)
def _only_possible(r: Reading) -> bool:
    return r.winning and r.only_possible


@points("concealed_claimed", "Mahjong from the hand, last tile claimed", "mahjong kädestä, viimeinen tiili huudettu",
        10)
def _concealed_claimed(r: Reading) -> bool:
    return r.winning and r.concealed_hand and not r.self_drawn


# ------------------------------------------------------------------------------------------------
# 2. Doublings ("kertomiset")
# Lucky groups ("onnelliset ryhmät")


@doubling("lucky_group", "Pung or kong of dragons, own wind or round wind",
          "lohikäärme-, oma tuuli-, erän tuuli-pong tai kong", 1)
def _lucky_group(r: Reading) -> int:
    return sum(1 for p in r.pungs if r.tile_class(p.index) == VALUED)


@doubling("double_wind_group", "Pung or kong of the double wind", "kaksoistuulipong tai -kong", 2)
def _double_wind_group(r: Reading) -> int:
    return sum(1 for p in r.pungs if r.tile_class(p.index) == DOUBLE_WIND)


@doubling("concealed_self_drawn", "Mahjong from the hand", "mahjong kädestä (viimeinenkin kädestä)", 1)
def _concealed_self_drawn(r: Reading) -> bool:
    # "(viimeinen huudettu, ks. peruspisteet)": with the last tile claimed it is the 10 basic points instead.
    return r.winning and r.concealed_hand and r.self_drawn


# Group combinations ("ryhmäyhdistelmät"); the pong game ("pongpeli (4 pongia tai kongia)")


@doubling("pong_game", "Pong game (four pongs or kongs, 0-2 of them concealed)",
          "pongpeli: 0, 1, 2 pongia tai kongia kädestä", 1)
def _pong_game(r: Reading) -> bool:
    return len(r.pungs) == 4 and len(r.concealed_pungs) <= 2


@doubling("pong_game_three_concealed", "Pong game with three concealed pongs or kongs",
          "pongpeli: 3 pongia tai kongia kädestä", 2)
def _pong_game_three(r: Reading) -> bool:
    return len(r.pungs) == 4 and len(r.concealed_pungs) == 3


@doubling("three_concealed_and_chow", "Three concealed pongs or kongs and a chow",
          "3 pongia tai kongia kädestä + 1 tsao", 1)
def _three_concealed_and_chow(r: Reading) -> bool:
    return len(r.concealed_pungs) == 3 and len(r.chows) == 1


# Ways of mahjong ("mahjongtavat")


@doubling("last_wall_tile", "Mahjong tile is the last tile of the wall", "mahjongtiili on muurin viimeinen tiili", 1)
def _last_wall_tile(r: Reading) -> bool:
    return r.winning and r.context.last_tile and r.self_drawn


@doubling("last_discard", "Mahjong tile is the last discard", "mahjongtiili on viimeinen poispantu tiili", 1)
def _last_discard(r: Reading) -> bool:
    return r.winning and r.context.last_tile and not r.self_drawn


@doubling("dead_wall", "Replacement tile from the dead wall", "mahjongtiili on lisätiili rauniosta", 1)
def _dead_wall(r: Reading) -> bool:
    return r.winning and r.context.kong_replacement


@doubling("robbing_kong", "Robbing the kong", "kongin ryöstö", 1)
def _robbing_kong(r: Reading) -> bool:
    return r.winning and r.context.robbing_kong


@doubling("pure_straight", "Three consecutive chows 1-9 of one suit", "kolme peräkkäistä tsaoa (1-9) samaa maata", 1)
def _pure_straight(r: Reading) -> bool:
    starts = {p.index for p in r.chows}
    return any({s, s + 3, s + 6} <= starts for s in (0, 9, 18))


@doubling("worthless", "Worthless hand", "arvoton käsi", 1)
def _worthless(r: Reading) -> bool:
    return r.winning and is_worthless(r)


# Composition ("koostumus")


@doubling("no_value_tiles", "No value tiles", "ei arvotiiliä", 1)
def _no_value_tiles(r: Reading) -> bool:
    return not any(is_value_tile(i) for i in r.tile_indices)


@doubling("all_value_tiles", "All value tiles", "kaikki arvotiiliä", 1)
def _all_value_tiles(r: Reading) -> bool:
    return all(is_value_tile(i) for i in r.tile_indices)


@doubling("value_in_every_group", "Value tiles in every group", "joka yhdistelmässä arvotiiliä", 1)
def _value_in_every_group(r: Reading) -> bool:
    groups = r.sets + r.pairs
    return len(groups) == 5 and all(any(is_value_tile(i) for i in p.indices) for p in groups)


@doubling("half_flush", "Half flush", "taitettu väri (yhtä maata + kunnianarvoisia)", 1)
def _half_flush(r: Reading) -> bool:
    suits = suits_used(r)
    return 3 in suits and len(suits) == 2


@doubling("full_flush", "Full flush", "täysväri (yhtä maata)", 4)
def _full_flush(r: Reading) -> bool:
    suits = suits_used(r)
    return len(suits) == 1 and 3 not in suits


@doubling("three_little_dragons", "Three little dragons", "kolme pientä mestaria (lohik.: 2 pongia tai kongia + pari)",
          1)
def _three_little_dragons(r: Reading) -> bool:
    return (sum(1 for p in r.pungs if p.index in DRAGONS) == 2
            and any(p.index in DRAGONS for p in r.pairs))


# ------------------------------------------------------------------------------------------------
# Limit hands ("maksimikädet"), each worth the maximum


@limit("three_great_dragons", "Three great dragons", "kolme suurta mestaria (lohik.: 3 pongia tai kongia)")
def _three_great_dragons(r: Reading) -> bool:
    return sum(1 for p in r.pungs if p.index in DRAGONS) == 3


@limit("four_little_blessings", "Four little blessings", "neljä pientä siunausta (tuulia: 3 pongia tai kongia + pari)")
def _four_little_blessings(r: Reading) -> bool:
    return (sum(1 for p in r.pungs if p.index in WINDS) == 3
            and any(p.index in WINDS for p in r.pairs))


@limit("four_great_blessings", "Four great blessings", "neljä suurta siunausta (tuulia: 4 pongia tai kongia)")
def _four_great_blessings(r: Reading) -> bool:
    return sum(1 for p in r.pungs if p.index in WINDS) == 4


@limit("all_honours", "All honours", "kunniakäsi (kaikki kunnianarvoisia)")
def _all_honours(r: Reading) -> bool:
    return r.form == "regular" and all(i >= 27 for i in r.tile_indices)


@limit("all_terminals", "All terminals", "kaikki reunatiiliä")
def _all_terminals(r: Reading) -> bool:
    return r.form == "regular" and all(i < 27 and rank_of(i) in (1, 9) for i in r.tile_indices)


@limit("hidden_treasure", "Hidden treasure", "kätketty aarre (4 pongia kädestä)")
def _hidden_treasure(r: Reading) -> bool:
    return len(r.concealed_pungs) == 4


@limit("heavenly_blessing", "Heavenly blessing", "taivaallinen siunaus (itä tekee mahjongin jaosta)")
def _heavenly_blessing(r: Reading) -> bool:
    return r.context.first_turn and r.east and r.self_drawn and not r.has_melds


@limit("earthly_blessing", "Earthly blessing",
       "maallinen siunaus (joku muu tekee mahjongin 1. kierroksella idän poispanosta tai muurista)")
def _earthly_blessing(r: Reading) -> bool:
    return r.context.first_turn and not r.east and not r.has_melds


@limit("nine_gates", "Nine gates", "yhdeksän porttia")
def _nine_gates(r: Reading) -> bool:
    return is_nine_gates(r)


@limit("thirteen_orphans", "Thirteen orphans", "13 orpoa")
def _thirteen_orphans(r: Reading) -> bool:
    return r.form == "thirteen_orphans"


NINE_GATES_WAIT = (3, 1, 1, 1, 1, 1, 1, 1, 3)


def is_nine_gates(r: Reading) -> bool:
    """YHDEKSÄN PORTTIA: "1. kaikki tiilet samaa maata 2. sisältää 1-pongin, 2-8, 9-pongin 3. 14. tiilen on
    oltava mikä tahansa näistä kolmestatoista 4. ... kivellä istuttaessa kaikki tiilet on oltava kädessä.
    (Vain 14. tiilen voi huutaa.)": no meld, and the 13 tiles before the mahjong tile are 1112345678999."""
    if r.form != "regular" or r.has_melds or r.win is None:
        return False
    suits = suits_used(r)
    if len(suits) != 1 or 3 in suits:
        return False
    first = 9 * suits.pop()
    before = list(r.counts[first:first + 9])
    before[r.win - first] -= 1
    return tuple(before) == NINE_GATES_WAIT


# ------------------------------------------------------------------------------------------------
# 3. Rounding ("pyöristys, lopulliset pisteet")

ROUNDINGS = ("nearest", "up")


def round_points(points: int, mode: str = "nearest") -> int:
    """ "kaikki pisteet pyöristetään lähimpään kymmeneen": to the nearest ten (a 5 would go up, but the
    points are always even). ``mode="up"`` is the option for clubs that round every odd amount up."""
    if mode == "up":
        return -(-points // 10) * 10
    return (points + 5) // 10 * 10
