#!/usr/bin/env bash
# Judge a classifier round as every round since stop 13 is judged (models/README.md): the round's classifier.onnx
# among links to the shipped localiser and readers, then
#   - the held-out style's meld scenes read into hands with the detector in the loop (`mjscan eval-grouping
#     data/group-seedS --detector`), seeds 10 12 17 18 19 20 21 22 unless others are named (each set of 200 photos is
#     rendered first where it is missing: `mjscan synth --count 200 --seed S --held-out --kinds guide --size 1280`);
#   - the real val photos (`mjscan eval-detector`).
# Two workers share the seeds (the two cores); about 25 minutes for eight seeds and real val here. The detector's
# answers are cached in OUT_DIR (`--cache`), so a grouping change is judged again in seconds.
#   tools/judge-classifier.sh CLASSIFIER.onnx OUT_DIR [SEED ...]
# Settings: REAL (the real photos, default ../shared/data/real-photos/val), SETS (where the held-out sets are, default
# data), LIMIT (only the first N photos of each set), BASELINE (an OUT_DIR of an earlier judging, printed beside: the shipped classifier's, for the rule "nothing
# lost on real val, then the best on unseen styles").
set -uo pipefail
usage="usage: tools/judge-classifier.sh CLASSIFIER.onnx OUT_DIR [SEED ...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
classifier=$1 out=$2; shift 2
seeds=("$@"); [ ${#seeds[@]} -gt 0 ] || seeds=(10 12 17 18 19 20 21 22)
[ -f "$classifier" ] || { echo "no classifier '$classifier'" >&2; exit 2; }
case $classifier in *.onnx) ;; *) echo "$usage (the classifier is its exported .onnx, not '$classifier')" >&2; exit 2 ;; esac
for seed in "${seeds[@]}"; do
  case $seed in ''|*[!0-9]*) echo "$usage (a seed is a whole number, not '$seed')" >&2; exit 2 ;; esac
done
limit=${LIMIT:-}
case $limit in *[!0-9]*) echo "LIMIT is a whole number of photos, not '$limit'" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
real=${REAL:-$root/../shared/data/real-photos/val}
[ -d "$real/images" ] || { echo "no real photos at '$real' (set REAL to a folder with images/ and labels/)" >&2; exit 2; }
baseline=${BASELINE:-}
if [ -n "$baseline" ] && [ ! -d "$baseline" ]; then echo "no baseline folder '$baseline'" >&2; exit 2; fi
# the caller's paths, made absolute before the work moves to the repository's root (where models/ is)
classifier=$(realpath "$classifier") out=$(realpath -m "$out") real=$(realpath "$real")
sets=$(realpath -m "${SETS:-$root/data}")
[ -z "$baseline" ] || baseline=$(realpath "$baseline")
cd "$root" || exit
python=${PYTHON:-python3}
mkdir -p "$out/model" || exit
for model in detector.onnx axis.onnx bonus.onnx; do ln -sf "$(realpath models/$model)" "$out/model/$model"; done
ln -sf "$classifier" "$out/model/classifier.onnx"
limited=(); [ -n "$limit" ] && limited=(--limit "$limit")

judge_seeds() {  # the held-out hands of the seeds given, one after another
  for seed in "$@"; do
    set_dir=$sets/group-seed$seed
    if [ ! -f "$set_dir/synth.json" ]; then
      "$python" -m mjscan synth --count 200 --seed "$seed" --held-out --kinds guide --size 1280 --out "$set_dir" \
        --quiet || return
    fi
    "$python" -m mjscan eval-grouping "$set_dir" --detector --model "$out/model/detector.onnx" \
      --cache "$out/cache-$seed.json" --json "${limited[@]}" > "$out/group-$seed.json" 2> "$out/group-$seed.log" || return
  done
}
first=() second=()
for i in "${!seeds[@]}"; do if (( i % 2 )); then second+=("${seeds[$i]}"); else first+=("${seeds[$i]}"); fi; done
judge_seeds "${first[@]}" & one=$!
status=0
if [ ${#second[@]} -gt 0 ]; then judge_seeds "${second[@]}" || status=1; fi
wait "$one" || status=1
[ $status -eq 0 ] || { echo "the grouping's judging failed: see $out/group-*.log" >&2; exit 1; }
"$python" -m mjscan eval-detector "$real" --model "$out/model/detector.onnx" --out "$out/realval" --json \
  "${limited[@]}" > "$out/realval.json" 2> "$out/realval.log" || { echo "eval-detector failed: see $out/realval.log" >&2; exit 1; }

"$python" - "$out" "$baseline" "${seeds[@]}" <<'PY'
import json, sys
from pathlib import Path
out, baseline, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]

def figures(folder):
    hands = {}
    for seed in seeds:
        report = Path(folder, f"group-{seed}.json")
        if report.exists():
            found = json.loads(report.read_text())["detector"]
            # asked hands whose questions offer the true hand: counted since stop 53 (None in older reports)
            hands[seed] = (found["exact"], found["outcomes"].get("wrong", 0), found["photos"],
                           found.get("asked_answerable"))
    real = Path(folder, "realval.json")
    return hands, json.loads(real.read_text()) if real.exists() else None

rows = [("judged", out)] + ([("baseline", baseline)] if baseline else [])
for name, folder in rows:
    hands, real = figures(folder)
    exact = sum(h[0] for h in hands.values()); wrong = sum(h[1] for h in hands.values())
    photos = sum(h[2] for h in hands.values())
    print(f"{name} ({folder}):")
    print("  held-out hands exact (wrong without a question), by seed: "
          + ", ".join(f"{seed} {h[0]} ({h[1]})" for seed, h in hands.items()))
    print(f"  all: {exact} of {photos} exact, {wrong} wrong without a question")
    if hands and all(h[3] is not None for h in hands.values()):
        print(f"  asked, and the questions offer the true hand: {sum(h[3] for h in hands.values())}")
    if real:
        print(f"  real val: mAP50 {real['mAP50']:.4f}, mAP50-95 {real['mAP50-95']:.4f}, photos exact "
              f"{100 * real['exact_photos']:.1f} %, missed {real['missed']}, extra {real['extra']}")
PY
