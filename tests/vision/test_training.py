"""mjscan train's preparation (no ultralytics needed): the recipe file and the joined data YAML."""

from __future__ import annotations

import json

import pytest

from vision.classes import CLASS_NAMES
from vision.training import TrainingError, load_config, render_synthetic, repo_root, write_data_yaml


def test_load_config_refusals(tmp_path):
    pytest.importorskip("yaml")
    with pytest.raises(TrainingError, match="Cannot read"):
        load_config(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: [unclosed\n")
    with pytest.raises(TrainingError, match="not valid YAML"):
        load_config(bad)
    thin = tmp_path / "thin.yaml"
    thin.write_text("imgsz: 320\n")
    with pytest.raises(TrainingError, match="'model' and 'data'"):
        load_config(thin)


def test_data_yaml_joins_the_sources(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    real = tmp_path / "real" / "images"
    real.mkdir(parents=True)
    synth = tmp_path / "data" / "synth"
    (synth / "images").mkdir(parents=True)
    (synth / "synth.json").write_text(json.dumps({"seed": 1, "count": 5}))
    config = {"model": "yolo11n.yaml",
              "data": {"synthetic": {"out": "data/synth", "count": 5, "seed": 1}, "real_train": "real/images",
                       "val": "real/images"}}
    assert repo_root(tmp_path / "configs") == tmp_path
    # already rendered with this seed and count: not rendered again
    assert render_synthetic(tmp_path, config["data"]["synthetic"]) == synth / "images"
    target = write_data_yaml(tmp_path, config)
    text = target.read_text()
    assert f"  - {synth / 'images'}" in text and f"  - {real.resolve()}" in text
    assert "nc: 43" in text and ", ".join(CLASS_NAMES) in text
    config["data"]["real_train"] = "missing/images"
    with pytest.raises(TrainingError, match="missing"):
        write_data_yaml(tmp_path, config)
