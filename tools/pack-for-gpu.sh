#!/usr/bin/env bash
# Packs what a training recipe needs on the lent GPU machine into .gpu/ (git-ignored): the tile-art bundle and any
# art bundles painted here (the GPU machine has no CJK fonts to paint with), the real training photos re-encoded as
# WebP (the JPEGs, 70 MB, do not fit in the 64 MiB that travels with a call) and their labels. A localiser recipe
# also needs the ultralytics wheels in .whl/ (models/README.md); a classifier recipe does not.
# Usage: tools/pack-for-gpu.sh [QUALITY [EVERY [ART_DIR...]]]
#   QUALITY  WebP quality, default 75
#   EVERY    keep every EVERY-th real photo by name, default 1 (3: one of Roboflow's three copies of each photo);
#            or K/N, K of every N (2/3: two of the three copies, when all 1,350 and the art do not fit)
#   ART_DIR  painted bundles to carry beside art/ (e.g. art-random-g1-600: mjscan synth prepare-art --random ...)
# MJSCAN_REAL_TRAIN names another folder of labelled photos (images/, labels/) to carry in place of the real training
# set, e.g. data/real-unrotated (configs/localizer-round9-cpu.yaml says how to make it); it is unpacked where the
# real training photos would be.
set -euo pipefail
quality=${1:-75}
every=${2:-1}
shift $(( $# < 2 ? $# : 2 ))
case $every in
  */*) keep=${every%/*} of=${every#*/} ;;
  *) keep=1 of=$every ;;
esac
case "$keep:$of" in *[!0-9:]*|:*|*:|0:*|*:0) echo "EVERY must be a whole number from 1 or K/N (K of every N), not '$every'" >&2; exit 2 ;; esac
[ "$keep" -le "$of" ] || { echo "EVERY K/N keeps K of every N photos: K cannot pass N ('$every')" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
real=${MJSCAN_REAL_TRAIN:-$root/../shared/data/real-photos/train}
out="$root/.gpu"
for dir in "$@"; do [ -f "$root/$dir/manifest.json" ] || { echo "no art bundle '$dir'" >&2; exit 2; }; done
[ -d "$real/images" ] || { echo "no photos in '$real/images'" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out/real/images"
tar -C "$root" -cf "$out/art.tar" art "$@"
mkdir -p "$out/real/labels"
python3 - "$real/images" "$out/real/images" "$quality" "$keep" "$of" <<'PY'
import sys
from pathlib import Path
from PIL import Image, ImageOps
source, target, quality, keep, of = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
for i, path in enumerate(sorted(source.iterdir())):
    if i % of >= keep:
        continue
    with Image.open(path) as image:
        ImageOps.exif_transpose(image).convert("RGB").save(target / (path.stem + ".webp"), quality=quality, method=4)
    label = source.parent / "labels" / (path.stem + ".txt")
    if label.is_file():
        (target.parent / "labels" / label.name).write_bytes(label.read_bytes())
PY
tar -C "$out" -czf "$out/real.tar.gz" real && rm -rf "$out/real"
du -sh "$out"/*
# a call carries the tracked files too (models/ among them): say when the whole would pass the 64 MiB limit
# (the weights moved out of the tree for the calls are missing: du counts the rest, and must not stop the script)
tracked=$(cd "$root" && { git ls-files -z | xargs -0 du -cb 2>/dev/null || true; } | tail -n 1 | cut -f1)
packed=$(cd "$root" && { du -cb .gpu .whl 2>/dev/null || true; } | tail -n 1 | cut -f1)  # .whl: a localiser round's only
total=$((tracked + packed))
echo "a call would carry about $((total / 1048576)) MiB (the limit is 64)"
[ "$total" -lt $((64 * 1048576)) ] || echo "too much: move the shipped weights the run does not need out of the tree for the calls (a localiser round needs none of models/ but its start; a classifier round needs classifier.pt, and detector.onnx with classifier.onnx to mine false boxes; a bonus-reader round, classifier.onnx for its hard others and its start, classifier.pt or a carried reader.pt), or pass a lower QUALITY or a larger EVERY"
