#!/usr/bin/env bash
# Packs what a localiser recipe needs on the lent GPU machine into .gpu/ (git-ignored through .git/info/exclude):
# the tile-art bundle, the real training photos re-encoded as WebP (the JPEGs, 70 MB, do not fit in the 64 MiB
# that travels with a call) and their labels. Download the ultralytics wheels into .whl/ first (models/README.md).
# Usage: tools/pack-for-gpu.sh [QUALITY]   (WebP quality, default 75)
set -euo pipefail
quality=${1:-75}
root=$(cd "$(dirname "$0")/.." && pwd)
real="$root/../shared/data/real-photos/train"
out="$root/.gpu"
rm -rf "$out" && mkdir -p "$out/real/images"
tar -C "$root" -cf "$out/art.tar" art
cp -r "$real/labels" "$out/real/labels"
python3 - "$real/images" "$out/real/images" "$quality" <<'PY'
import sys
from pathlib import Path
from PIL import Image, ImageOps
source, target, quality = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
for path in sorted(source.iterdir()):
    with Image.open(path) as image:
        ImageOps.exif_transpose(image).convert("RGB").save(target / (path.stem + ".webp"), quality=quality, method=4)
PY
tar -C "$out" -czf "$out/real.tar.gz" real && rm -rf "$out/real"
du -sh "$out"/*
# a call carries the tracked files too (models/ among them): say when the whole would pass the 64 MiB limit
tracked=$(cd "$root" && git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -n 1 | cut -f1)
packed=$(cd "$root" && du -cb .gpu .whl 2>/dev/null | tail -n 1 | cut -f1)
total=$((tracked + packed))
echo "a call would carry about $((total / 1048576)) MiB (the limit is 64)"
[ "$total" -lt $((64 * 1048576)) ] || echo "too much: move the shipped weights the run does not need (models/*.onnx, classifier.pt, detector-cpu.pt) out of the tree for the calls, or pass a lower QUALITY"
