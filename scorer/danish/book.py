"""Every item of the book (seed 002), each a small named rule beside its value and its line.

The engine (``engine.py``) reads a hand into ``Reading`` objects (one per way of arranging it) and
asks each rule here how many times it counts. The rules are grouped as the book groups them:

- ``POINT_TABLE``: "## Point" (pungs and kongs, open and concealed) and ``MAHJONG`` (20 for mahjong);
- ``TWO_POINTS``: "## To point";
- ``ALWAYS_DOUBLE``: "### Altid en fordobling";
- ``ONE_DOUBLE`` and ``TWO_DOUBLES``: "### Fiske eller mahjong" (fishing or mahjong hands only), with
  ``CONCEALED_NO_POINTS`` (the 10 points of "Skjult mahjong");
- ``SPECIAL_HANDS``: the special-hands table, with a mahjong value (open and/or concealed) and a
  fishing value each, ``THREE_DRAGONS_HELD`` for its footnote, and ``BLESSINGS`` ("Særlige hænder");
- ``LIMIT`` / ``EAST_LIMIT``, ``EAST_DOUBLE`` and the penalties (``FALSE_MAHJONG_PENALTY``).

>>> [(item.name, item.value) for item in POINT_TABLE[:2]]
[('Pung af 2...8, åben', 2), ('Pung af 2...8, skjult', 4)]
>>> special("Rød lanterne").value(concealed=True), special("Rød lanterne").value(concealed=False)
(2000, 1000)
>>> special("Par").value(concealed=False) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from scorer.shapes import Counts, is_seven_pairs, is_thirteen_orphans, rank_of, regular_decompositions, suit_of

from scorer.danish.options import GREEN_BAMBOO
from scorer.danish.view import (DRAGONS, GREEN, RED, WHITE, WINDS, Part, Shape, arrangements, declared_parts,
                                has_honours, is_terminal_or_honour, suits_used, tiles_in)

# --------------------------------------------------------------------------------------------------
# Limits and penalties

LIMIT = 1000
EAST_LIMIT = 2000
LIMIT_LINE = "1000 er det maksimale pointantal for alle normale hænder (2000 for øst)."
FALSE_MAHJONG_PENALTY = 500
FALSE_MAHJONG_LINE = ("Hvis en spiller melder en fejlagtig mahjong og en anden spiller har nået at afsløre sin hånd "
                      "inden fejlen opdages, skal spilleren, der meldte den falske mahjong, betale 500 point til "
                      "hver af de spillere, der vælger at afsløre deres hånd.")
TOO_MANY_LINE = "En spiller, der har for mange brikker, får *ingen* point og kan ikke gå mahjong."
TOO_FEW_LINE = ("En spiller, der har for få brikker, kan ikke gå mahjong eller opnå point for at fiske. "
                "Ellers optælles point som sædvanligt.")


# --------------------------------------------------------------------------------------------------
# What the rules look at


@dataclass(frozen=True, slots=True)
class Reading:
    """One way of reading a hand for the point-and-doubling items.

    ``parts`` are the sets and pairs that score points and the "always" doublings: a winner's
    arrangement, or the melds, concealed pungs and pairs a non-winner holds. ``pattern`` and
    ``pattern_counts`` are the complete hand that the fishing-or-mahjong doublings judge: the winner's
    arrangement, or for a fishing hand one of the mahjongs it fishes for. ``mode`` is ``"mahjong"``,
    ``"fishing"`` or ``"held"`` (a hand that neither won nor fishes)."""

    parts: tuple[Part, ...]
    mode: str
    seat: int
    prevalent: int
    pattern: tuple[Part, ...] = ()
    pattern_counts: Counts = (0,) * 34
    win_part: Part | None = None
    drawn: bool = False
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    only_place: bool = False
    claimed_east_first: bool = False
    no_melds: bool = False
    held_chows: int = 0
    clean_one_suit: bool = False

    @property
    def complete(self) -> bool:
        """A mahjong, or a fishing hand: the hands that earn the 'Fiske eller mahjong' doublings."""
        return self.mode in ("mahjong", "fishing")


@dataclass(frozen=True, slots=True)
class Item:
    """A points item (``unit == "points"``) or a doubling item (``unit == "doubles"``)."""

    name: str
    value: int
    unit: str
    line: str
    count: Callable[[Reading], int]


def _points(name: str, value: int, line: str, count: Callable[[Reading], int]) -> Item:
    return Item(name, value, "points", line, count)


def _doubles(name: str, value: int, line: str, count: Callable[[Reading], int]) -> Item:
    return Item(name, value, "doubles", line, count)


# --------------------------------------------------------------------------------------------------
# ## Point


def _sets(kind: str, major: bool, concealed: bool) -> Callable[[Reading], int]:
    def count(r: Reading) -> int:
        return sum(1 for p in r.parts
                   if p.kind == kind and is_terminal_or_honour(p.index) == major and p.concealed == concealed)
    return count


POINT_TABLE: tuple[Item, ...] = (
    _points("Pung af 2...8, åben", 2, "Pung af 2...8	2	4", _sets("pung", False, False)),
    _points("Pung af 2...8, skjult", 4, "Pung af 2...8	2	4", _sets("pung", False, True)),
    _points("Pung af 1, 9, vinde og drager, åben", 4, "Pung af 1, 9, vinde og drager	4	8", _sets("pung", True, False)),
    _points("Pung af 1, 9, vinde og drager, skjult", 8, "Pung af 1, 9, vinde og drager	4	8", _sets("pung", True, True)),
    _points("Kong af 2...8, åben", 8, "Kong af 2...8	8	16", _sets("kong", False, False)),
    _points("Kong af 2...8, skjult", 16, "Kong af 2...8	8	16", _sets("kong", False, True)),
    _points("Kong af 1, 9, vinde og drager, åben", 16, "Kong af 1, 9, vinde og drager	16	32", _sets("kong", True, False)),
    _points("Kong af 1, 9, vinde og drager, skjult", 32, "Kong af 1, 9, vinde og drager	16	32", _sets("kong", True, True)),
)

MAHJONG = _points("At gå mahjong", 20, "20 point for at gå mahjong.", lambda r: int(r.mode == "mahjong"))


# --------------------------------------------------------------------------------------------------
# ## To point


def _pairs(r: Reading, test: Callable[[int], bool]) -> int:
    return sum(1 for p in r.parts if p.kind == "pair" and test(p.index))


TWO_POINTS: tuple[Item, ...] = (
    _points("Par af egen vind", 2, "- Par af egen vind", lambda r: _pairs(r, lambda i: i == r.seat)),
    _points("Par af drager", 2, "- Par af drager", lambda r: _pairs(r, lambda i: i in DRAGONS)),
    _points("Par af rundens vind", 2, "- Par af rundens vind", lambda r: _pairs(r, lambda i: i == r.prevalent)),
    _points("At gå mahjong det eneste mulige sted", 2, "- At gå mahjong det eneste mulige sted",
            lambda r: int(r.mode == "mahjong" and r.only_place)),
    _points("At gå mahjong med en sten fra væggen", 2, "- At gå mahjong med en sten fra væggen",
            lambda r: int(r.mode == "mahjong" and r.drawn)),
    _points("At gå mahjong ved at færdiggøre spurvens hoved", 2, "- At gå mahjong ved at færdiggøre spurvens hoved",
            lambda r: int(r.mode == "mahjong" and r.win_part is not None and r.win_part.kind == "pair")),
    _points("At punge eller konge første udspil fra øst", 2, "- At punge eller konge første udspil fra øst",
            lambda r: int(r.claimed_east_first)),
)


# --------------------------------------------------------------------------------------------------
# ## Fordoblinger — ### Altid en fordobling


def _set_of(r: Reading, test: Callable[[int], bool]) -> int:
    return sum(1 for p in r.parts if p.is_set and test(p.index))


ALWAYS_DOUBLE: tuple[Item, ...] = (
    _doubles("Pung/kong af drager", 1, "- Hver pung/kong af drager", lambda r: _set_of(r, lambda i: i in DRAGONS)),
    _doubles("Pung/kong af egen vind", 1, "- Pung/kong af egen vind", lambda r: _set_of(r, lambda i: i == r.seat)),
    _doubles("Pung/kong af rundens vind", 1, "- Pung/kong af rundens vind",
             lambda r: _set_of(r, lambda i: i == r.prevalent)),
)


# --------------------------------------------------------------------------------------------------
# ### Fiske eller mahjong


def _one_suit(r: Reading) -> bool:
    return len(suits_used(r.pattern_counts)) == 1


def _clean(r: Reading) -> bool:
    return not has_honours(r.pattern_counts) and (not r.clean_one_suit or _one_suit(r))


def _officers(r: Reading) -> bool:
    return all(is_terminal_or_honour(i) for i in range(34) if r.pattern_counts[i])


def concealed_hand(r: Reading) -> bool:
    """'Skjult mahjong': "Alle brikker skal trækkes fra muren, ingen kong'er, ingen begrænsninger på antallet af
    chows. For at fiske skal man have mindst to chows." No melds at all (a concealed kong is a kong too), the
    last tile drawn from the wall; a fishing hand must hold two chows."""
    if not r.no_melds:
        return False
    if r.mode == "mahjong":
        return r.drawn and not r.robbing_kong and not r.kong_replacement
    return r.mode == "fishing" and r.held_chows >= 2


ONE_DOUBLE: tuple[Item, ...] = (
    _doubles("Én række", 1, "- Én række", lambda r: int(r.complete and _one_suit(r))),
    _doubles("Ingen chows", 1, "- Ingen chows",
             lambda r: int(r.complete and not any(p.kind == "chow" for p in r.pattern))),
    _doubles("At gå mahjong med sidste brik fra muren", 1, "- At gå mahjong med sidste brik fra muren",
             lambda r: int(r.mode == "mahjong" and r.last_tile and r.drawn)),
    _doubles("At gå mahjong med en løs brik", 1, "- At gå mahjong med en løs brik",
             lambda r: int(r.mode == "mahjong" and r.kong_replacement)),
    _doubles("At stjæle en kong", 1, "- At stjæle en kong.", lambda r: int(r.mode == "mahjong" and r.robbing_kong)),
)

TWO_DOUBLES: tuple[Item, ...] = (
    _doubles("Ren hånd", 2, "- Ren hånd** (ingen drager eller vinde)", lambda r: int(r.complete and _clean(r))),
    _doubles("Kun officerer", 2, "- Kun officerer** (1'ere, 9'ere, drager og vinde)",
             lambda r: int(r.complete and _officers(r))),
    _doubles("Skjult mahjong", 2, "- Skjult mahjong**, to fordoblinger ekstra.", lambda r: int(concealed_hand(r))),
)

CONCEALED_NO_POINTS = _points("Skjult mahjong: hånden giver ingen point", 10,
                              "Hvis hånden ikke giver point tildeles 10 point.", lambda r: int(concealed_hand(r)))

EAST_DOUBLE = _doubles("Øst betaler og modtager dobbelt", 1, LIMIT_LINE, lambda r: 1)

POINT_ITEMS: tuple[Item, ...] = POINT_TABLE + (MAHJONG,) + TWO_POINTS
DOUBLING_ITEMS: tuple[Item, ...] = ALWAYS_DOUBLE + ONE_DOUBLE + TWO_DOUBLES


# --------------------------------------------------------------------------------------------------
# The special-hands table


@dataclass(frozen=True, slots=True)
class Special:
    """A row of the table: ``concealed`` is its mahjong value when no meld is exposed ("s:", or "å:" which
    also allows it open), ``open`` its value with exposed melds ("å:"; None where it must be "s:"),
    ``fishing`` the "Fiske" column. ``unmixed`` for the rows under "Ublandede hænder"; ``drawn`` where
    the row says "Alle brikker skal trækkes fra muren" (the last tile too)."""

    name: str
    concealed: int
    open: int | None
    fishing: int
    line: str
    check: Callable[[Shape], bool]
    unmixed: bool = False
    drawn: bool = False

    def value(self, *, concealed: bool) -> int | None:
        return self.concealed if concealed else self.open

    def matches(self, shape: Shape) -> bool:
        """The shape and the open/concealed condition (not ``drawn``, which is about how the tile came)."""
        if shape.exposed and self.open is None:
            return False
        if self.unmixed and shape.options.unmixed_one_suit and len(suits_used(shape.counts)) > 1:
            return False
        return self.check(shape)


def _regular(s: Shape) -> bool:
    return bool(arrangements(s))


def _no_melds(s: Shape) -> bool:
    return not s.melds


def _any_arrangement(s: Shape, test: Callable[[tuple[Part, ...]], bool]) -> bool:
    return any(test(parts) for parts in arrangements(s))


def _only(s: Shape, allowed) -> bool:
    return tiles_in(s.counts, frozenset(allowed))


def _pairs_hand(s: Shape) -> bool:
    return _no_melds(s) and is_seven_pairs(s.standing)


def _bamboo() -> frozenset[int]:
    return frozenset(range(18, 27))


def _kun_konger(s: Shape) -> bool:
    return sum(kind == "kong" for kind, _, _ in s.melds) == 4 and _regular(s)


def _kinesiske_ulige(s: Shape) -> bool:
    return _only(s, (i for i in range(27) if rank_of(i) % 2 == 1)) and _regular(s)


def _vinde_drager(s: Shape) -> bool:
    return _only(s, range(27, 34)) and _regular(s)


def _fire_velsignelser(s: Shape) -> bool:
    return all(s.counts[w] >= 3 for w in WINDS) and _regular(s)


def _tre_store_vismaend(s: Shape) -> bool:
    return all(s.counts[d] >= 3 for d in DRAGONS) and _regular(s)


def _rod_lilje(s: Shape) -> bool:
    red = s.options.red_bamboo
    return (_only(s, {WHITE, RED} | red) and s.counts[WHITE] >= 3 and s.counts[RED] >= 3
            and _any_arrangement(s, lambda parts: _lily(parts, RED, red)))


def _dalens_lilje(s: Shape) -> bool:
    return (_only(s, {WHITE, GREEN} | GREEN_BAMBOO) and s.counts[WHITE] >= 3 and s.counts[GREEN] >= 3
            and _any_arrangement(s, lambda parts: _lily(parts, GREEN, GREEN_BAMBOO)))


def _lily(parts: tuple[Part, ...], dragon: int, bamboos: frozenset[int]) -> bool:
    """p/k of White, p/k of the coloured dragon, two p/k and the pair of the coloured bamboos."""
    sets = [p for p in parts if p.is_set]
    pair = [p for p in parts if p.kind == "pair"]
    return (len(sets) == 4 and any(p.index == WHITE for p in sets) and any(p.index == dragon for p in sets)
            and sum(p.index in bamboos for p in sets) == 2 and pair[0].index in bamboos)


def _kejserlig_jade(s: Shape) -> bool:
    return _only(s, {GREEN} | GREEN_BAMBOO) and s.counts[GREEN] >= 3 and _regular(s)


def _kongelig_rubin(s: Shape) -> bool:
    return _only(s, {RED} | s.options.red_bamboo) and s.counts[RED] >= 3 and _regular(s)


def _rubin_jade(s: Shape) -> bool:
    red = s.options.red_bamboo

    def test(parts: tuple[Part, ...]) -> bool:
        sets = [p.index for p in parts if p.is_set]
        pair = [p.index for p in parts if p.kind == "pair"]
        return (len(sets) == 4 and RED in sets and GREEN in sets and any(i in red for i in sets)
                and any(i in GREEN_BAMBOO for i in sets) and pair[0] in _bamboo())

    return _only(s, {RED, GREEN} | _bamboo()) and _any_arrangement(s, test)


def _par(s: Shape) -> bool:
    return _pairs_hand(s)


def _himmelske_tvillinger(s: Shape) -> bool:
    return _pairs_hand(s) and not has_honours(s.counts)


def _spurvens_reservat(s: Shape) -> bool:
    wanted = [0] * 34
    wanted[18] = 4
    for i in GREEN_BAMBOO:
        wanted[i] = 2
    return _no_melds(s) and s.standing == tuple(wanted)


def _jade_par(s: Shape) -> bool:
    return _pairs_hand(s) and _only(s, {GREEN} | GREEN_BAMBOO) and s.counts[GREEN] >= 2


def _rubin_jade_par(s: Shape) -> bool:
    return (_pairs_hand(s) and _only(s, {GREEN, RED} | _bamboo())
            and s.counts[GREEN] >= 2 and s.counts[RED] >= 2)


def _forblaeste_drager(s: Shape) -> bool:
    c = s.standing
    return (_no_melds(s) and all(c[w] == 2 for w in WINDS) and sorted(c[d] for d in DRAGONS) == [0, 3, 3]
            and not any(c[i] for i in range(27)))


def _run_suit(c: Counts, low: int, high: int) -> int | None:
    """The suit whose ranks low..high are all present (one at least of each), or None."""
    for suit in range(3):
        if all(c[9 * suit + r - 1] for r in range(low, high + 1)):
            return suit
    return None


def _himlens_porte(s: Shape) -> bool:
    c = s.standing
    suit = _run_suit(c, 1, 9)
    if not _no_melds(s) or suit is None:
        return False
    base = 9 * suit
    return (c[base] == 3 and c[base + 8] == 3 and sum(c[base:base + 9]) == 14
            and all(1 <= c[base + r] <= 2 for r in range(1, 8)))


def _lob_pung_par(s: Shape) -> bool:
    if not _no_melds(s) or has_honours(s.counts):
        return False

    def test(parts: tuple[Part, ...]) -> bool:
        chows = {p.index for p in parts if p.kind == "chow"}
        for suit in range(3):
            run = {9 * suit, 9 * suit + 3, 9 * suit + 6}
            if run <= chows and sum(p.kind == "pung" for p in parts) == 1 and len(chows) == 3:
                return True
        return False

    return _any_arrangement(s, test)


def _rod_lanterne(s: Shape) -> bool:
    c, st, seat = s.counts, s.standing, s.seat
    suit = _run_suit(c, 1, 7)
    if suit is None or c[RED] < 3 or c[seat] < 3:
        return False
    run = range(9 * suit, 9 * suit + 7)
    if any(c[i] for i in range(34) if i not in run and i not in (RED, seat)):
        return False
    if sum(c[i] for i in run) != 8:
        return False
    for honour in (RED, seat):  # a p/k: three standing, or declared
        if st[honour] not in (0, 3):
            return False
    for kind, index, _ in s.melds:
        if kind == "chow":
            if not (9 * suit <= index <= 9 * suit + 4):
                return False
        elif index not in (RED, seat):
            return False
    return True


def _snoende_slange(s: Shape) -> bool:
    c = s.standing
    suit = _run_suit(c, 1, 9)
    if not _no_melds(s) or suit is None or not all(c[w] for w in WINDS):
        return False
    return not any(c[i] for i in range(34) if i not in WINDS and suit_of(i) != suit)


def _blandede_pungen(s: Shape) -> bool:
    return _no_melds(s) and _any_arrangement(s, lambda parts: not any(p.kind == "chow" for p in parts))


def _enere_niere(s: Shape) -> bool:
    return _only(s, (0, 8, 9, 17, 18, 26)) and _regular(s)


def _kejserlige_skat(s: Shape) -> bool:
    return _no_melds(s) and is_thirteen_orphans(s.standing)


def _par_i_officerer(s: Shape) -> bool:
    return _pairs_hand(s) and all(is_terminal_or_honour(i) for i in range(34) if s.counts[i])


def _strikke(s: Shape) -> bool:
    c = s.standing
    suits = sorted(suits_used(c))
    if not _no_melds(s) or has_honours(c) or len(suits) != 2:
        return False
    a, b = suits
    return all(c[9 * a + r] == c[9 * b + r] for r in range(9))


def _trippel_strik(s: Shape) -> bool:
    c = s.standing
    if not _no_melds(s) or has_honours(c):
        return False
    triples, left = 0, []
    for r in range(9):
        row = [c[r], c[9 + r], c[18 + r]]
        m = min(row)
        triples += m
        left += [(r, suit) for suit in range(3) for _ in range(row[suit] - m)]
    return triples == 4 and len(left) == 2 and left[0][0] == left[1][0] and left[0][1] != left[1][1]


def _guldsmed(s: Shape) -> bool:
    c = s.counts
    if any(c[d] != 1 for d in DRAGONS) or any(c[w] for w in WINDS):
        return False
    if any(kind == "chow" for kind, _, _ in s.melds):
        return False
    rest = list(s.standing)
    for d in DRAGONS:
        rest[d] -= 1
    rest_shape = Shape(tuple(rest), s.melds, s.seat, s.options)

    def test(parts: tuple[Part, ...]) -> bool:
        sets = [p for p in parts if p.kind != "pair"]
        return (all(p.is_set for p in sets) and len(sets) == 3
                and sorted(suit_of(p.index) for p in sets) == [0, 1, 2])

    return any(test(parts) for parts in _three_sets_and_pair(rest_shape))


def _three_sets_and_pair(s: Shape) -> tuple[tuple[Part, ...], ...]:
    declared = declared_parts(s.melds)
    return tuple(declared + tuple(Part(kind, index) for kind, index in raw)
                 for raw in regular_decompositions(s.standing, 3 - len(s.melds)))


def _windy(s: Shape) -> bool:
    """"en af hver vind; en vind skal parres": five wind tiles, one of each and one paired."""
    c = s.standing
    return all(c[w] >= 1 for w in WINDS) and sum(c[w] for w in WINDS) == 5 and not any(c[d] for d in DRAGONS)


def _forblaeste_terminals(rank: int) -> Callable[[Shape], bool]:
    def check(s: Shape) -> bool:
        if not _windy(s):
            return False
        wanted = {9 * suit + rank - 1 for suit in range(3)}
        if not _only(s, wanted | set(WINDS)):
            return False
        melded = {index for kind, index, _ in s.melds}
        if any(kind == "chow" for kind, _, _ in s.melds):
            return False
        return all(s.standing[i] == 3 or (s.standing[i] == 0 and i in melded) for i in wanted)
    return check


def _forblaeste_chows(s: Shape) -> bool:
    if not _windy(s) or any(kind != "chow" for kind, _, _ in s.melds):
        return False
    c = s.standing
    if any(c[d] for d in DRAGONS):
        return False
    melded_suits = [suit_of(index) for _, index, _ in s.melds]
    for suit in range(3):
        ranks = [r for r in range(9) for _ in range(c[9 * suit + r])]
        if suit in melded_suits:
            if ranks or melded_suits.count(suit) != 1:
                return False
        elif len(ranks) != 3 or ranks != [ranks[0], ranks[0] + 1, ranks[0] + 2]:
            return False
    return True


SPECIAL_HANDS: tuple[Special, ...] = (
    # Ublandede hænder
    Special("Kun konger", 1000, 1000, 400, "Kun konger	4 kong'er og et par	å: 1000	400", _kun_konger, unmixed=True),
    Special("Kinesiske ulige", 1000, 1000, 400, "Kinesiske ulige	4 p/k og et par i de ulige	å: 1000	400",
            _kinesiske_ulige, unmixed=True),
    Special("Vinde & drager", 1000, 1000, 400, "Vinde & drager	4 p/k og et par i vinde og drager	å: 1000	400",
            _vinde_drager, unmixed=True),
    Special("Fire velsignelser", 1000, 1000, 1000,
            "Fire velsignelser	p/k i hver vind, et vilkårligt par	å: 1000	1000", _fire_velsignelser, unmixed=True),
    Special("Tre store vismænd", 1000, 1000, 1000,
            "Tre store vismænd	p/k i hver drage, en pung, kong eller chow; et par	å: 1000	1000†",
            _tre_store_vismaend, unmixed=True),
    Special("Rød lilje", 2000, 2000, 500,
            "Rød lilje	p/k i hvide drager; p/k i røde drager; 2 p/k i røde bambus; par i rød bambus	å: 2000	500",
            _rod_lilje, unmixed=True),
    Special("Dalens lilje", 2000, 2000, 500,
            "Dalens lilje	p/k af hvide drager; p/k af grønne drager; to p/k af grønne bambus; et par af grønne "
            "bambus	å: 2000	500", _dalens_lilje, unmixed=True),
    Special("Kejserlig jade", 2000, 2000, 500,
            "Kejserlig jade	Normal hånd af grønne bambus og grønne drager. p/k af grønne drager påkrævet	å: 2000	500",
            _kejserlig_jade, unmixed=True),
    Special("Kongelig rubin", 2000, 2000, 500,
            "Kongelig rubin	Normal hånd af røde bambus og røde drager. p/k af røde drager påkrævet	å: 2000	500",
            _kongelig_rubin, unmixed=True),
    Special("Rubin jade", 1000, 1000, 400,
            "Rubin jade	p/k i røde drager; p/k i grønne drager; p/k i røde bambus; p/k i grøn bambus; par i bambus	"
            "å: 1000	400", _rubin_jade, unmixed=True),
    Special("Par", 500, None, 200, "Par	7 par	s: 500	200", _par, unmixed=True),
    Special("Himmelske tvillinger", 1000, None, 400, "Himmelske tvillinger	7 par. Ingen vinde/drager	s: 1000	400",
            _himmelske_tvillinger, unmixed=True),
    Special("Spurvens reservat", 1000, None, 400,
            "Spurvens reservat	2 par i 1 bambus, et par i hver grøn bambus	s: 1000	400", _spurvens_reservat,
            unmixed=True),
    Special("Jade par", 1000, None, 400,
            "Jade par	7 par i grønne bambus og grønne drager. Mindst et par i grønne drager påkrævet	s: 1000	400",
            _jade_par, unmixed=True),
    Special("Rubin jade par", 1000, None, 400,
            "Rubin jade par	7 par i bambus og grønne/røde drager. Mindst et par i både røde drager og i grønne "
            "drager påkrævet	s: 1000	400", _rubin_jade_par, unmixed=True),
    Special("Forblæste drager", 1000, None, 400, "Forblæste drager	2 pungen i drager; par af hver vind	s: 1000	400",
            _forblaeste_drager, unmixed=True),
    Special("Himlens porte", 1000, None, 400,
            "Himlens porte	Pung i 1'ere; pung i 9'ere; sekvens af 2...8; en brik fra sekvensen skal parres	"
            "s: 1000	400", _himlens_porte, unmixed=True),
    Special("Løb, pung & par", 1000, None, 400,
            "Løb, pung & par	Sekvens af 1...9; en pung; et par. Ingen vinde/drager	s: 1000	400", _lob_pung_par,
            unmixed=True),
    Special("Rød lanterne", 2000, 1000, 500,
            "Rød lanterne	p/k i røde drager; p/k i egen vind; sekvens 1...7; en brik fra sekvensen skal parres	"
            "s: 2000 å: 1000	500", _rod_lanterne, unmixed=True),
    Special("Snoende slange", 1000, None, 400,
            "Snoende slange	Sekvens 1...9; en af hver vind; en brik skal parres	s: 1000	400", _snoende_slange,
            unmixed=True),
    # Blandede hænder
    Special("Blandede pungen", 1000, None, 400,
            "Blandede pungen	4 pungen og et par. Alle brikker skal trækkes fra muren	s: 1000	400", _blandede_pungen,
            drawn=True),
    Special("1'ere & 9'ere", 1000, 1000, 400, "1'ere & 9'ere	4 p/k i 1'ere/9'ere; par i 1'ere/9'ere	å: 1000	400",
            _enere_niere),
    Special("13° af den kejserlige skat", 2000, None, 500,
            "13° af den kejserlige skat	En 1'er og 9'er fra hver række; en af hver vind; en af hver drage; en brik "
            "skal parres	s: 2000	500", _kejserlige_skat),
    Special("Par i officerer", 1000, None, 400,
            "Par i officerer	7 par af 1'ere, 9'ere, drager eller vinde	s: 1000	400", _par_i_officerer),
    Special("Strikke", 500, None, 200,
            "Strikke	7 dubletter i to rækker, hver dublet består af den samme brik fra hver af de to rækker.	"
            "s: 500	200", _strikke),
    Special("Trippel strik", 500, None, 200,
            "Trippel strik	4 tripler, hver trippel består af den samme brik i hver af de tre rækker; en dublet som "
            "i Strikke	s: 500	200", _trippel_strik),
    Special("Guldsmed", 1000, 500, 400,
            "Guldsmed	En af hver drage; p/k i hver række; et par i en vilkårlig række	s: 1000 å: 500	400", _guldsmed),
    Special("Forblæste 9'ere", 1000, 500, 400,
            "Forblæste 9'ere	p/k af 9'ere i hver række; en af hver vind; en vind skal parres	s: 1000 å: 500	400",
            _forblaeste_terminals(9)),
    Special("Forblæste 1'ere", 1000, 500, 400,
            "Forblæste 1'ere	p/k af 1'ere i hver række; en af hver vind, en vind skal parres	s: 1000 å: 500	400",
            _forblaeste_terminals(1)),
    Special("Forblæste chows", 1000, 500, 400,
            "Forblæste chows	En chow i hver række; en af hver vind; en vind skal parres	s: 1000 å: 500	400",
            _forblaeste_chows),
)

THREE_DRAGONS_HELD = Special("Tre store vismænd (p/k i hver drage)", 1000, 1000, 1000,
                             "†1000 point hvis man har en p/k i hver drage, selv om man ikke fisker.",
                             lambda s: all(s.counts[d] >= 3 for d in DRAGONS))


def special(name: str) -> Special:
    for row in SPECIAL_HANDS:
        if row.name == name:
            return row
    raise KeyError(name)


# --------------------------------------------------------------------------------------------------
# Særlige hænder: the ways of going mahjong that are worth a fixed value


@dataclass(frozen=True, slots=True)
class WinFacts:
    """How the mahjong was made, read from the context (see ``engine.Facts``)."""

    east: bool
    first_turn: bool
    east_first_discard: bool
    kong_replacement: bool
    last_tile: bool
    drawn: bool
    win: int  # the winning tile's index


@dataclass(frozen=True, slots=True)
class Blessing:
    name: str
    value: int
    line: str
    check: Callable[[WinFacts], bool]


BLESSINGS: tuple[Blessing, ...] = (
    Blessing("Himlens ynde", 2000, "Himlens ynde	Øst går mahjong første gang	2000",
             lambda w: w.east and w.first_turn),
    Blessing("Jordens ynde", 1000, "Jordens ynde	Gå mahjong på østs første udspil	1000",
             lambda w: not w.east and w.east_first_discard),
    Blessing("At plukke blommeblomsten fra taget", 1000,
             "At plukke blommeblomsten fra taget	At gå mahjong med 5 cirkler, når den trækkes som løs brik	1000",
             lambda w: w.kong_replacement and w.win == 13),  # 5p
    Blessing("At hente månen fra bunden af havet", 1000,
             "At hente månen fra bunden af havet	At gå mahjong ved at trække 1 cirkel som sidste brik fra væggen	1000",
             lambda w: w.last_tile and w.drawn and w.win == 9),  # 1p
)

