"""Speed and accuracy of the tile detector, and of the PyPI package ``mahjong-detector`` beside it.

    python bench/detect.py [--model models/detector.onnx] [--val ../shared/data/real-photos/val]
                           [--sizes 1 4 12] [--photos 6] [--repeats 3] [--limit N] [--no-peer]
                           [--json OUT.json]

Speed: photos of 1, 4 and 12 megapixels (4:3), rendered by ``mjscan synth`` (seed 7, guide scenes) and
kept as JPEG bytes; each is timed from the bytes to the typed detections (decode, EXIF, letterbox, model,
NMS, slicing where the photo is big, the sideways rule), one photo at a time, on whatever cores there are
(this project's machines: 2, often shared; run it twice). Reported: photos per second and the median
latency. ``mahjong-detector`` is timed on the same bytes through its own pipeline (grey, autocontrast,
640 letterbox, its NMS), from the bytes to its detections, the two taking turns photo by photo (since stop 46; one
after the other before), and the ratio of their medians, which the machine's speed cancels out of.

Accuracy: both detectors on the same real validation photos, scored by ``vision.evaluate`` on the 34
riichi kinds only (``mahjong-detector`` has no flowers, seasons or backs): mAP50 and mAP50-95, and
precision/recall at each one's own threshold (ours 0.25, theirs 0.5). Its classes are mapped to our codes
(chun 7z, haku 5z, hatsu 6z, tou 1z, nan 2z, sha 3z, pe 4z). The mAPs are also given under ultralytics' ``val``
protocol (``multi_label``: each box stands for every class it scores; ``vision.evaluate.with_next_readings``), for
both: ours from each box's next readings, theirs from its raw class scores through a per-class NMS (its own IoU
0.5), each cut to 300 detections a photo.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from vision.classes import CLASS_NAMES, RIICHI_IDS  # noqa: E402
from vision.detector import Detector, load_image  # noqa: E402
from vision.evaluate import ImagePrediction, evaluate, list_images, read_truth  # noqa: E402

PEER_NAMES = {"chun": "7z", "haku": "5z", "hatsu": "6z", "tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z"}
SIZES = {1: (1155, 866), 4: (2309, 1732), 12: (4000, 3000)}
SETTLE_S = 0.1


class Peer:
    """mahjong-detector 0.0.6 through its own modules, keeping boxes and scores (its public
    ``detect_tiles`` answers only the codes)."""

    def __init__(self) -> None:
        from mahjong_detector.predict import CLASS_NAMES as names, create_input_tensor, get_inference_session, postprocess
        from mahjong_detector.preprocess import preprocess_image

        self.names = names
        self.ids = np.array([CLASS_NAMES.index(PEER_NAMES.get(n, n)) for n in names])
        self.preprocess, self.tensor, self.session, self.postprocess = (
            preprocess_image, create_input_tensor, get_inference_session, postprocess)

    def raw(self, image, confidence: float = 0.5):
        from PIL import Image

        if not isinstance(image, Image.Image):
            image = load_image(image)
        padded, padding = self.preprocess(image)
        session = self.session()
        output = session.run(None, {session.get_inputs()[0].name: self.tensor(padded)})[0][0]
        found = self.postprocess(output, padding, num_classes=len(self.names), conf_threshold=confidence)
        boxes = np.array([[d.x1, d.y1, d.x2, d.y2] for d in found], dtype=np.float64).reshape(-1, 4)
        scores = np.array([d.confidence for d in found], dtype=np.float64)
        classes = self.ids[np.array([d.class_id for d in found], dtype=np.int64)] if found else np.zeros(0, int)
        return boxes, scores, classes

    def raw_multi_label(self, image, confidence: float = 0.001, iou: float = 0.5, max_detections: int = 300):
        """Its raw output read as ultralytics' ``val`` reads a YOLO (``multi_label=True``): every (box, class) whose
        score passes ``confidence``, NMS within each class (at its own postprocess's IoU), the best
        ``max_detections`` kept; boxes mapped back to the photo as its ``postprocess`` maps them."""
        from PIL import Image

        from vision.boxes import class_aware_nms

        if not isinstance(image, Image.Image):
            image = load_image(image)
        padded, padding = self.preprocess(image)
        session = self.session()
        output = session.run(None, {session.get_inputs()[0].name: self.tensor(padded)})[0][0]
        centres, class_scores = output[:4].T, output[4:4 + len(self.names)].T
        anchor, class_id = np.nonzero(class_scores > confidence)
        scores = class_scores[anchor, class_id].astype(np.float64)
        order = np.argsort(-scores, kind="stable")[:30000]  # ultralytics' max_nms
        anchor, class_id, scores = anchor[order], class_id[order], scores[order]
        xc, yc, w, h = centres[anchor].T
        boxes = np.stack([((xc - w / 2 - padding.pad_x) / padding.scale).clip(0, padding.original_width),
                          ((yc - h / 2 - padding.pad_y) / padding.scale).clip(0, padding.original_height),
                          ((xc + w / 2 - padding.pad_x) / padding.scale).clip(0, padding.original_width),
                          ((yc + h / 2 - padding.pad_y) / padding.scale).clip(0, padding.original_height)],
                         axis=1).astype(np.float64).reshape(-1, 4)
        keep = class_aware_nms(boxes, scores, class_id, iou_threshold=iou, cross_class_iou=None)[:max_detections]
        return boxes[keep], scores[keep], self.ids[class_id[keep]]


def render_photos(count: int, megapixels: int, folder: Path) -> list[bytes]:
    width, height = SIZES[megapixels]
    out = folder / f"{megapixels}mp"
    command = [sys.executable, "-m", "mjscan", "synth", "--count", str(count), "--out", str(out), "--seed", "7",
               "--size", str(width), "--kinds", "guide", "--quiet"]
    subprocess.run(command, check=True, cwd=REPO, capture_output=True)
    photos = []
    for path in sorted((out / "images").iterdir()):
        image = load_image(path)
        # the renderer picks the aspect per photo; make every photo exactly 4:3 landscape at this size
        image = image.resize((width, height)) if image.width >= image.height else image.resize((height, width))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=90)
        photos.append(buffer.getvalue())
    return photos


def time_side_by_side(runs: dict, photos: list[bytes], repeats: int = 3) -> dict[str, dict[str, float]]:
    """Each of ``runs`` (name -> a function of a photo's bytes) timed on every photo ``repeats`` times, taking turns
    photo by photo, so that the machine's load (these cores are shared) weighs on every run alike."""
    for run in runs.values():
        run(photos[0])  # warm up
    latencies: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for photo in photos:
            for name, run in runs.items():
                # onnxruntime's idle threads spin a while after a run (mahjong-detector's do): let them settle first,
                # so that neither side is timed against the other's leftovers
                time.sleep(SETTLE_S)
                start = time.perf_counter()
                run(photo)
                latencies[name].append(time.perf_counter() - start)
    return {name: {"photos_per_second": round(len(times) / sum(times), 2),
                   "median_ms": round(1000 * statistics.median(times), 1), "runs": len(times)}
            for name, times in latencies.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(REPO / "models" / "detector.onnx"))
    parser.add_argument("--val", default=str(REPO.parent / "shared" / "data" / "real-photos" / "val"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 12], choices=sorted(SIZES))
    parser.add_argument("--photos", type=int, default=6, help="photos per size for the timing (default 6)")
    parser.add_argument("--repeats", type=int, default=3, help="times each photo is read (default 3)")
    parser.add_argument("--limit", type=int, help="only the first N validation photos")
    parser.add_argument("--no-peer", action="store_true", help="leave mahjong-detector out")
    parser.add_argument("--no-accuracy", action="store_true", help="timing only")
    parser.add_argument("--json", metavar="OUT.json", help="also write the figures as JSON")
    args = parser.parse_args(argv)

    ours = Detector(args.model)
    peer = None
    if not args.no_peer:
        try:
            peer = Peer()
        except ImportError as error:
            print(f"mahjong-detector is not installed ({error}): pip install mahjong-detector", file=sys.stderr)
    results: dict = {"model": args.model, "speed": {}, "accuracy": {}}

    with tempfile.TemporaryDirectory() as tmp:
        for megapixels in args.sizes:
            photos = render_photos(args.photos, megapixels, Path(tmp))
            runs = {"mjscan": ours.detect, **({"mahjong-detector": peer.raw} if peer is not None else {})}
            row = time_side_by_side(runs, photos, args.repeats)
            line = f"{megapixels:>2} MP: " + "; ".join(
                f"{name} {r['photos_per_second']} photos/s, median {r['median_ms']} ms" for name, r in row.items())
            if peer is not None:  # the machine's speed cancels out of the ratio
                row["ratio"] = round(row["mjscan"]["median_ms"] / row["mahjong-detector"]["median_ms"], 2)
                line += f" (ratio {row['ratio']})"
            results["speed"][f"{megapixels}MP"] = row
            print(line, flush=True)

    if not args.no_accuracy and Path(args.val, "images").is_dir():
        images = list_images(args.val)[: args.limit] if args.limit else list_images(args.val)
        truths = [read_truth(p) for p in images]
        mine, theirs, theirs_multi = [], [], []
        for path in images:
            image = load_image(path)
            _, _, boxes, scores, classes, alternatives, _ = ours.raw_readings(image, 0.001)
            mine.append(ImagePrediction(boxes, scores, classes, alternatives=alternatives))
            if peer is not None:
                theirs.append(ImagePrediction(*peer.raw(image, 0.001)))
                theirs_multi.append(peer.raw_multi_label(image, 0.001))
        named = [("mjscan", mine, ours.confidence)] + ([("mahjong-detector", theirs, 0.5)] if peer else [])
        for name, predictions, threshold in named:
            report = evaluate(predictions, truths, confidence=threshold, classes=RIICHI_IDS)
            if name == "mahjong-detector":  # its multi-label reading is a list of its own (no next readings)
                multi = evaluate([ImagePrediction(*found) for found in theirs_multi], truths, classes=RIICHI_IDS)
                multi_label = {"mAP50": multi.map50, "mAP50-95": multi.map50_95}
            else:
                multi_label = report.multi_label
            results["accuracy"][name] = {"photos": report.images, "truths": report.truths,
                                         "mAP50": round(report.map50, 4), "mAP50-95": round(report.map50_95, 4),
                                         "confidence": threshold, "precision": round(report.precision, 4),
                                         "recall": round(report.recall, 4)}
            line = (f"{name}: on {report.images} real val photos, 34 riichi kinds ({report.truths} tiles): "
                    f"mAP50 {report.map50:.4f}, mAP50-95 {report.map50_95:.4f}; at {threshold}: precision "
                    f"{report.precision:.4f}, recall {report.recall:.4f}")
            if multi_label is not None:
                results["accuracy"][name]["multi_label"] = {
                    "mAP50": round(multi_label["mAP50"], 4), "mAP50-95": round(multi_label["mAP50-95"], 4)}
                line += (f"; ultralytics' multi-label protocol: mAP50 {multi_label['mAP50']:.4f}, "
                         f"mAP50-95 {multi_label['mAP50-95']:.4f}")
            print(line, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
