"""Random valid MCR winning hands with a fixed seed, for differential tests of the scorer.

``random_hands(seed, n)`` always returns the same ``n`` hands for the same seed. Every hand is a
winning shape by construction (four sets and a pair, or one of the special shapes), holds at most four
copies of a tile, and has a context that could happen at the table:

- shapes: regular hands with 0-4 declared melds (chows, pungs, exposed and concealed kongs, each exposed
  meld with a claimed direction and claimed tile); Seven Pairs (also with four alike as two pairs);
  Seven Shifted Pairs; Thirteen Orphans; Lesser and Greater Honors and Knitted Tiles; Knitted Straight
  with a set and a pair (0 or 1 declared meld); Nine Gates.
- the sets are not uniform: most regular hands are built around a motif (shifted chows or pungs, the same
  ranks in several suits, straights, terminal chows, identical chows, wind and dragon pungs, kongs) and a
  tile restriction (one suit, one suit and honours, two suits, upper / middle / lower ranks, even ranks,
  fives, terminals, reversible or green tiles), so that the fans between sets and the flushes are common.
- context: ``self_drawn``; ``kong_replacement`` only when self-drawn with a kong declared;
  ``robbing_kong`` only when claimed and the winning tile appears nowhere else in the hand;
  ``last_of_kind`` only when the winning tile is the only one of its kind among the standing tiles;
  ``last_tile`` either way (never together with a kong-related win); random seat and prevalent winds;
  0-8 flowers and seasons.
"""

from __future__ import annotations

import random
from collections import Counter

from scorer.hand import Context, Hand
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import BONUS_TILES, PLAYING_TILES, Wind

# Tile indices as in ``Tile.index``: 0-8 characters, 9-17 dots, 18-26 bamboo, 27-30 E S W N,
# 31 White, 32 Green, 33 Red.
SUITS = (0, 1, 2)
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)
HONORS = WINDS + DRAGONS
TERMINALS_AND_HONORS = (0, 8, 9, 17, 18, 26) + HONORS
KNITTED_ORDERS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
REVERSIBLE = frozenset(t.index for t in PLAYING_TILES if t.is_reversible)
GREEN = frozenset(t.index for t in PLAYING_TILES if t.is_green)

SPECIAL_SHAPES = ("seven_pairs", "seven_shifted_pairs", "thirteen_orphans", "lesser_honors_and_knitted",
                  "greater_honors_and_knitted", "knitted_straight", "nine_gates")
# (shape, weight): regular hands dominate; every special shape is common enough to be covered often.
_SHAPES = (("regular", 76), ("seven_pairs", 6), ("seven_shifted_pairs", 2), ("thirteen_orphans", 2),
           ("lesser_honors_and_knitted", 3), ("greater_honors_and_knitted", 2), ("knitted_straight", 6),
           ("nine_gates", 3))

Set = tuple[str, int]  # ("chow" | "pung", lowest tile index)


def t(suit: int, rank: int) -> int:
    return suit * 9 + rank - 1


def random_hands(seed: int, n: int) -> list[Hand]:
    """``n`` random valid winning hands; the same seed always gives the same hands."""
    rng = random.Random(seed)
    hands: list[Hand] = []
    while len(hands) < n:
        hand = random_hand(rng)
        if hand is not None:
            hands.append(hand)
    return hands


def random_hand(rng: random.Random) -> Hand | None:
    """One random hand, or None when the draw broke a rule (a fifth copy...) and should be redrawn."""
    shape = rng.choices([s for s, _ in _SHAPES], [w for _, w in _SHAPES])[0]
    if shape == "regular":
        drawn = _regular(rng)
    elif shape == "knitted_straight":
        drawn = _knitted_straight(rng)
    else:
        drawn = ([], _SPECIAL[shape](rng))
    if drawn is None:
        return None
    melds, standing = drawn
    counts = Counter(standing)
    for meld in melds:
        counts.update(tile.index for tile in meld.tiles)
    if max(counts.values()) > 4:
        return None
    win = rng.choice(standing)
    context = _context(rng, melds, standing, counts, win)
    flowers = tuple(rng.sample(BONUS_TILES, rng.choice((0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8))))
    return Hand(concealed=tuple(PLAYING_TILES[i] for i in standing), melds=tuple(melds),
                winning_tile=PLAYING_TILES[win], flowers=flowers, context=context)


