"""Speed of the synthetic photo renderer: photos per second at 640, 1280 and 4000 px, 1 and 2 workers.

    python bench/synth.py [--art DIR | --procedural-art] [--photos 60] [--sizes 640 1280 4000]
                          [--workers 1 2] [--seed 1] [--keep DIR] [--clutter SHARE]

Each configuration renders the same photos (seed, indices 0..N-1, fewer at 4000 px) through
``datasets.render.render_set``, the path ``mjscan synth`` takes: render, JPEG-encode, write the image,
its YOLO labels and its sidecar. Time is wall-clock from the first photo to the last, so process start-up
of the workers is included (it is small next to a real run). The faces come from the art bundle (default
./art, else the repository's art/) or, with --procedural-art or when there is none, from faces drawn in
code: those are smaller (96 x 72 against 160 x 120), so the real bundle is a little slower.
The machine may be shared: run it twice and trust figures that agree. ``--clutter SHARE`` renders each
configuration twice, without clutter and with it (``mjscan synth --clutter``), one after the other, and prints
the ratio of their times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from datasets.render import RenderOptions, procedural_bundle, render_set, select_styles  # noqa: E402


def load_styles(art: str | None, procedural: bool):
    if not procedural:
        path = art or next((p for p in ("art", str(REPO / "art")) if (Path(p) / "manifest.json").is_file()), None)
        if path is not None:
            from datasets.art.bundle import load_bundle

            return select_styles(load_bundle(path)), f"art bundle {path}"
        print("no art bundle found (mjscan synth prepare-art --out art): using procedural faces", file=sys.stderr)
    return select_styles(procedural_bundle()), "procedural faces (96 x 72)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--art", help="the art bundle folder")
    parser.add_argument("--procedural-art", action="store_true", help="use faces drawn in code")
    parser.add_argument("--photos", type=int, default=60, help="photos per configuration (a quarter at 4000 px)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[640, 1280, 4000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="keep the rendered photos under this folder")
    parser.add_argument("--clutter", type=float, default=0.0, metavar="SHARE",
                        help="also render each configuration with this share of photos cluttered, and compare")
    args = parser.parse_args(argv)
    if not 0.0 <= args.clutter <= 1.0:
        parser.error(f"--clutter is a share from 0 to 1, not {args.clutter:g}")

    styles, source = load_styles(args.art, args.procedural_art)
    print(f"renderer speed: {source}; {os.cpu_count()} cores; seed {args.seed}")
    print(f"{'size':>6} {'workers':>7} {'clutter':>7} {'photos':>6} {'seconds':>8} {'photos/s':>9} "
          f"{'ms/photo/worker':>16} {'time ratio':>10}")
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mjscan-bench-synth-"))
    try:
        # warm up: caches of face textures are per process, and forked workers inherit them
        render_set(root / "warm", 4, args.seed + 1, styles, RenderOptions(size=640), workers=1, progress=False)
        for size in args.sizes:
            n = args.photos if size <= 2000 else max(4, args.photos // 4)
            for workers in args.workers:
                base = None
                for share in ([0.0, args.clutter] if args.clutter else [0.0]):
                    out = root / f"{size}-{workers}-{share:g}"
                    result = render_set(out, n, args.seed, styles, RenderOptions(size=size, clutter=share),
                                        workers=workers, progress=False)
                    per = result["seconds"] / n * workers * 1000
                    base = result["seconds"] if base is None else base
                    print(f"{size:>6} {workers:>7} {share:>7g} {n:>6} {result['seconds']:>8.2f} "
                          f"{result['photos_per_second']:>9.2f} {per:>16.0f} {result['seconds'] / base:>10.2f}",
                          flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
