"""Every item of the book's accounting (seed 001, "IV. Az elszámolás"), one small named rule each, with
its value and the book's line beside it (diacritics restored from the OCR).

A rule counts how many times it applies to a reading of a hand (``Facts``): points rules give points
per unit, doubling rules give doublings per unit ("1x" = the points are doubled once), extra rules give
the 1000-4000 "Extra jutalompontok" of the exceptional hands.

>>> [(r.name, r.value) for r in POINTS[:3]]
[('Chow', 0), ('Exposed pung of simples', 2), ('Concealed pung of simples', 4)]
>>> sorted({r.value for r in EXTRAS})
[1000, 2000, 3000, 4000]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scorer.classical.forms import DRAGONS, Part, Shape
from scorer.classical.options import Options
from scorer.shapes import TERMINALS_AND_HONORS, rank_of, suit_of

GREEN = frozenset({19, 20, 21, 23, 25, 32})  # bamboo 2 3 4 6 8 and the Green Dragon


@dataclass(frozen=True, slots=True)
class Facts:
    """One reading of a hand, and what the rules need to know about the player and the deal."""

    shape: Shape
    tiles: tuple[int, ...]  # every playing tile of the hand, a kong giving 4
    flower_seats: tuple[int, ...]  # 1 East .. 4 North, one per flower or season
    seat: int  # the player's own number, 1 East .. 4 North
    winner: bool
    robbed: bool  # the winning tile was robbed: a claimed discard, or taken from a kong
    favoured: bool  # East, or the banker
    first_turn: bool
    options: Options

    @property
    def parts(self) -> tuple[Part, ...]:
        return self.shape.parts

    @property
    def own_wind(self) -> int:
        return 26 + self.seat

    @property
    def suits(self) -> set[int]:
        return {suit_of(i) for i in self.tiles}

    def figures(self, kind: str, *, concealed: bool, terminal_or_honour: bool) -> int:
        return sum(1 for p in self.parts if p.kind == kind and p.concealed == concealed
                   and (p.tile in TERMINALS_AND_HONORS) == terminal_or_honour)


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    kind: str  # "points", "doubles" or "extra"
    value: int
    book: str
    count: Callable[[Facts], int | bool]


POINTS: list[Rule] = []
DOUBLES: list[Rule] = []
EXTRAS: list[Rule] = []
_LISTS = {"points": POINTS, "doubles": DOUBLES, "extra": EXTRAS}


def rule(kind: str, name: str, value: int, book: str):
    def register(count: Callable[[Facts], int | bool]) -> Callable[[Facts], int | bool]:
        _LISTS[kind].append(Rule(name, kind, value, book, count))
        return count

    return register


# --- "A figurák pontértékei (kirakva / kézben, ill. rablással / rablás nélkül)" -----------------------

rule("points", "Chow", 0, "Chow: 0 / 0")(lambda f: sum(p.kind == "chow" for p in f.parts))

for _kind, _book_kind, _values in (("pung", "Pong", ((2, 4), (4, 8))), ("kong", "Kong", ((8, 16), (16, 32)))):
    for _honour, (_which_tiles, _book_tiles) in enumerate((("simples", "2, 3, 4, 5, 6, 7 vagy 8"),
                                                            ("terminals or honours", "1, 9, szél vagy sárkány"))):
        for _concealed in (False, True):
            _row = _values[_honour]
            rule("points", f"{'Concealed' if _concealed else 'Exposed'} {_kind} of {_which_tiles}", _row[_concealed],
                 f"{_book_kind} ({_book_tiles}): {_row[0]} / {_row[1]}")(
                lambda f, k=_kind, c=_concealed, h=bool(_honour): f.figures(k, concealed=c, terminal_or_honour=h))


@rule("points", "Own flower or season", 8, "Saját virág vagy évszak: 8 / -")
def own_flower(f: Facts) -> int:
    return sum(seat == f.seat for seat in f.flower_seats)


@rule("points", "Other flower or season", 4, "Idegen virág vagy évszak: 4 / -")
def other_flower(f: Facts) -> int:
    return sum(seat != f.seat for seat in f.flower_seats)


@rule("points", "Pair of own wind", 2, "Pár saját szélből: 2 / 2")
def own_wind_pair(f: Facts) -> int:
    return sum(p.kind == "pair" and p.tile == f.own_wind for p in f.parts)


@rule("points", "Pair of dragons", 2, "Sárkánypár: 2 / 2")
def dragon_pair(f: Facts) -> int:
    return sum(p.kind == "pair" and p.tile in DRAGONS for p in f.parts)


@rule("points", "Mahjong", 20, "Prémium-pontok a győztesnek (MahJongg-ért): 20")
def mahjong(f: Facts) -> bool:
    return f.winner


@rule("points", "Won without robbing", 2, "+ 2, ha nem rablással nyert")
def not_robbed(f: Facts) -> bool:
    return f.winner and not f.robbed


# --- "Duplázás (a fentiek szerint számított pontokat duplázza)" -----------------------------------------

@rule("doubles", "Pung or kong of dragons or own wind", 1,
      "1x, ha: A figurák csak Sárkányokból, vagy saját Szelekből állnak")
def dragon_or_own_wind_figure(f: Facts) -> int:
    return sum(p.is_pung_or_kong and (p.tile in DRAGONS or p.tile == f.own_wind) for p in f.parts)


@rule("doubles", "Favoured player (East or banker) won", 1, "1x, ha: A kedvezményezett (bankár) nyert")
def favoured_won(f: Facts) -> bool:
    return f.winner and f.favoured and f.options.favoured_win_doubles


@rule("doubles", "One suit with honours", 1,
      "1x, ha: Egyszínű az összes figura (Sárkánnyal, vagy Széllel zárva)")
def one_suit_with_honours(f: Facts) -> bool:
    numbered = {suit_of(i) for i in f.tiles if i < 27}
    honours = [i for i in f.tiles if i >= 27]
    if not f.winner or len(numbered) != 1 or not honours:
        return False
    if f.options.one_suit_honours == "any":
        return True
    return len(honours) == 2 and honours[0] == honours[1]  # the closing pair is the only honour


@rule("doubles", "Pure one suit", 3, "3x, ha: Tiszta Színjáték (Sárkányok és Szelek nélküli egyszínjáték)")
def pure_one_suit(f: Facts) -> bool:
    return f.winner and len(f.suits) == 1 and 3 not in f.suits


@rule("doubles", "All honours", 4,
      "4x, ha: Honőrös győzelem (csak Szelekből és Sárkányokból állnak a figurák)")
def all_honours(f: Facts) -> bool:
    return f.winner and f.suits == {3}


@rule("doubles", "Mahjong from heaven", 2,
      "2x, ha: MahJongg \"az égből\" (a kedvezményezett, az osztás után azonnal nyer)")
def from_heaven(f: Facts) -> bool:
    return f.winner and f.favoured and f.first_turn and not f.robbed


# --- "+ az Extra jutalompontok (1000, 2000, 3000, 4000)" ---------------------------------------------

def _regular_sets(f: Facts) -> list[Part]:
    return [p for p in f.parts if p.kind != "pair"] if f.shape.form == "regular" else []


def _pair(f: Facts) -> Part:
    return next(p for p in f.parts if p.kind == "pair")


@rule("extra", "Nagysor", 1000,
      "1000 pont: Nagysor: 3 egymást követő sor mind azonos színből, mind a négy szél és egy tetszőleges lap "
      "a széria színéből. (Bezárható három sárkány és egy szélpárral is.)")
def nagysor(f: Facts) -> bool:
    return f.shape.form == "nagysor"


@rule("extra", "KilencLámpás", 1000,
      "1000 pont: KilencLámpás-játék: Egyetlen színből 2-től 8-ig Chow és Pong az egyesekből is és a "
      "kilencesekből is, egyetlen (a szériával megegyező színű) zárólappal.")
def kilenc_lampas(f: Facts) -> bool:
    return f.shape.form == "kilenc"


@rule("extra", "Páratlan-színjáték", 1000,
      "1000 pont: Páratlan-színjáték: 4 Pong és egy zárópár, mind páratlanokból és azonos színben.")
def paratlan_szinjatek(f: Facts) -> bool:
    sets = _regular_sets(f)
    return (len(sets) == 4 and all(p.is_pung_or_kong for p in sets) and len(f.suits) == 1
            and 3 not in f.suits and all(rank_of(i) % 2 for i in f.tiles))


@rule("extra", "Egyszínű sor-játék", 1000,
      "1000 pont: Egyszínű sor-játék: 4 db sor egyetlen színből 1-2-3 / 3-4-5 / 5-6-7 / 7-8-9. A zárópár "
      "pedig: a két sárkány, vagy két szél helyett, lehet a sorok színének két lapja is.")
def egyszinu_sor_jatek(f: Facts) -> bool:
    sets = _regular_sets(f)
    if len(sets) != 4 or any(p.kind != "chow" for p in sets):
        return False
    suit = suit_of(sets[0].tile)
    if sorted(p.tile for p in sets) != [suit * 9 + r for r in (0, 2, 4, 6)]:
        return False
    pair = _pair(f).tile
    return suit_of(pair) in (suit, 3)


def _pairs_game(f: Facts) -> bool:
    return f.shape.form == "pairs"


@rule("extra", "Pár-játék (szimpla)", 1000,
      "1000 pont: Pár-játék (szimpla): 7 db tetszőleges pár (ez csak kézből tehető le, ill. csak az utolsó lap "
      "rabolható)")
def par_jatek(f: Facts) -> bool:
    return _pairs_game(f)


@rule("extra", "Pár-játék (színes)", 2000,
      "2000 pont: Pár-játék (színes, vagy sarkos): Ha a párok azonos színből vannak, ...")
def par_jatek_szines(f: Facts) -> bool:
    return _pairs_game(f) and len(f.suits) == 1 and 3 not in f.suits


@rule("extra", "Pár-játék (sarkos)", 2000,
      "2000 pont: Pár-játék (színes, vagy sarkos): ... vagy ha a párok honőrökből és saroklapokból állnak.")
def par_jatek_sarkos(f: Facts) -> bool:
    return _pairs_game(f) and all(i in TERMINALS_AND_HONORS for i in f.tiles)


@rule("extra", "Pár-játék (honőrös)", 3000,
      "3000 pont: Pár-játék (honőrös): ha a párok mind Honőrökből állnak")
def par_jatek_honoros(f: Facts) -> bool:
    return _pairs_game(f) and f.suits == {3}


@rule("extra", "Zöld-játék", 2000,
      "2000 pont: Zöld-játék: Kizárólag zöldekből, ami csak a bambusz 2, 3, 4, 6, 8 és a zöld sárkány lehet")
def zold_jatek(f: Facts) -> bool:
    return f.shape.form in ("regular", "pairs") and all(i in GREEN for i in f.tiles)


def _four_wind_figures(f: Facts) -> bool:
    sets = _regular_sets(f)
    return len(sets) == 4 and all(p.is_pung_or_kong for p in sets) and {p.tile for p in sets} == {27, 28, 29, 30}


@rule("extra", "Szelek játéka", 2000,
      "2000 pont: Szelek játéka: 4 db hármas a négy szélből és egy tetszőleges zárópár.")
def szelek_jateka(f: Facts) -> bool:
    return _four_wind_figures(f)


@rule("extra", "Négybarát", 3000, "3000 pont: Négybarát játék: 4 db hármas a négy szélből és egy sárkánypár.")
def negybarat(f: Facts) -> bool:
    return _four_wind_figures(f) and _pair(f).tile in DRAGONS


@rule("extra", "Világcsoda", 4000,
      "4000 pont: a 13-as, vagy páratlan (Világcsoda): 1-1 db a négy szélből, 1-1 db a három sárkányból és "
      "mindegyik színből az egyesek kilencesek. (Ekkor és csak ekkor, egy kő eldobható.)")
def vilagcsoda(f: Facts) -> bool:
    return f.shape.form == "vilagcsoda"
