"""Speed of the grouping (detections to a hand), beside the detector that feeds it and, with ``--against``, beside
another checkout's grouping on the same detections.

    python bench/group.py [--data DIR | --photos 40 --seed 10] [--repeats 3] [--against CHECKOUT] [--rules R]
                          [--json OUT]

Photos: a folder made by ``mjscan synth`` (``--data``), or ``--photos`` meld scenes rendered here in the held-out art
style (``mjscan synth --held-out --kinds guide --size 1280``), the photos ``mjscan eval-grouping`` judges. The shipped
detector reads each photo once (timed: JPEG to typed detections); then ``vision.grouping.group`` reads each photo's
detections (timed: the geometry, the melds, and the re-readings ``vision.repair`` tries when the tiles make no
winning hand, which group the photo again for each).

Each grouping runs in a worker process of its own checkout (``--against``: for example ``git worktree add /tmp/base
<commit>``), on the same detections, the workers taking turns photo by photo, so that the machine's speed cancels
out of the ratio of their medians. The workers also answer a digest of each reading (``repr``): a change meant only
for speed must leave every reading as it was, and the bench says how many differ.

``--rules R``: this checkout's worker also weighs each reading's open questions under rule set R
(``vision.question_stakes.weigh_questions``, what ``mjscan scan``, ``/api/scan`` and ``/api/answer`` add to a photo
with questions), timed apart from the grouping and compared with it on the same photos.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SETTLE_S = 0.05

# The worker: loads the detections (one JSON list), then for each index read from stdin groups that photo's
# detections and answers "milliseconds digest". Given as source so that an older checkout needs no file of ours.
WORKER = r"""
import hashlib, json, sys, time
from vision.detections import Detections
from vision.grouping import group
photos = [Detections.from_dict(d) for d in json.load(open(sys.argv[1]))]
rules = sys.argv[2] if len(sys.argv) > 2 else None
if rules:
    from scorer.rules import get_rule_set
    from vision.question_stakes import weigh_questions
    score = get_rule_set(rules).score
print("ready", flush=True)
for line in sys.stdin:
    detections = photos[int(line)]
    start = time.perf_counter()
    reading = group(detections)
    elapsed = time.perf_counter() - start
    weighed = -1.0  # no questions weighed
    if rules and reading.questions:
        start = time.perf_counter()
        weigh_questions(reading, {}, score)
        weighed = 1000 * (time.perf_counter() - start)
    print(f"{1000 * elapsed:.3f} {hashlib.sha1(repr(reading).encode()).hexdigest()} {weighed:.3f}", flush=True)
