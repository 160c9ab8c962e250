"""Which fans formed between sets count together: seed 000 IV, principles 2, 3 and 5.

- Non-separation (2): a set is used whole; the sets of a three- or four-set fan are not regrouped.
- Only once (3) and account once (5): a set already in a fan may join one more fan with a set
  outside it, and a set cannot form the same fan twice. So the two-set fans chosen must form no cycle
  (a forest over the sets), no set takes part in two fans of the same name, and beside a three-set fan
  the fourth set may pair with one of the three once.
- The higher value may be chosen (4): of all groupings allowed, the one worth most is taken.

The choice depends only on the sets' lowest tiles, so it is cached on them.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from scorer.mcr.catalog import FANS, Fan


@lru_cache(maxsize=None)
def _set_fans(group: str, arity: int) -> tuple[Fan, ...]:
    # Highest first, so that a tie keeps the more valuable single fan's name.
    return tuple(sorted((f for f in FANS.values() if f.group == group and f.arity == arity),
                        key=lambda f: (-f.points, f.number)))


def _first_match(fans: tuple[Fan, ...], tiles: tuple[int, ...]) -> Fan | None:
    for candidate in fans:
        if candidate.members(*tiles):
            return candidate
    return None


def _preference(counts: dict[str, int]) -> tuple[int, ...]:
    """Among equal choices, keep more of the fans listed first in the book (Pure Double Chow before
    Mixed Double Chow before Short Straight before Two Terminal Chows)."""
    return tuple(counts.get(f.name, 0) for f in sorted(FANS.values(), key=lambda f: f.book) if f.group)


def _best_forest(tiles: tuple[int, ...], edges: list[tuple[int, int, Fan]]) -> tuple[int, int, dict[str, int]]:
    """(points, distinct names, counts) of the best allowed choice of two-set fans."""
    best = (0, 0, (), {})
    for size in range(len(edges), 0, -1):
        for chosen in combinations(edges, size):
            if not _is_forest(len(tiles), chosen) or _repeats_a_fan(chosen):
                continue
            counts: dict[str, int] = {}
            for _, _, f in chosen:
                counts[f.name] = counts.get(f.name, 0) + 1
            value = (sum(f.points for _, _, f in chosen), len(counts), _preference(counts), counts)
            if value[:3] > best[:3]:
                best = value
    return best[0], best[1], best[3]


def _is_forest(nodes: int, edges) -> bool:
    parent = list(range(nodes))

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b, _ in edges:
        ra, rb = root(a), root(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


def _repeats_a_fan(edges) -> bool:
    seen = set()
    for a, b, f in edges:
        for node in (a, b):
            if (node, f.name) in seen:
                return True
            seen.add((node, f.name))
    return False


@lru_cache(maxsize=50_000)
def choose(group: str, tiles: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    """The set fans that count for these chows or pungs (lowest tile indices, sorted)."""
    tiles = tuple(sorted(tiles))
    n = len(tiles)
    options: list[tuple[int, int, dict[str, int]]] = []
    if n == 4:
        four = _first_match(_set_fans(group, 4), tiles)
        if four is not None:
            options.append((four.points, 1, {four.name: 1}))
    if n >= 3:
        pair_fans = _set_fans(group, 2)
        for trio in combinations(range(n), 3):
            three = _first_match(_set_fans(group, 3), tuple(tiles[i] for i in trio))
            if three is None:
                continue
            counts = {three.name: 1}
            points = three.points
            rest = [i for i in range(n) if i not in trio]
            if rest:  # the fourth set may join one of the three, once
                extra = [f for i in trio for f in [_first_match(pair_fans, tuple(sorted((tiles[i], tiles[rest[0]]))))]
                         if f is not None and f.name not in three.excludes]
                if extra:
                    best = min(extra, key=lambda f: (-f.points, f.number))
                    counts[best.name] = counts.get(best.name, 0) + 1
                    points += best.points
            options.append((points, len(counts), counts))
    edges = []
    pair_fans = _set_fans(group, 2)
    for a, b in combinations(range(n), 2):
        found = _first_match(pair_fans, (tiles[a], tiles[b]))
        if found is not None:
            edges.append((a, b, found))
    if edges:
        options.append(_best_forest(tiles, edges))
    if not options:
        return ()
    best = max(options, key=lambda o: (o[0], o[1]))
    return tuple(sorted(best[2].items()))
