"""Speed of reading a photo into a hand (``vision.photo_reading.read_photo``: what ``mjscan read``, ``mjscan scan``
and the page's ``/api/scan`` run), with the detector remembering the photo between its two readings and without.

    python bench/read.py [--sizes 1 4 12] [--photos 4] [--data DIR ...] [--limit N] [--repeats 2] [--json OUT]
                         [--peer forgetful|no-closer|no-advice]

``read_photo`` reads every photo twice: ``Detector.detect``, then ``Detector.unsure_boxes`` down to a lower
threshold (a faint tile may complete the hand, a faint flower is taken). Since stop 50 the detector keeps the
photo's decoding and its localiser's answers between the two (``Detector.remembering``). This bench times
``read_photo`` from the JPEG bytes to the reading both ways on the same photos, the two taking turns photo by photo
(the first of each pair alternating), and checks that both give the same detections and reading (``repr``).

``--peer no-closer`` times it instead against the same detector without the closer look (stop 54: a small photo
whose hand lacks a tile read again enlarged, ``vision.photo_reading.read_closer``); the readings that differ are those
the closer look changed. ``--peer no-advice`` times it against the same detector without the photo advice (stop 58:
``vision.photo_advice`` measures the tiles' size, sharpness and brightness on the decoded photo); the readings that
differ are those given advice.

Photos: rendered guide scenes at 1, 4 and 12 megapixels (``bench/detect.py``'s, ``--sizes``), and any folders of
photos given with ``--data`` (their ``images/`` or the folder itself, the first ``--limit``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from detect import SETTLE_S, SIZES, render_photos  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.photo_reading import read_photo  # noqa: E402

SUFFIXES = (".jpg", ".jpeg", ".png", ".heic", ".webp")


class Forgetful:
    """The same detector, without ``remembering``: each of its readings decodes the photo and runs the localiser."""

    def __init__(self, detector: Detector):
        self.detect, self.unsure_boxes = detector.detect, detector.unsure_boxes
        self.detect_closer = detector.detect_closer


class WithoutCloser:
    """The same detector without its closer look (``Detector.detect_closer``, stop 54): ``read_photo`` then never reads
    a small photo whose hand lacks a tile again enlarged."""

    def __init__(self, detector: Detector):
        self.detect, self.unsure_boxes, self.remembering = detector.detect, detector.unsure_boxes, detector.remembering


class WithoutAdvice:
    """The same detector, not showing its decoding (``Detector.picture``, stop 58): ``read_photo`` then gives no photo
    advice."""

    def __init__(self, detector: Detector):
        self.detect, self.unsure_boxes, self.remembering = detector.detect, detector.unsure_boxes, detector.remembering
        self.detect_closer = detector.detect_closer


def folder_photos(folder: Path, limit: int) -> list[bytes]:
    images = folder / "images" if (folder / "images").is_dir() else folder
    paths = sorted(p for p in images.iterdir() if p.suffix.lower() in SUFFIXES)[:limit]
    if not paths:
        raise SystemExit(f"no photos in '{images}'")
    return [p.read_bytes() for p in paths]


def time_both(detector: Detector, photos: list[bytes], repeats: int, peer: str = "forgetful") -> dict[str, float]:
    """``read_photo``'s median time on ``photos`` with ``detector`` and with its ``peer`` (``forgetful``: without
    remembering the photo between readings; ``no-closer``: without the closer look; ``no-advice``: without the photo
    advice), taking turns photo by photo."""
    other = {"forgetful": Forgetful, "no-closer": WithoutCloser, "no-advice": WithoutAdvice}[peer](detector)
    ways = {"remembering": detector, "without": other}
    read_photo(detector, photos[0]), read_photo(other, photos[0])  # warm up
    times: dict[str, list[float]] = {name: [] for name in ways}
    differ = 0
    for repeat in range(repeats):
        for n, photo in enumerate(photos):
            order = list(ways) if (n + repeat) % 2 == 0 else list(ways)[::-1]
            readings = {}
            for name in order:
                time.sleep(SETTLE_S)  # onnxruntime's idle threads spin a while after a run: let them settle
                start = time.perf_counter()
                readings[name] = read_photo(ways[name], photo)
                times[name].append(time.perf_counter() - start)
            differ += repeat == 0 and repr(readings["remembering"]) != repr(readings["without"])
    medians = {name: 1000 * statistics.median(t) for name, t in times.items()}
    return {"photos": len(photos), "remembering_ms": round(medians["remembering"], 1),
            "without_ms": round(medians["without"], 1), "ratio": round(medians["remembering"] / medians["without"], 3),
            "readings_differing": int(differ)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 4, 12], choices=sorted(SIZES),
                        help="rendered photos of these megapixels (none: only --data)")
    parser.add_argument("--photos", type=int, default=4, help="rendered photos a size")
    parser.add_argument("--data", type=Path, nargs="*", default=[], help="folders of photos to read too")
    parser.add_argument("--limit", type=int, default=40, help="photos a --data folder")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--model", default=None, help="the detector (default: the shipped one)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--peer", choices=("forgetful", "no-closer", "no-advice"), default="forgetful",
                        help="what the shipped reading is timed against: the detector without remembering the photo "
                             "(default), without the closer look at a small photo that lacks a tile (stop 54), or "
                             "without the photo advice (stop 58)")
    args = parser.parse_args(argv)
    if args.photos < 1 or args.limit < 1 or args.repeats < 1:
        parser.error("--photos, --limit and --repeats are at least 1")
    if not args.sizes and not args.data:
        parser.error("nothing to read: give --sizes or --data")
    detector = Detector(args.model) if args.model else Detector()
    sets: dict[str, list[bytes]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            sets[f"{size} MP (rendered)"] = render_photos(args.photos, size, Path(scratch))
    for folder in args.data:
        sets[str(folder)] = folder_photos(folder, args.limit)
    figures = {}
    for name, photos in sets.items():
        figures[name] = found = time_both(detector, photos, args.repeats, args.peer)
        shipped, without = ("remembering", "without") if args.peer == "forgetful" else ("as shipped", "without it")
        print(f"{name}: {found['photos']} photos, read_photo median {found['remembering_ms']} ms {shipped}, "
              f"{found['without_ms']} ms {without} (ratio {found['ratio']}); readings that differ: "
              f"{found['readings_differing']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
