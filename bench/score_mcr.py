"""End-to-end MCR scoring speed: our scorer against PyMahjongGB, on one core, in the same run.

    python bench/score_mcr.py [--hands 2000] [--rounds 3] [--seed 20261121]

The corpus is a fixed list of random winning hands (``tests/peers/random_hands.py``, fixed seed),
serialised once to the spec's hand JSON strings. Each pipeline is timed end to end, one hand at a time:

- ours:   json.loads -> scorer.codec.hand_from_dict -> mcr rule set -> Score.to_dict -> json.dumps
- theirs: json.loads -> scorer.codec.hand_from_dict -> tests/peers/pymahjonggb (conversion and
          MahjongFanCalculator) -> dict -> json.dumps

Reported per pipeline, in hands per second:

- cold:     the first round over the corpus, on empty caches (our scorer caches readings per hand and
            shapes per tile count, so this is the speed on hands it has not seen);
- warm:     the median of the following rounds over the same corpus (for us mostly cache hits);
- uncached: the median of rounds with our caches cleared before each (every hand unseen, but the
            interpreter warm): the fair steady-state figure for new hands.

PyMahjongGB keeps no cache; its three figures differ only by noise. The process is pinned to one CPU
where the OS allows it. The machine may be shared: run it twice and trust figures that agree.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scorer.codec import hand_from_dict, hand_to_dict  # noqa: E402
from scorer.rules import get_rule_set  # noqa: E402


def pin_to_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity here)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def build_corpus(seed: int, n: int) -> list[str]:
    from tests.peers.random_hands import random_hands

    return [json.dumps(hand_to_dict(hand)) for hand in random_hands(seed, n)]


def ours() -> Callable[[str], str]:
    mcr = get_rule_set("mcr")

    def run(line: str) -> str:
        return json.dumps(mcr.score(hand_from_dict(json.loads(line))).to_dict())

    return run


def theirs() -> Callable[[str], str]:
    from tests.peers.pymahjonggb import score as peer_score

    def run(line: str) -> str:
        result = peer_score(hand_from_dict(json.loads(line)))
        if result is None:
            return json.dumps({"valid": False})
        return json.dumps({"valid": True, "total": result.total,
                           "items": [{"name": n, "points": p, "count": c} for n, p, c in result.items]})

    return run


def clear_our_caches() -> int:
    """Empty every functools cache in the scorer's modules; answers how many were cleared."""
    cleared = 0
    for name, module in list(sys.modules.items()):
        if name != "scorer" and not name.startswith("scorer."):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                value.cache_clear()
                cleared += 1
    return cleared


def one_round(pipeline: Callable[[str], str], corpus: list[str]) -> float:
    """Seconds for one pass over the corpus."""
    gc.collect()
    start = time.perf_counter()
    for line in corpus:
        pipeline(line)
    return time.perf_counter() - start


def measure(pipeline: Callable[[str], str], corpus: list[str], rounds: int, clear: Callable[[], object]) -> dict:
    cold = one_round(pipeline, corpus)
    warm = [one_round(pipeline, corpus) for _ in range(rounds)]
    uncached = []
    for _ in range(rounds):
        clear()
        uncached.append(one_round(pipeline, corpus))
    n = len(corpus)
    return {"cold": n / cold, "warm": n / statistics.median(warm), "uncached": n / statistics.median(uncached)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="corpus size (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="warm and uncached rounds each (default 3)")
    parser.add_argument("--seed", type=int, default=20261121, help="corpus seed (default 20261121)")
    args = parser.parse_args(argv)

    pinned = pin_to_one_core()
    corpus = build_corpus(args.seed, args.hands)
    print(f"corpus: {len(corpus)} hands (seed {args.seed}), {sum(map(len, corpus)) / len(corpus):.0f} bytes of "
          f"JSON each; {args.rounds} warm and {args.rounds} uncached rounds; {pinned}; "
          f"Python {sys.version.split()[0]}")

    pipelines: list[tuple[str, Callable[[str], str], Callable[[], object]]] = []
    try:
        import MahjongGB  # noqa: F401
        pipelines.append(("PyMahjongGB", theirs(), lambda: None))
    except ImportError:
        print("PyMahjongGB is not installed (pip install -e '.[test]'): timing our scorer only.")
    clear_our_caches()  # a cold start for ours, whatever imports did
    pipelines.insert(0, ("mjscan", ours(), clear_our_caches))

    # A look at the answers (first 200 hands), so that both pipelines are seen to do the same work.
    # PyMahjongGB does not apply MCR's 8-point minimum: it scores every winning shape.
    for name, pipeline, _ in pipelines:
        answers = [json.loads(pipeline(line)) for line in corpus[:200]]
        valid = sum(a.get("valid", False) for a in answers)
        mean = statistics.mean(a["total"] for a in answers if a.get("valid"))
        print(f"{name}: {valid} of the first 200 hands scored as wins, mean total {mean:.1f}")
    clear_our_caches()

    results = {name: measure(pipeline, corpus, args.rounds, clear) for name, pipeline, clear in pipelines}
    print()
    print(f"{'hands/s':<12}{'cold':>10}{'warm':>10}{'uncached':>10}")
    for name, figures in results.items():
        print(f"{name:<12}" + "".join(f"{figures[k]:>10.0f}" for k in ("cold", "warm", "uncached")))
    if "PyMahjongGB" in results:
        mine, peer = results["mjscan"], results["PyMahjongGB"]
        print(f"{'ours/theirs':<12}" + "".join(f"{mine[k] / peer[k]:>10.2f}" for k in ("cold", "warm", "uncached")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
