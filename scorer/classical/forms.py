"""How a classical hand's tiles are read as figures (seed 001: "A figurák", "Kivételes kombinációk").

A winner's 14 tiles are read every way the book allows:

- ``regular``: four figures (chow, pung, kong) and one closing pair ("záró-Pár ... csak 1 db a kész
  Mahjonggban"). When the winning tile was robbed (a claimed discard), each figure it can complete is
  tried in turn; a pung it completes counts as exposed ("Az elrabolt követ a jelzett figurában ki kell
  tenni az asztalra").
- ``pairs``: seven pairs, all standing ("Mahjongg ... mondható akkor is, ha mind a 14 kő párosokból áll";
  Pár-játék "csak kézből tehető le").
- ``nagysor``: 1-9 of one suit, the four winds and one more tile of the suit; or 1-9, the three dragons
  and a pair of one wind ("Bezárható három sárkány és egy szélpárral is").
- ``kilenc`` (KilencLámpás): 111 2345678 999 of one suit and one more tile of that suit.
- ``vilagcsoda``: one of each of the 13 terminals and honours and any fourteenth tile, the one thrown
  away ("Ekkor és csak ekkor, egy kő eldobható").

A non-winner's 13 tiles (``standing``) are its declared melds, a concealed pung of every kind it holds
three or four of, a pair of every scoring kind (own wind, dragon) it holds exactly two of, and the rest.
Chows score nothing, so this greedy reading is the best one.

>>> from scorer.notation import parse_hand
>>> [s.form for s in winning_shapes(parse_hand("123456789m 1234z +5m"), robbed=False)]
['nagysor']
>>> is_mahjong(parse_hand("19m 19p 19s 1234567z +5p"))
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scorer.hand import Hand
from scorer.shapes import TERMINALS_AND_HONORS, counts_of, has_regular, is_seven_pairs, regular_decompositions

DRAGONS = (31, 32, 33)
WINDS = (27, 28, 29, 30)


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of an arrangement. ``kind``: chow, pung, kong, pair, single, run (KilencLámpás's 2-8),
    orphans and discard (Világcsoda), rest (a non-winner's unscored tiles). ``tiles`` are tile indices."""

    kind: str
    tiles: tuple[int, ...]
    concealed: bool = True
    declared: bool = False

    @property
    def tile(self) -> int:
        return self.tiles[0]

    @property
    def is_pung_or_kong(self) -> bool:
        return self.kind in ("pung", "kong")


@dataclass(frozen=True, slots=True)
class Shape:
    form: str  # regular, pairs, nagysor, kilenc, vilagcsoda, standing
    parts: tuple[Part, ...]


def _set(kind: str, index: int, concealed: bool = True) -> Part:
    tiles = (index, index + 1, index + 2) if kind == "chow" else (index,) * (2 if kind == "pair" else 3)
    return Part(kind, tiles, concealed)


def declared_parts(hand: Hand) -> tuple[Part, ...]:
    return tuple(Part(m.kind.value, tuple(t.index for t in m.tiles), concealed=m.concealed, declared=True)
                 for m in hand.melds)


def physical_counts(hand: Hand) -> list[int]:
    """Counts of every playing tile, a kong giving 4."""
    counts = [0] * 34
    for tile in hand.all_tiles():
        counts[tile.index] += 1
    return counts


def is_mahjong(hand: Hand) -> bool:
    """Whether a 14-tile hand is a mahjong: four figures and a pair, or an exceptional shape."""
    if not hand.is_winning:
        return False
    standing = counts_of(hand.concealed)
    if has_regular(standing, 4 - len(hand.melds)):
        return True
    return bool(_special_shapes(hand, robbed=False))


def winning_shapes(hand: Hand, *, robbed: bool) -> list[Shape]:
    """Every reading of a winner's tiles; empty when they are no mahjong."""
    standing = counts_of(hand.concealed)
    declared = declared_parts(hand)
    win = hand.winning_tile.index
    shapes = [Shape("regular", declared + parts)
              for raw in regular_decompositions(standing, 4 - len(declared))
              for parts in _placements(raw, win, robbed)]
    return shapes + _special_shapes(hand, robbed=robbed)


def _placements(raw, win: int, robbed: bool) -> list[tuple[Part, ...]]:
    """The standing figures; with a robbed winning tile, once for each figure it can have completed."""
    parts = tuple(_set(kind, i) for kind, i in raw)
    if not robbed:
        return [parts]
    found: list[tuple[Part, ...]] = []
    for n, part in enumerate(parts):
        if win in part.tiles:
            placed = parts[:n] + (replace(part, concealed=False),) + parts[n + 1:] if part.kind == "pung" else parts
            if placed not in found:
                found.append(placed)
    return found


