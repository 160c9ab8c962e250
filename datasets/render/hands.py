"""Random valid winning hands (scorer types) for the renderer, and a wall to draw extra tiles from.

Every hand is a winning shape by construction: four sets and a pair with 0-4 declared melds (chows,
pungs, exposed and concealed kongs, each exposed meld with a direction and a claimed tile), Seven Pairs,
or Thirteen Orphans; at most four copies of a tile; 0-8 flowers and seasons. It parses as a
``scorer.hand.Hand`` and scores under MCR without an error other than ``below_minimum``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scorer.hand import Context, Hand
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import BONUS_TILES, PLAYING_TILES, Tile, Wind

_DIRECTIONS = (Direction.LEFT, Direction.ACROSS, Direction.RIGHT)
_ORPHANS = tuple(t for t in PLAYING_TILES if t.is_terminal_or_honor)


def random_hand(rng: np.random.Generator) -> Hand:
    """One random valid winning hand."""
    while True:
        hand = _try_hand(rng)
        if hand is not None:
            return hand


def _try_hand(rng: np.random.Generator) -> Hand | None:
    shape = rng.choice(3, p=(0.88, 0.09, 0.03))
    melds: list[Meld] = []
    if shape == 1:  # seven pairs (four alike may count as two pairs)
        kinds = rng.choice(34, size=7, replace=True)
        standing = [PLAYING_TILES[k] for k in kinds for _ in range(2)]
    elif shape == 2:  # thirteen orphans
        standing = list(_ORPHANS) + [_ORPHANS[rng.integers(13)]]
    else:
        n_declared = int(rng.choice(5, p=(0.3, 0.25, 0.2, 0.15, 0.1)))
        pool = _suit_pool(rng)
        standing = []
        for i in range(4):
            chow = rng.random() < 0.55
            if chow:
                numbered = [t for t in pool if t.is_numbered and t.rank <= 7]
                if not numbered:
                    chow = False
            if chow:
                low = numbered[rng.integers(len(numbered))]
                tiles = [low, low.next(1), low.next(2)]
            else:
                tile = pool[rng.integers(len(pool))]
                tiles = [tile] * 3
            if i < n_declared:
                melds.append(_declared(rng, chow, tiles))
            else:
                standing += tiles
        pair = pool[rng.integers(len(pool))]
        standing += [pair, pair]
    hand_tiles = list(standing) + [t for m in melds for t in m.tiles]
    if max(Counter(hand_tiles).values()) > 4:
        return None
    winning = standing[rng.integers(len(standing))]
    n_flowers = int(rng.choice(9, p=(0.4, 0.15, 0.15, 0.1, 0.08, 0.04, 0.03, 0.02, 0.03)))
    flowers = tuple(BONUS_TILES[i] for i in sorted(rng.choice(8, size=n_flowers, replace=False)))
    winds = list(Wind)
    context = Context(self_drawn=bool(rng.random() < 0.4), seat_wind=winds[rng.integers(4)],
                      prevalent_wind=winds[rng.integers(4)])
    return Hand(concealed=tuple(standing), melds=tuple(melds), winning_tile=winning, flowers=flowers,
                context=context)


def _suit_pool(rng: np.random.Generator) -> list[Tile]:
    """The kinds a regular hand draws from: mostly all 34, sometimes one suit (+ honours) or two suits."""
    r = rng.random()
    if r < 0.6:
        return list(PLAYING_TILES)
    suits = ["m", "p", "s"]
    rng.shuffle(suits)
    if r < 0.8:
        keep = {suits[0], "z"}
    elif r < 0.9:
        keep = {suits[0]}
    else:
        keep = {suits[0], suits[1]}
    return [t for t in PLAYING_TILES if t.suit.value in keep]


def _declared(rng: np.random.Generator, chow: bool, tiles: list[Tile]) -> Meld:
    if chow:
        return Meld(MeldKind.CHOW, tuple(tiles), claimed=Direction.LEFT, claimed_tile=tiles[rng.integers(3)])
    tile = tiles[0]
    if rng.random() < 0.4:
        if rng.random() < 0.45:
            return Meld.kong(tile, concealed=True)
        return Meld.kong(tile, claimed=_DIRECTIONS[rng.integers(3)])
    return Meld.pung(tile, claimed=_DIRECTIONS[rng.integers(3)])


class Wall:
    """The tiles of a full set (4 of each playing tile, 1 of each flower) not yet used by the scene."""

    def __init__(self, hand: Hand):
        self.counts = Counter({t: 4 for t in PLAYING_TILES})
        self.counts.update({t: 1 for t in BONUS_TILES})
        self.counts.subtract(hand.all_tiles())
        self.counts.subtract(hand.flowers)

    def draw(self, rng: np.random.Generator, n: int, bonus: bool = True) -> list[Tile]:
        """``n`` random tiles taken from the wall (fewer if it runs out)."""
        out = []
        for _ in range(n):
            tiles = [t for t, c in self.counts.items() if c > 0 and (bonus or not t.is_bonus)]
            if not tiles:
                break
            weights = np.array([self.counts[t] for t in tiles], float)
            tile = tiles[rng.choice(len(tiles), p=weights / weights.sum())]
            self.counts[tile] -= 1
            out.append(tile)
        return out

    def take(self, tile: Tile, n: int) -> bool:
        """Take ``n`` copies of ``tile`` if the wall has them."""
        if self.counts[tile] < n:
            return False
        self.counts[tile] -= n
        return True
