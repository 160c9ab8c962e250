"""Render a data set: many photos in parallel, written as YOLO images/labels, sidecars and data.yaml.

    DIR/images/000000.jpg   the photo
    DIR/labels/000000.txt   YOLO lines: class cx cy w h (normalised), the 43 classes in the spec's order
    DIR/sidecars/000000.json  the ground truth: hand, tiles with boxes, poses and groups (see scene.py)
    DIR/data.yaml           ultralytics' data set file (path, train, val, names)
    DIR/synth.json          how the set was made (seed, count, styles, size)

Photo ``i`` depends only on (seed, i): the output is the same whatever the number of workers.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from datasets.labels import CLASS_NAMES, data_yaml
from datasets.render.scene import RenderOptions, render_photo

_STYLES: Sequence[Any] = ()
_OUT: Path | None = None
_SEED = 0
_OPTIONS = RenderOptions()


def write_photo(out: Path, seed: int, index: int, styles: Sequence[Any], options: RenderOptions) -> int:
    """Render photo ``index`` and write its three files; answers its number of labelled tiles."""
    photo = render_photo(styles, seed, index, options)
    name = f"{index:06d}"
    (out / "images" / f"{name}.jpg").write_bytes(photo.jpeg)
    (out / "labels" / f"{name}.txt").write_text("".join(line + "\n" for line in photo.labels), encoding="utf-8")
    (out / "sidecars" / f"{name}.json").write_text(json.dumps(photo.sidecar, separators=(",", ":")) + "\n",
                                                   encoding="utf-8")
    return len(photo.labels)


def _work(index: int) -> int:
    assert _OUT is not None
    return write_photo(_OUT, _SEED, index, _STYLES, _OPTIONS)


def _init_worker() -> None:
    cv2.setNumThreads(1)


def render_set(out: str | Path, count: int, seed: int, styles: Sequence[Any], options: RenderOptions | None = None,
               workers: int | None = None, start: int = 0, progress: bool = True) -> dict[str, Any]:
    """Render photos ``start`` .. ``start + count - 1`` into ``out``; answers a summary
    (photos, labels, seconds, photos_per_second)."""
    global _STYLES, _OUT, _SEED, _OPTIONS
    out = Path(out)
    for sub in ("images", "labels", "sidecars"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    options = options or RenderOptions()
    workers = max(1, workers or os.cpu_count() or 1)
    _STYLES, _OUT, _SEED, _OPTIONS = list(styles), out, seed, options
    indices = range(start, start + count)
    bar = _progress(count, progress)
    began = time.perf_counter()
    labels = 0
    if "fork" not in multiprocessing.get_all_start_methods():
        workers = 1  # spawned workers would not inherit the styles: render in this process
    if workers == 1 or count <= 1:
        threads = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            for i in indices:
                labels += _work(i)
                bar.update(1)
        finally:
            cv2.setNumThreads(threads)
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers, initializer=_init_worker) as pool:
            for n in pool.imap_unordered(_work, indices, chunksize=max(1, min(16, count // (workers * 8)))):
                labels += n
                bar.update(1)
    bar.close()
    seconds = time.perf_counter() - began
    (out / "data.yaml").write_text(data_yaml(out), encoding="utf-8")
    options_dict = asdict(options)
    (out / "synth.json").write_text(json.dumps({
        "seed": seed, "start": start, "count": count, "styles": [s.name for s in styles],
        "options": options_dict, "classes": list(CLASS_NAMES)}, indent=1) + "\n", encoding="utf-8")
    return {"photos": count, "labels": labels, "seconds": round(seconds, 3),
            "photos_per_second": round(count / seconds, 2) if seconds > 0 else None}


class _Quiet:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled:
        return _Quiet()
    try:
        from tqdm import tqdm
    except ImportError:  # a plain counter on stderr
        return _Counter(total)
    return tqdm(total=total, unit="photo", file=sys.stderr, smoothing=0.1)


class _Counter:
    def __init__(self, total: int):
        self.total, self.done = total, 0

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.done == self.total or self.done % 50 == 0:
            sys.stderr.write(f"\r{self.done}/{self.total} photos")
            sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")


# --------------------------------------------------------------------------------------------------
# Contact sheet

_GROUP_COLOURS = {"concealed": (60, 200, 60), "winning": (0, 215, 255), "meld": (255, 140, 40),
                  "flower": (200, 60, 220), "other": (160, 160, 160)}


def draw_labels(image: np.ndarray, sidecar: dict[str, Any]) -> np.ndarray:
    """The photo with each labelled tile's box, class, and marks for sideways (S) and face-down (D)
    tiles, coloured by group (concealed green, winning yellow, melds blue, flowers magenta, other grey);
    tiles left unlabelled (mostly hidden) dashed red."""
    out = image.copy()
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 640))
    scale = max(0.35, max(h, w) / 1600)
    for t in sidecar["tiles"]:
        if t["box"] is None:
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in t["box"])
        colour = _GROUP_COLOURS.get(t["group"].get("kind"), (255, 255, 255)) if t["labelled"] else (0, 0, 255)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick if t["labelled"] else 1)
        text = t["class"] + ("S" if t["sideways"] else "") + ("D" if t["face_down"] else "")
        if t["group"].get("kind") == "meld":
            text += f"#{t['group']['meld']}"
        cv2.putText(out, text, (x1, max(10, y1 - 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick + 1,
                    cv2.LINE_AA)
        cv2.putText(out, text, (x1, max(10, y1 - 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    return out


def contact_sheet(out_dir: str | Path, sheet: str | Path, n: int = 16, cell: int = 480, columns: int = 4) -> int:
    """A sheet of the first ``n`` photos of a rendered set with their labels drawn; answers the count."""
    out_dir = Path(out_dir)
    names = sorted(p.stem for p in (out_dir / "sidecars").glob("*.json"))[:n]
    cells = []
    for name in names:
        image = cv2.imread(str(out_dir / "images" / f"{name}.jpg"))
        sidecar = json.loads((out_dir / "sidecars" / f"{name}.json").read_text(encoding="utf-8"))
        drawn = draw_labels(image, sidecar)
        h, w = drawn.shape[:2]
        s = cell / max(h, w)
        small = cv2.resize(drawn, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        tile = np.full((cell, cell, 3), 30, np.uint8)
        tile[:small.shape[0], :small.shape[1]] = small
        cv2.putText(tile, f"{name} {sidecar['scene']['kind']}", (4, cell - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (255, 255, 255), 1, cv2.LINE_AA)
        cells.append(tile)
    if not cells:
        return 0
    while len(cells) % columns:
        cells.append(np.full((cell, cell, 3), 30, np.uint8))
    rows = [np.hstack(cells[i:i + columns]) for i in range(0, len(cells), columns)]
    Path(sheet).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(sheet), np.vstack(rows))
    return len(names)
