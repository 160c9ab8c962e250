#!/usr/bin/env bash
# A localiser, classifier or bonus-reader round on the lent GPU machine (the `device` tool), in calls of at most 10 minutes each:
#   tools/train-on-gpu.sh RECIPE start SECONDS   install the carried wheels, unpack .gpu/ (tools/pack-for-gpu.sh),
#                                                paint and render the recipe's sets on every core, start
#                                                `mjscan train` in the background, then watch it for SECONDS
#   tools/train-on-gpu.sh RECIPE watch SECONDS   watch a started run for SECONDS more (or until it ends)
# Each call leaves the latest checkpoint, results.csv, the exported ONNX (once done) and the log in $OUT.
# The machine keeps its files only while warm (30 s after a call), so call `watch` at once after `start`.
set -euo pipefail
usage="usage: tools/train-on-gpu.sh RECIPE start|watch SECONDS"
state=${MJSCAN_GPU_STATE:-/tmp}  # where the started run's pid and log stay between calls
[ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
recipe=$1 phase=$2 seconds=$3
[ -f "$recipe" ] || { echo "no recipe '$recipe'" >&2; exit 2; }
case $phase in start|watch) ;; *) echo "$usage (not '$phase')" >&2; exit 2 ;; esac
case $seconds in ''|*[!0-9]*) echo "$usage (SECONDS: a whole number, not '$seconds')" >&2; exit 2 ;; esac
if [ "$phase" = watch ] && [ ! -f "$state/train.pid" ]; then
  echo "no run was started on this machine: it went back between calls (30 s idle); call 'start' again" >&2
  exit 2
fi
out=${OUT:-/tmp/out}
mkdir -p "$out"
started=$(date +%s)
if compgen -G ".whl/*.whl" >/dev/null; then  # ultralytics, for a localiser recipe
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1

if [ "$phase" = start ]; then
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  tar -xf .gpu/art.tar
  mkdir -p ../shared/data/real-photos/train && tar -xzf .gpu/real.tar.gz -C ../shared/data/real-photos/train --strip-components=1
  echo "real photos: $(ls ../shared/data/real-photos/train/images | wc -l)"
  python3 - "$recipe" <<'PY'
import sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from vision.training import load_config, prepare_random_art, render_synthetic
config, root, start = load_config(sys.argv[1]), Path.cwd(), time.time()
specs = config["data"]["synthetic"]
with ThreadPoolExecutor(4) as pool:  # painting is one process a style set: paint beside the plain renders
    painting = [pool.submit(prepare_random_art, root, s["art"]) for s in specs if s.get("art")]
    for spec in specs:
        if not spec.get("art"):
            render_synthetic(root, spec); print(f"{spec['out']}: {time.time() - start:.0f} s", flush=True)
    [job.result() for job in painting]
for spec in specs:
    if spec.get("art"):
        render_synthetic(root, spec); print(f"{spec['out']}: {time.time() - start:.0f} s", flush=True)
PY
  setsid nohup python3 -m mjscan train --config "$recipe" >"$state/train.log" 2>&1 < /dev/null &
  echo $! >"$state/train.pid"
fi

# the run folder and the ONNX path, with vision.training's defaults
{ read -r run; read -r onnx; } < <(python3 -c "import sys,yaml; c=yaml.safe_load(open(sys.argv[1])); r=c.get('run',{})
print(r.get('project','runs/detector')+'/'+r.get('name','train')); print(c.get('export',{}).get('onnx','models/detector.onnx'))" "$recipe")
while [ $(( $(date +%s) - started )) -lt "$seconds" ] && kill -0 "$(cat "$state/train.pid")" 2>/dev/null; do
  sleep 20
  tail -c 400 "$state/train.log" | tr '\r' '\n' | grep -av '^\s*$' | tail -n 1 || true
done
if kill -0 "$(cat "$state/train.pid")" 2>/dev/null; then echo "still training"; else echo "training process ended"; fi
cp "$state/train.log" "$out/train.log"
for f in "$run/weights/last.pt" "$run/weights/best.pt" "$run/results.csv" "$run/classifier.pt" "$run/reader.pt" "$run/history.json"; do [ -f "$f" ] && cp "$f" "$out/" || true; done
[ -f "$onnx" ] && [ "$onnx" -nt "$recipe" ] && ! kill -0 "$(cat "$state/train.pid")" 2>/dev/null && cp "$onnx" "$out/" || true
tail -n 30 "$state/train.log" | tr '\r' '\n' | tail -n 30
