"""tools/judge-classifier.sh: a classifier round judged as the model card judges every round (held-out hands with
the detector in the loop, real val photos), here on a few photos with the shipped classifier."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "judge-classifier.sh"
CLASSIFIER = ROOT / "models" / "classifier.onnx"
REAL = ROOT / "tests" / "data" / "real-photos"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")


def judge(*arguments: str, cwd: Path = ROOT, **settings: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **settings}
    return subprocess.run(["bash", str(SCRIPT), *arguments], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=env)


def test_bad_calls_get_the_usage_and_status_2(tmp_path):
    assert judge().returncode == 2 and "usage" in judge().stderr
    missing = judge(str(tmp_path / "none.onnx"), str(tmp_path / "out"))
    assert missing.returncode == 2 and "no classifier" in missing.stderr
    weights = tmp_path / "classifier.pt"
    weights.write_bytes(b"not onnx")
    assert "exported .onnx" in judge(str(weights), str(tmp_path / "out")).stderr
    seed = judge(str(CLASSIFIER), str(tmp_path / "out"), "ten")
    assert seed.returncode == 2 and "whole number, not 'ten'" in seed.stderr
    limit = judge(str(CLASSIFIER), str(tmp_path / "out"), "10", LIMIT="a few", REAL=str(REAL))
    assert limit.returncode == 2 and "LIMIT" in limit.stderr
    real = judge(str(CLASSIFIER), str(tmp_path / "out"), "10", REAL=str(tmp_path))
    assert real.returncode == 2 and "no real photos" in real.stderr
    baseline = judge(str(CLASSIFIER), str(tmp_path / "out"), "10", REAL=str(REAL), BASELINE=str(tmp_path / "gone"))
    assert baseline.returncode == 2 and "no baseline" in baseline.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was written


@pytest.mark.skipif(not CLASSIFIER.is_file(), reason="no shipped classifier")
def test_a_round_is_judged_on_hands_and_real_photos(tmp_path):
    from datasets.render import RenderOptions, procedural_bundle, render_set, select_styles

    sets = tmp_path / "sets"
    styles = select_styles(procedural_bundle(face_size=(64, 48)), None, False)
    render_set(sets / "group-seed5", 2, 5, styles, RenderOptions(size=900, kinds=("guide",)), workers=1,
               progress=False)
    out = tmp_path / "judged"
    # paths relative to the caller's folder, as a user types them
    run = judge(os.path.relpath(CLASSIFIER, tmp_path), "judged", "5", cwd=tmp_path, LIMIT="2", REAL=str(REAL),
                SETS="sets")
    assert run.returncode == 0, run.stderr
    assert (out / "model" / "classifier.onnx").resolve() == CLASSIFIER.resolve()
    assert (out / "model" / "detector.onnx").resolve() == (ROOT / "models" / "detector.onnx").resolve()
    hands = json.loads((out / "group-5.json").read_text())["detector"]
    assert hands["photos"] == 2 and sum(hands["outcomes"].values()) == 2
    assert json.loads((out / "cache-5.json").read_text())["photos"]  # the detector's answers kept
    real = json.loads((out / "realval.json").read_text())
    assert real["images"] == 2 and 0.5 < real["mAP50"] <= 1
    assert f"all: {hands['exact']} of 2 exact, {hands['outcomes']['wrong']} wrong without a question" in run.stdout
    assert f"the questions offer the true hand: {hands['asked_answerable']}" in run.stdout
    assert f"mAP50 {real['mAP50']:.4f}" in run.stdout

    again = judge(str(CLASSIFIER), str(out), "5", LIMIT="2", REAL=str(REAL), SETS=str(sets), BASELINE=str(out))
    assert again.returncode == 0, again.stderr
    assert again.stdout.count(f"all: {hands['exact']} of 2 exact") == 2  # judged and baseline, from the cache
    assert "baseline (" in again.stdout
