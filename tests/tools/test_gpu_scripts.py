"""tools/: the scripts that pack for and run a localiser round on the lent GPU machine. Their real work needs
that machine; here they must parse, and refuse bad calls with a usage line and exit status 2."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")


def run(*arguments: str, state: Path | None = None, **settings: str) -> subprocess.CompletedProcess:
    """The script's run; ``state`` is MJSCAN_GPU_STATE, ``settings`` any other environment variables."""
    if state:
        settings["MJSCAN_GPU_STATE"] = str(state)
    env = {**os.environ, **settings}
    return subprocess.run(["bash", *arguments], cwd=TOOLS.parent, capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("script", ["pack-for-gpu.sh", "train-on-gpu.sh"])
def test_the_scripts_parse(script):
    assert run("-n", str(TOOLS / script)).returncode == 0


def test_a_bad_call_gets_the_usage_and_status_2(tmp_path):
    script = str(TOOLS / "train-on-gpu.sh")
    assert run(script).returncode == 2 and "usage" in run(script).stderr
    missing = run(script, str(tmp_path / "none.yaml"), "start", "60")
    assert missing.returncode == 2 and "no recipe" in missing.stderr
    recipe = TOOLS.parent / "configs" / "detector.yaml"
    wrong = run(script, str(recipe), "begin", "60")
    assert wrong.returncode == 2 and "not 'begin'" in wrong.stderr
    count = run(script, str(recipe), "watch", "ten")
    assert count.returncode == 2 and "whole number" in count.stderr


def test_watching_where_nothing_was_started_says_what_happened(tmp_path):
    watched = run(str(TOOLS / "train-on-gpu.sh"), str(TOOLS.parent / "configs" / "detector.yaml"), "watch", "5",
                  state=tmp_path)
    assert watched.returncode == 2 and "call 'start' again" in watched.stderr


def test_packing_refuses_a_bad_stride_or_a_missing_art_bundle_before_touching_anything():
    script = str(TOOLS / "pack-for-gpu.sh")
    stride = run(script, "75", "zero")
    assert stride.returncode == 2 and "EVERY must be a whole number" in stride.stderr
    missing = run(script, "75", "3", "art-no-such-bundle")
    assert missing.returncode == 2 and "no art bundle 'art-no-such-bundle'" in missing.stderr


def test_packing_refuses_another_photo_folder_without_images_before_touching_anything(tmp_path):
    packed = run(str(TOOLS / "pack-for-gpu.sh"), "60", "1", MJSCAN_REAL_TRAIN=str(tmp_path))
    assert packed.returncode == 2 and f"no photos in '{tmp_path}/images'" in packed.stderr


def test_the_two_rounds_script_parses_and_refuses_bad_calls(tmp_path):
    script = str(TOOLS / "two-rounds-on-gpu.sh")
    assert run("-n", script).returncode == 0
    bare = run(script)
    assert bare.returncode == 2 and "usage" in bare.stderr
    first = str(TOOLS.parent / "configs" / "classifier-round23.yaml")
    missing = run(script, first, str(tmp_path / "none.yaml"))
    assert missing.returncode == 2 and "no recipe" in missing.stderr and "none.yaml" in missing.stderr
    deadline = run(script, first, first, "soon")
    assert deadline.returncode == 2 and "whole number of seconds" in deadline.stderr


def test_packing_for_a_round_without_wheels_says_what_a_call_would_carry(tmp_path):
    """A classifier round carries no ultralytics wheels (.whl/): the size check at the end once failed on the missing
    folder (exit 1, no size said) after the packing itself had worked."""
    from PIL import Image

    root = tmp_path / "checkout"
    (root / "tools").mkdir(parents=True)
    shutil.copy(TOOLS / "pack-for-gpu.sh", root / "tools")
    (root / "art").mkdir()
    (root / "art" / "manifest.json").write_text("{}")
    real = tmp_path / "real"
    (real / "images").mkdir(parents=True)
    (real / "labels").mkdir()
    Image.new("RGB", (64, 48), "green").save(real / "images" / "a.jpg")
    (real / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.3\n")
    packed = subprocess.run(["bash", str(root / "tools" / "pack-for-gpu.sh"), "60", "1"], cwd=root, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "MJSCAN_REAL_TRAIN": str(real)})
    assert packed.returncode == 0, packed.stderr
    assert "a call would carry about" in packed.stdout and "(the limit is 64)" in packed.stdout
    assert (root / ".gpu" / "art.tar").is_file() and (root / ".gpu" / "real.tar.gz").is_file()
    assert not (root / ".whl").exists()