# ---- context ---------------------------------------------------------------------------------------------

def _context(rng: random.Random, melds: list[Meld], standing: list[int], counts: Counter, win: int) -> Context:
    self_drawn = rng.random() < 0.5
    has_kong = any(m.kind is MeldKind.KONG for m in melds)
    kong_replacement = self_drawn and has_kong and rng.random() < 0.3
    robbing_kong = not self_drawn and counts[win] == 1 and rng.random() < 0.3
    last_of_kind = standing.count(win) == 1 and rng.random() < (0.5 if robbing_kong else 0.2)
    last_tile = not (kong_replacement or robbing_kong) and rng.random() < 0.12
    return Context(self_drawn=self_drawn, seat_wind=rng.choice(list(Wind)), prevalent_wind=rng.choice(list(Wind)),
                   last_of_kind=last_of_kind, last_tile=last_tile, kong_replacement=kong_replacement,
                   robbing_kong=robbing_kong)


# ---- regular hands ---------------------------------------------------------------------------------------

def _pool(rng: random.Random) -> frozenset[int]:
    """The tiles a hand is drawn from: a suit and rank restriction, biased towards the flushes and the
    rank-range fans."""
    suits = list(SUITS)
    rng.shuffle(suits)
    kind = rng.choices(("all", "one", "one_honors", "two", "two_honors"), (40, 15, 18, 15, 12))[0]
    chosen = {"all": suits, "one": suits[:1], "one_honors": suits[:1], "two": suits[:2], "two_honors": suits[:2]}[kind]
    honors = kind in ("all", "one_honors", "two_honors")
    ranks = rng.choices(
        ("any", "upper", "middle", "lower", "upper4", "lower4", "even", "terminals", "simples", "outside",
         "reversible", "green"),
        (50, 4, 4, 4, 4, 4, 4, 4, 6, 6, 5, 5))[0]
    rank_ok = {
        "any": range(1, 10), "upper": (7, 8, 9), "middle": (4, 5, 6), "lower": (1, 2, 3), "upper4": (6, 7, 8, 9),
        "lower4": (1, 2, 3, 4), "even": (2, 4, 6, 8), "terminals": (1, 9), "simples": range(2, 9),
        "outside": range(1, 10), "reversible": range(1, 10), "green": range(1, 10),
    }[ranks]
    tiles = {t(s, r) for s in chosen for r in rank_ok}
    if ranks == "terminals" and rng.random() < 0.5:
        honors = False  # All Terminals
    if honors and ranks not in ("upper", "middle", "lower", "upper4", "lower4", "even", "simples"):
        tiles |= set(HONORS if rng.random() < 0.7 else rng.sample(HONORS, rng.randint(1, 7)))
    if ranks == "reversible":
        tiles &= REVERSIBLE
    elif ranks == "green":
        tiles &= GREEN
    return frozenset(tiles) or frozenset(range(34))


def _fill_set(rng: random.Random, pool: frozenset[int]) -> Set | None:
    chows = [i for i in sorted(pool) if i < 27 and i % 9 <= 6 and i + 1 in pool and i + 2 in pool]
    if chows and rng.random() < 0.55:
        return ("chow", rng.choice(chows))
    if pool:
        return ("pung", rng.choice(sorted(pool)))
    return None