def _special_shapes(hand: Hand, *, robbed: bool) -> list[Shape]:
    standing = counts_of(hand.concealed)
    declared = declared_parts(hand)
    counts = physical_counts(hand)
    found = []
    if not declared and is_seven_pairs(standing):
        found.append(Shape("pairs", tuple(_set("pair", i) for i in range(34) for _ in range(standing[i] // 2))))
    for build in (_nagysor(counts, declared), _kilenc(counts, declared, hand.winning_tile.index, robbed),
                  _vilagcsoda(standing, declared)):
        if build is not None:
            found.append(build)
    return found


def _nagysor(counts: list[int], declared: tuple[Part, ...]) -> Shape | None:
    """Nagysor: "3 egymást követő sor mind azonos színből, mind a négy szél és egy tetszőleges lap a széria
    színéből. (Bezárható három sárkány és egy szélpárral is.)" Declared figures may only be its chows."""
    if any(p.kind != "chow" for p in declared) or sum(counts) != 14:
        return None
    for suit in range(3):
        base = suit * 9
        if not all(counts[base + r] for r in range(9)):
            continue
        in_suit = sum(counts[base:base + 9])
        if sum(counts[:27]) != in_suit:
            return None
        winds, dragons = counts[27:31], counts[31:34]
        starts = (base, base + 3, base + 6)
        if sorted(p.tile for p in declared) != sorted({p.tile for p in declared}) or \
                any(p.tile not in starts for p in declared):
            return None
        chows = tuple(next((p for p in declared if p.tile == s), None) or _set("chow", s) for s in starts)
        if in_suit == 10 and winds == [1, 1, 1, 1] and dragons == [0, 0, 0]:
            extra = next(base + r for r in range(9) if counts[base + r] == 2)
            rest = tuple(Part("single", (w,)) for w in WINDS) + (Part("single", (extra,)),)
        elif in_suit == 9 and dragons == [1, 1, 1] and sorted(winds) == [0, 0, 0, 2]:
            pair = 27 + winds.index(2)
            rest = tuple(Part("single", (d,)) for d in DRAGONS) + (_set("pair", pair),)
        else:
            return None
        return Shape("nagysor", chows + rest)
    return None


def _kilenc(counts: list[int], declared: tuple[Part, ...], win: int, robbed: bool) -> Shape | None:
    """KilencLámpás: "Egyetlen színből 2-től 8-ig Chow és Pong az egyesekből is és a kilencesekből is,
    egyetlen (a szériával megegyező színű) zárólappal." Declared figures may be its pungs of 1 and 9
    and chows inside 2-8. A pung of 1s or 9s the robbed winning tile completed is exposed."""
    if any(p.kind == "kong" for p in declared) or sum(counts) != 14:
        return None
    for suit in range(3):
        base = suit * 9
        if sum(counts[base:base + 9]) != 14:
            continue
        if counts[base] < 3 or counts[base + 8] < 3 or not all(counts[base + r] for r in range(1, 8)):
            return None
        for p in declared:
            if (p.kind == "pung" and p.tile not in (base, base + 8)) or \
                    (p.kind == "chow" and not base + 1 <= p.tile <= base + 5):
                return None
        extra = next(i for i in range(base, base + 9) if counts[i] > (3 if i in (base, base + 8) else 1))
        rest = list(counts)
        parts = []
        for end in (base, base + 8):
            meld = next((p for p in declared if p.tile == end), None)
            parts.append(meld or _set("pung", end, concealed=not (robbed and win == end and counts[end] == 3)))
            rest[end] -= 3
        for p in declared:
            if p.kind == "chow":
                parts.append(p)
                for i in p.tiles:
                    rest[i] -= 1
        closing = ()
        if rest[extra] > 0:
            rest[extra] -= 1
            closing = (Part("single", (extra,)),)
        run = tuple(i for i in range(34) for _ in range(rest[i]))
        return Shape("kilenc", tuple(parts) + ((Part("run", run),) if run else ()) + closing)
    return None


def _vilagcsoda(standing: tuple[int, ...], declared: tuple[Part, ...]) -> Shape | None:
    """Világcsoda: "1-1 db a négy szélből, 1-1 db a három sárkányból és mindegyik színből az egyesek
    kilencesek. (Ekkor és csak ekkor, egy kő eldobható.)" The fourteenth tile, any tile, is the discard."""
    if declared or sum(standing) != 14 or not all(standing[i] for i in TERMINALS_AND_HONORS):
        return None
    extra = next(i for i in range(34) if standing[i] > (1 if i in TERMINALS_AND_HONORS else 0))
    return Shape("vilagcsoda", (Part("orphans", tuple(sorted(TERMINALS_AND_HONORS))), Part("discard", (extra,))))


def is_vilagcsoda_13(hand: Hand) -> bool:
    """Thirteen standing tiles that are one of each terminal and honour: a Világcsoda without its 14th tile."""
    standing = counts_of(hand.concealed)
    return not hand.melds and sum(standing) == 13 and all(standing[i] == 1 for i in TERMINALS_AND_HONORS)


def standing_shape(hand: Hand, own_wind: int) -> Shape:
    """A non-winner's figures: declared melds, concealed pungs, scoring pairs, and the rest."""
    parts = list(declared_parts(hand))
    rest: list[int] = []
    for i, n in enumerate(counts_of(hand.concealed)):
        if n >= 3:
            parts.append(_set("pung", i))
            n -= 3
        if n == 2 and (i == own_wind or i in DRAGONS):
            parts.append(_set("pair", i))
            n = 0
        rest.extend([i] * n)
    if rest:
        parts.append(Part("rest", tuple(rest)))
    return Shape("standing", tuple(parts))