"""


class Worker:
    """A grouping in a process of its own, importing ``vision`` from ``checkout``."""

    def __init__(self, checkout: Path, detections_file: Path, rules: str | None = None) -> None:
        if not (checkout / "vision" / "grouping.py").is_file():
            raise SystemExit(f"'{checkout}' is no checkout of this project (no vision/grouping.py)")
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        self.checkout = checkout
        self.process = subprocess.Popen([sys.executable, "-c", WORKER, str(detections_file), *([rules] if rules else [])],
                                        cwd=checkout, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the grouping of '{checkout}' did not start (see its error above)")

    def group(self, index: int) -> tuple[float, str, float]:
        """The grouping's milliseconds, the reading's digest, and the weighing's milliseconds (-1: none)."""
        self.process.stdin.write(f"{index}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().split()
        if len(answer) != 3:
            raise SystemExit(f"the grouping of '{self.checkout}' failed on photo {index} (see its error above)")
        return float(answer[0]), answer[1], float(answer[2])

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def render(count: int, seed: int, folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "mjscan", "synth", "--count", str(count), "--seed", str(seed),
                    "--held-out", "--kinds", "guide", "--size", "1280", "--out", str(folder), "--quiet"],
                   check=True, cwd=REPO)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="a folder made by 'mjscan synth' (images/); else photos are rendered")
    parser.add_argument("--photos", type=int, default=40, help="photos to render without --data, or at most to read")
    parser.add_argument("--seed", type=int, default=10, help="the renderer's seed without --data (10: a held-out set)")
    parser.add_argument("--repeats", type=int, default=3, help="times each photo is grouped by each worker")
    parser.add_argument("--against", type=Path, help="another checkout whose grouping is timed beside this one's")
    parser.add_argument("--model", default=None, help="the detector (default: the shipped one)")
    parser.add_argument("--rules", help="also time weighing each reading's open questions under this rule set "
                                         "(vision.question_stakes)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rules:
        from scorer.rules import get_rule_set

        try:
            get_rule_set(args.rules)
        except KeyError as error:
            parser.error(error.args[0])
    if args.photos < 1 or args.repeats < 1:
        parser.error("--photos and --repeats are at least 1")

    from vision.detector import Detector

    with tempfile.TemporaryDirectory() as scratch:
        data = args.data or render(args.photos, args.seed, Path(scratch) / "photos")
        photos = sorted((data / "images").glob("*.jpg"))[:args.photos]
        if not photos:
            raise SystemExit(f"no photos in '{data / 'images'}'")
        detector = Detector(args.model) if args.model else Detector()
        detector.detect(photos[0])  # the first run pays for the sessions' start
        found, detect_ms = [], []
        for n, photo in enumerate(photos, 1):
            data_bytes = photo.read_bytes()
            time.sleep(SETTLE_S)
            start = time.perf_counter()
            found.append(detector.detect(data_bytes))
            detect_ms.append(1000 * (time.perf_counter() - start))
            print(f"\rdetected {n}/{len(photos)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        detections_file = Path(scratch) / "detections.json"
        detections_file.write_text(json.dumps([d.to_dict() for d in found]))

        checkouts = {"this": REPO}
        if args.against:
            checkouts["against"] = args.against.resolve()
        workers = {name: Worker(path, detections_file, args.rules if name == "this" else None)
                   for name, path in checkouts.items()}
        times: dict[str, list[list[float]]] = {name: [[] for _ in photos] for name in workers}
        weighing: list[list[float]] = [[] for _ in photos]
        digests: dict[str, list[str]] = {name: [""] * len(photos) for name in workers}
        try:
            for repeat in range(args.repeats):
                for i in range(len(photos)):
                    for name, worker in workers.items():  # taking turns, photo by photo
                        time.sleep(SETTLE_S)
                        ms, digest, weighed_ms = worker.group(i)
                        times[name][i].append(ms)
                        if name == "this" and weighed_ms >= 0:
                            weighing[i].append(weighed_ms)
                        digests[name][i] = digest
                    print(f"\rgrouped {repeat * len(photos) + i + 1}/{args.repeats * len(photos)}", end="",
                          file=sys.stderr, flush=True)
            print(file=sys.stderr)
        finally:
            for worker in workers.values():
                worker.close()

    # a photo's time is its fastest of the repeats (the least disturbed); the figures are medians over photos
    best = {name: [min(t) for t in per_photo] for name, per_photo in times.items()}
    figures = {"photos": len(photos), "repeats": args.repeats, "data": str(args.data or f"rendered, seed {args.seed}"),
               "detect_ms_median": statistics.median(detect_ms),
               "group_ms_median": statistics.median(best["this"]),
               "group_ms_p90": statistics.quantiles(best["this"], n=10)[-1] if len(photos) > 1 else best["this"][0],
               "group_ms_max": max(best["this"]),
               "group_ms_total": sum(best["this"])}
    figures["group_over_detect"] = figures["group_ms_median"] / figures["detect_ms_median"]
    print(f"{len(photos)} photos ({figures['data']}), {args.repeats} repeats each")
    print(f"detector (JPEG to detections): median {figures['detect_ms_median']:.1f} ms")
    print(f"grouping, this checkout:       median {figures['group_ms_median']:.1f} ms, 90th percentile "
          f"{figures['group_ms_p90']:.1f} ms, slowest "
          f"{figures['group_ms_max']:.1f} ms, all photos {figures['group_ms_total']:.0f} ms "
          f"({figures['group_over_detect']:.2f} of the detector's median)")
    if "against" in best:
        figures["against"] = str(checkouts["against"])
        figures["against_group_ms_median"] = statistics.median(best["against"])
        figures["against_group_ms_p90"] = statistics.quantiles(best["against"], n=10)[-1] if len(photos) > 1 \
            else best["against"][0]
        figures["against_group_ms_total"] = sum(best["against"])
        figures["ratio_median"] = figures["group_ms_median"] / figures["against_group_ms_median"]
        figures["ratio_total"] = figures["group_ms_total"] / figures["against_group_ms_total"]
        figures["readings_differing"] = sum(a != b for a, b in zip(digests["this"], digests["against"]))
        print(f"grouping, {checkouts['against']}: median {figures['against_group_ms_median']:.1f} ms, 90th percentile "
              f"{figures['against_group_ms_p90']:.1f} ms, all photos "
              f"{figures['against_group_ms_total']:.0f} ms")
        print(f"ratio this / against: median {figures['ratio_median']:.2f}, all photos {figures['ratio_total']:.2f}; "
              f"readings that differ: {figures['readings_differing']} of {len(photos)}")
    asked = [i for i, w in enumerate(weighing) if w]
    if args.rules and asked:
        weighed = [min(weighing[i]) for i in asked]
        figures.update({"rules": args.rules, "photos_with_questions": len(asked),
                        "weigh_ms_median": statistics.median(weighed), "weigh_ms_max": max(weighed),
                        "weigh_over_group_median": statistics.median(w / best["this"][i]
                                                                     for w, i in zip(weighed, asked))})
        print(f"weighing the questions under {args.rules} ({len(asked)} photos with questions): median "
              f"{figures['weigh_ms_median']:.1f} ms, slowest {figures['weigh_ms_max']:.1f} ms; "
              f"{figures['weigh_over_group_median']:.2f} of the same photo's grouping at the median")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
