#!/usr/bin/env bash
# Two classifier (or bonus-reader) rounds in one call on the lent GPU machine (the `device` tool), as stop 38 ran
# rounds 23 and 23b: the first with tools/train-on-gpu.sh (renders, mines and cuts its sets, trains, exports), then
# the second on the same rendered sets, its epochs cut to what fits before DEADLINE seconds from the start (from the
# first round's measured epoch time). A machine's 15 minutes hold one such call and its start.
#   tools/two-rounds-on-gpu.sh FIRST_RECIPE SECOND_RECIPE [DEADLINE]   (DEADLINE: seconds, default 560)
# with .gpu carried (tools/pack-for-gpu.sh). The first round's files come back in $OUT, the second's in $OUT/b
# (weights, ONNX, history and log: 8 files, the most a call returns).
set -uo pipefail
usage="usage: tools/two-rounds-on-gpu.sh FIRST_RECIPE SECOND_RECIPE [DEADLINE]"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "$usage" >&2; exit 2; }
first=$1 second=$2 deadline_s=${3:-560}
for recipe in "$first" "$second"; do [ -f "$recipe" ] || { echo "no recipe '$recipe'" >&2; exit 2; }; done
case $deadline_s in ''|*[!0-9]*) echo "$usage (DEADLINE: a whole number of seconds, not '$deadline_s')" >&2; exit 2 ;; esac
out=${OUT:-/tmp/out}
t0=$(date +%s); deadline=$((t0 + deadline_s))
export MJSCAN_GPU_STATE=${MJSCAN_GPU_STATE:-/tmp}
bash "$(dirname "$0")/train-on-gpu.sh" "$first" start $((deadline_s - 80)) || exit
echo "first round: $(( $(date +%s) - t0 )) s"
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
left=$(( deadline - $(date +%s) ))
# the first round's epoch time (from its log) and the second round's epochs that fit (vision.training.epochs_that_fit)
read -r per epochs < <(python3 - "$MJSCAN_GPU_STATE/train.log" "$left" "$second" <<'PY'
import sys, yaml
from pathlib import Path
from vision.training import epoch_seconds, epochs_that_fit
per = epoch_seconds(Path(sys.argv[1]).read_text(errors="replace"))
print(per or 0, epochs_that_fit(int(sys.argv[2]), per, int(yaml.safe_load(open(sys.argv[3])).get("epochs", 12))))
PY
)
per=${per:-0} epochs=${epochs:-0}  # the log unreadable: no second round
echo "an epoch took ${per} s; ${left} s left: the second round trains ${epochs} epochs"
if [ "$epochs" -lt 4 ]; then
  echo "too little time left for the second round (fewer than 4 epochs): not started"
  exit 0
fi
mkdir -p "$out/b"
touch "$MJSCAN_GPU_STATE/second.started"
# `mjscan train` prints the exported ONNX file's path; the weights and history it wrote are the files newer than the start
timeout $(( left - 3 )) python3 -m mjscan train --config "$second" --epochs "$epochs" \
  > "$MJSCAN_GPU_STATE/second.out" 2> "$out/b/train.log"
echo "second round ended: exit status $?, $(( $(date +%s) - t0 )) s from the start"
onnx=$(tail -n 1 "$MJSCAN_GPU_STATE/second.out")
[ -f "$onnx" ] && cp "$onnx" "$out/b/"
find runs -type f \( -name classifier.pt -o -name reader.pt -o -name history.json \) -newer "$MJSCAN_GPU_STATE/second.started" \
  -exec cp {} "$out/b/" \;
tail -n 6 "$out/b/train.log"