def _motif(rng: random.Random, pool: frozenset[int]) -> tuple[list[Set], int | None]:
    """A group of related sets (and sometimes the pair) that makes the fans between sets likely."""
    if len(pool) < 27 and rng.random() < 0.5:
        return [], None  # let a narrow pool (even ranks, terminals, green...) make the whole hand
    pool_suits = sorted({i // 9 for i in pool if i < 27}) or list(SUITS)
    suit = rng.choice(pool_suits)
    others = [s for s in SUITS if s != suit]
    rng.shuffle(others)
    three = [suit] + others
    kind = rng.choices(
        ("none", "identical_chows", "same_rank_chows", "pure_shifted_chows", "mixed_shifted_chows",
         "pure_straight", "mixed_straight", "terminal_chows", "three_suited_terminal", "pure_terminal",
         "short_straight", "pure_shifted_pungs", "mixed_shifted_pungs", "same_rank_pungs", "wind_pungs",
         "dragon_pungs", "terminal_pungs", "honor_pungs", "mixed", "fives", "plain"),
        (14, 6, 7, 7, 5, 5, 5, 5, 2, 2, 4, 5, 4, 6, 6, 6, 4, 4, 6, 3, 4))[0]
    sets: list[Set] = []
    pair = None
    if kind == "identical_chows":
        low = t(suit, rng.randint(1, 7))
        sets = [("chow", low)] * rng.choice((2, 2, 3, 4))
    elif kind == "same_rank_chows":
        rank = rng.randint(1, 7)
        sets = [("chow", t(s, rank)) for s in three[:rng.choice((2, 3, 3))]]
    elif kind == "pure_shifted_chows":
        step = rng.choice((1, 1, 2))
        count = rng.choice((2, 3, 3, 4))
        start = rng.randint(1, 7 - step * (count - 1))
        sets = [("chow", t(suit, start + step * k)) for k in range(count)]
    elif kind == "mixed_shifted_chows":
        start = rng.randint(1, 5)
        sets = [("chow", t(s, start + k)) for k, s in enumerate(three)]
    elif kind == "pure_straight":
        sets = [("chow", t(suit, r)) for r in (1, 4, 7)]
    elif kind == "mixed_straight":
        sets = [("chow", t(s, r)) for s, r in zip(three, (1, 4, 7))]
    elif kind == "terminal_chows":
        sets = [("chow", t(suit, 1)), ("chow", t(suit, 7))]
    elif kind == "three_suited_terminal":
        sets = [("chow", t(s, r)) for s in others for r in (1, 7)]
        pair = t(suit, 5)
    elif kind == "pure_terminal":
        sets = [("chow", t(suit, r)) for r in (1, 1, 7, 7)]
        pair = t(suit, 5)
    elif kind == "short_straight":
        start = rng.randint(1, 4)
        sets = [("chow", t(suit, start)), ("chow", t(suit, start + 3))]
    elif kind == "pure_shifted_pungs":
        count = rng.choice((2, 3, 3, 4))
        start = rng.randint(1, 10 - count)
        sets = [("pung", t(suit, start + k)) for k in range(count)]
    elif kind == "mixed_shifted_pungs":
        start = rng.randint(1, 7)
        sets = [("pung", t(s, start + k)) for k, s in enumerate(three)]
    elif kind == "same_rank_pungs":
        rank = rng.randint(1, 9)
        sets = [("pung", t(s, rank)) for s in three[:rng.choice((2, 3))]]
    elif kind == "wind_pungs":
        winds = list(WINDS)
        rng.shuffle(winds)
        count = rng.choice((2, 3, 3, 4))
        sets = [("pung", w) for w in winds[:count]]
        if count == 3 and rng.random() < 0.6:
            pair = winds[3]
    elif kind == "dragon_pungs":
        dragons = list(DRAGONS)
        rng.shuffle(dragons)
        count = rng.choice((1, 2, 2, 3))
        sets = [("pung", d) for d in dragons[:count]]
        if count == 2 and rng.random() < 0.6:
            pair = dragons[2]
    elif kind == "terminal_pungs":
        sets = [("pung", t(rng.choice(SUITS), rng.choice((1, 9)))) for _ in range(rng.randint(1, 3))]
    elif kind == "honor_pungs":
        sets = [("pung", h) for h in rng.sample(HONORS, rng.randint(2, 4))]
        if len(sets) < 4 and rng.random() < 0.5:
            pair = rng.choice(HONORS)
    elif kind == "fives":  # All Fives: every set and the pair hold a 5
        sets = [("chow", t(rng.choice(SUITS), rng.randint(3, 5))) if rng.random() < 0.7
                else ("pung", t(rng.choice(SUITS), 5)) for _ in range(4)]
        pair = t(rng.choice(SUITS), 5)
    elif kind == "plain":  # towards a Chicken Hand: unrelated simple sets in three suits, an honour pair
        sets = [("chow", t(s, r)) for s, r in zip(three, rng.sample((2, 3, 4, 5, 6), 3))]
        sets.append(("pung", t(rng.choice(SUITS), rng.randint(2, 8))))
        pair = rng.choice(HONORS)
    elif kind == "mixed":
        # two related pieces side by side: principle 5's cases (a set that may pair with either of two)
        low = t(suit, rng.randint(1, 4))
        sets = [("chow", low), ("chow", low + rng.choice((0, 1, 2, 3))), ("chow", t(others[0], low % 9 + 1))]
    return sets, pair


def _regular(rng: random.Random) -> tuple[list[Meld], list[int]] | None:
    pool = _pool(rng)
    sets, pair = _motif(rng, pool)
    sets = sets[:4]
    while len(sets) < 4:
        extra = _fill_set(rng, pool)
        if extra is None:
            return None
        sets.append(extra)
    if pair is None:
        pair_pool = sorted(pool)
        pair = rng.choice(pair_pool) if rng.random() < 0.85 else rng.randrange(34)
    rng.shuffle(sets)
    melds_wanted = rng.choices((0, 1, 2, 3, 4), (34, 20, 18, 13, 15))[0]
    kong_bias = rng.random() < 0.15  # now and then a hand of kongs (Three / Four Kongs, Two Concealed Kongs)
    melds: list[Meld] = []
    standing: list[int] = [pair, pair]
    for k, (kind, low) in enumerate(sets):
        if k < melds_wanted:
            melds.append(_declare(rng, kind, low, kong_bias))
        else:
            standing += [low, low + 1, low + 2] if kind == "chow" else [low] * 3
    return melds, standing


def _declare(rng: random.Random, kind: str, low: int, kong_bias: bool) -> Meld:
    tile = PLAYING_TILES[low]
    if kind == "chow":
        return Meld.chow(tile, claimed_tile=PLAYING_TILES[low + rng.randint(0, 2)], claimed=Direction.LEFT)
    direction = rng.choice(list(Direction))
    roll = rng.random()
    if roll < (0.7 if kong_bias else 0.12):
        return Meld.kong(tile, concealed=True)
    if roll < (0.95 if kong_bias else 0.3):
        return Meld.kong(tile, claimed=direction)
    return Meld.pung(tile, claimed=direction)


# ---- special shapes --------------------------------------------------------------------------------------

def _seven_pairs(rng: random.Random) -> list[int]:
    pool = sorted(_pool(rng))
    if len(pool) < 7 or rng.random() < 0.3:
        pool = list(range(34))
    kinds = rng.sample(pool, 7)
    if rng.random() < 0.3:  # four alike: two of the pairs are the same tile
        kinds[-1] = kinds[0]
    return [k for k in kinds for _ in range(2)]


def _seven_shifted_pairs(rng: random.Random) -> list[int]:
    suit, start = rng.choice(SUITS), rng.randint(1, 3)
    return [t(suit, start + k) for k in range(7) for _ in range(2)]


def _thirteen_orphans(rng: random.Random) -> list[int]:
    return list(TERMINALS_AND_HONORS) + [rng.choice(TERMINALS_AND_HONORS)]


def _knitted_tiles(rng: random.Random) -> list[int]:
    order = rng.choice(KNITTED_ORDERS)
    return [t(suit, start + step) for suit, start in zip(order, (1, 2, 3)) for step in (0, 3, 6)]


def _lesser_honors_and_knitted(rng: random.Random) -> list[int]:
    honors = rng.choice((5, 6, 6, 6))  # 6 honours + 8 knitted (000 item 45); 5 + all 9 knitted too (003 fan 34)
    return sorted(rng.sample(HONORS, honors) + rng.sample(_knitted_tiles(rng), 14 - honors))


def _greater_honors_and_knitted(rng: random.Random) -> list[int]:
    return sorted(list(HONORS) + rng.sample(_knitted_tiles(rng), 7))


def _nine_gates(rng: random.Random) -> list[int]:
    suit = rng.choice(SUITS)
    base = [t(suit, r) for r in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
    return base + [t(suit, rng.randint(1, 9))]


_SPECIAL = {"seven_pairs": _seven_pairs, "seven_shifted_pairs": _seven_shifted_pairs,
            "thirteen_orphans": _thirteen_orphans, "lesser_honors_and_knitted": _lesser_honors_and_knitted,
            "greater_honors_and_knitted": _greater_honors_and_knitted, "nine_gates": _nine_gates}


def _knitted_straight(rng: random.Random) -> tuple[list[Meld], list[int]]:
    """The nine knitted tiles, one more set (declared or standing) and a pair."""
    standing = _knitted_tiles(rng)
    pool = _pool(rng)
    extra = _fill_set(rng, pool) or ("pung", rng.choice(HONORS))
    pair = rng.choice(sorted(pool)) if rng.random() < 0.8 else rng.randrange(34)
    standing += [pair, pair]
    melds: list[Meld] = []
    kind, low = extra
    if rng.random() < 0.4:
        melds.append(_declare(rng, kind, low, kong_bias=rng.random() < 0.3))
    else:
        standing += [low, low + 1, low + 2] if kind == "chow" else [low] * 3
    return melds, standing


def shape_of(hand: Hand) -> str:
    """Which shape a generated hand was drawn as, read back from its tiles (for coverage counts):
    one of SPECIAL_SHAPES, or "regular"."""
    counts = Counter(t.index for t in hand.concealed)
    kinds = sorted(counts)
    if not hand.melds and len(hand.concealed) == 14:
        if all(n % 2 == 0 for n in counts.values()):
            if len(kinds) == 7 and kinds[-1] < 27 and kinds[0] // 9 == kinds[-1] // 9 and kinds[-1] - kinds[0] == 6:
                return "seven_shifted_pairs"
            return "seven_pairs"
        if set(kinds) == set(TERMINALS_AND_HONORS):
            return "thirteen_orphans"
        if all(n == 1 for n in counts.values()) and any(set(i for i in kinds if i < 27) <= set(_all_knitted(o))
                                                        for o in KNITTED_ORDERS):
            honors = sum(1 for i in kinds if i >= 27)
            return "greater_honors_and_knitted" if honors == 7 else "lesser_honors_and_knitted"
        suits = {i // 9 for i in kinds}
        if len(suits) == 1 and kinds[-1] < 27:
            base = min(suits) * 9
            ranks = [counts.get(base + r, 0) for r in range(9)]
            if all(n >= m for n, m in zip(ranks, (3, 1, 1, 1, 1, 1, 1, 1, 3))):
                return "nine_gates"
    if len(hand.melds) <= 1 and any(all(counts.get(i) for i in _all_knitted(o)) for o in KNITTED_ORDERS):
        return "knitted_straight"
    return "regular"


def _all_knitted(order: tuple[int, int, int]) -> list[int]:
    return [t(suit, start + step) for suit, start in zip(order, (1, 2, 3)) for step in (0, 3, 6)]
