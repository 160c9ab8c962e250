"""mjscan train: the recipe file, the joined data YAML, and one-epoch runs of both recipes on the CPU
(the localiser's needs ultralytics, the 'train' extra; the classifier's needs torch)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.classes import CLASS_NAMES
from vision.training import TrainingError, load_config, render_synthetic, repo_root, write_data_yaml


def test_load_config_refusals(tmp_path):
    pytest.importorskip("yaml")
    with pytest.raises(TrainingError, match="Cannot read"):
        load_config(tmp_path / "none.yaml")
    # the last two ran into a traceback until stop 55 (an unknown task trained a localiser; 'data' as a string)
    for text, said in (("model: [unclosed\n", "not valid YAML"), ("imgsz: 320\n", "'model' and 'data'"),
                       ("task: nope\nmodel: x\ndata: {}\n", "names the task 'nope'"),
                       ("model: yolo11n.yaml\ndata: y\n", "'data' as 'y'")):
        recipe = tmp_path / "recipe.yaml"
        recipe.write_text(text)
        with pytest.raises(TrainingError, match=said):
            load_config(recipe)


def test_a_rendered_set_that_is_no_mapping_is_refused():
    from vision.training import synthetic_specs

    assert synthetic_specs({"synthetic": {"out": "data/s", "count": 5}}) == [{"out": "data/s", "count": 5}]
    with pytest.raises(TrainingError, match="data.synthetic names a rendered set as a mapping"):
        synthetic_specs({"synthetic": 5})


def test_every_shipped_recipe_loads():
    pytest.importorskip("yaml")
    recipes = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))
    assert len(recipes) >= 10
    for recipe in recipes:
        assert isinstance(load_config(recipe), dict), recipe


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
    # several rendered sets, each listed
    guide = tmp_path / "data" / "guide"
    (guide / "images").mkdir(parents=True)
    (guide / "synth.json").write_text(json.dumps({"seed": 3, "count": 2}))
    config["data"]["synthetic"] = [config["data"]["synthetic"], {"out": "data/guide", "count": 2, "seed": 3}]
    text = write_data_yaml(tmp_path, config).read_text()
    assert f"  - {synth / 'images'}" in text and f"  - {guide / 'images'}" in text
    # the real photos can count several times an epoch
    config["data"]["real_train_repeat"] = 3
    assert write_data_yaml(tmp_path, config).read_text().count(f"  - {real.resolve()}") == 3
    config["data"]["real_train_repeat"] = 0
    with pytest.raises(TrainingError, match="real_train_repeat"):
        write_data_yaml(tmp_path, config)
    config["data"]["real_train"] = "missing/images"
    with pytest.raises(TrainingError, match="missing"):
        write_data_yaml(tmp_path, config)


def test_checkpoints_read_the_results_back_without_polars(tmp_path, monkeypatch):
    """The lent GPU machine has no polars, which ultralytics uses only to put results.csv into each checkpoint."""
    pytest.importorskip("ultralytics")
    import sys
    from types import SimpleNamespace

    from ultralytics.engine.trainer import BaseTrainer

    from vision.training import _read_results_without_polars

    monkeypatch.setattr(BaseTrainer, "read_results_csv", BaseTrainer.read_results_csv)
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars now fails
    _read_results_without_polars()
    results = tmp_path / "results.csv"
    results.write_text("epoch, time,metrics/mAP50(B)\n1,10.5,0.5\n2,21.0,0.75\n")
    assert BaseTrainer.read_results_csv(SimpleNamespace(csv=results)) == {
        "epoch": [1.0, 2.0], "time": [10.5, 21.0], "metrics/mAP50(B)": [0.5, 0.75]}
    assert BaseTrainer.read_results_csv(SimpleNamespace(csv=tmp_path / "none.csv")) == {}


def test_a_set_with_clutter_is_rendered_with_it_and_again_when_the_share_changes(tmp_path, monkeypatch):
    """``data.synthetic[].clutter``: handed to ``mjscan synth --clutter``; a set rendered with another share (or
    none, as every set before stop 43) is rendered again rather than taken as it is."""
    import subprocess

    calls = []

    def run(command, **kwargs):
        calls.append(command)
        out = Path(command[command.index("--out") + 1])
        share = float(command[command.index("--clutter") + 1]) if "--clutter" in command else 0.0
        out.mkdir(parents=True, exist_ok=True)
        (out / "synth.json").write_text(json.dumps({"seed": 5, "count": 3, "options": {"clutter": share}}))

    monkeypatch.setattr(subprocess, "run", run)
    spec = {"out": "data/cluttered", "count": 3, "seed": 5, "clutter": 0.5}
    assert render_synthetic(tmp_path, spec) == tmp_path / "data" / "cluttered" / "images"
    assert calls[0][calls[0].index("--clutter") + 1] == "0.5"
    render_synthetic(tmp_path, spec)  # made with that share: kept
    assert len(calls) == 1
    render_synthetic(tmp_path, {**spec, "clutter": 1.0})
    assert len(calls) == 2 and calls[1][calls[1].index("--clutter") + 1] == "1.0"
    render_synthetic(tmp_path, {"out": "data/cluttered", "count": 3, "seed": 5})  # none asked: rendered without
    assert len(calls) == 3 and "--clutter" not in calls[2]
    render_synthetic(tmp_path, {"out": "data/cluttered", "count": 3, "seed": 5})
    assert len(calls) == 3


def test_a_set_in_random_art_styles_paints_its_bundle_once_and_renders_with_it(tmp_path, monkeypatch):
    """``data.synthetic[].art: {out, random, seed}``: the recipe's own bundle of random painted styles is built
    (unless it is there already) and handed to ``mjscan synth --art``."""
    import subprocess

    from datasets.art.bundle import CODES, StyleToWrite, write_bundle

    calls = []

    def run(command, **kwargs):
        calls.append(command)
        if "datasets.art.prepare" in command:  # paint a stand-in bundle with the styles asked for
            out, first, count, generation = (command[command.index(flag) + 1] for flag in
                                             ("--out", "--random-seed", "--random", "--random-generation"))
            prefix = "painted-random-" if generation == "1" else f"painted-random-g{generation}-"
            faces = {code: np.full((16, 12, 4), k, np.uint8) for k, code in enumerate(CODES)}
            styles = [StyleToWrite(name, "procedural:0", "test", faces) for name in
                      ["gnome-smooth"] + [f"{prefix}{k}" for k in range(int(first), int(first) + int(count))]]
            write_bundle(Path(out), styles, held_out="gnome-smooth", face_size=(12, 16))

    monkeypatch.setattr(subprocess, "run", run)
    spec = {"out": "data/random", "count": 4, "seed": 12, "art": {"out": "art-random", "random": 2, "seed": 100}}
    assert render_synthetic(tmp_path, spec) == tmp_path / "data" / "random" / "images"
    painted, rendered = calls
    assert painted[painted.index("--random"):] == ["--random", "2", "--random-seed", "100", "--random-generation", "1"]
    assert rendered[rendered.index("--art") + 1] == str(tmp_path / "art-random")
    calls.clear()
    render_synthetic(tmp_path, spec)  # the bundle holds those styles: only the photos are rendered again
    assert len(calls) == 1 and "--art" in calls[0]
    render_synthetic(tmp_path, {**spec, "art": {"out": "art-random", "random": 3, "seed": 100}})
    assert len(calls) == 3 and "datasets.art.prepare" in calls[1]  # another style count: painted again
    calls.clear()
    second = {**spec, "art": {"out": "art-random", "random": 3, "seed": 100, "generation": 2}}
    render_synthetic(tmp_path, second)  # the same seeds of the second generation are other styles: painted again
    assert len(calls) == 2 and calls[0][-2:] == ["--random-generation", "2"]
    calls.clear()
    render_synthetic(tmp_path, second)
    assert len(calls) == 1


def test_data_yaml_lists_the_stretched_set_made_once(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    source = tmp_path / "real"
    (source / "images").mkdir(parents=True)
    (source / "labels").mkdir()
    image = np.full((200, 300, 3), 90, dtype=np.uint8)
    image[60:116, 100:140] = 240
    Image.fromarray(image).save(source / "images" / "p.jpg")
    (source / "labels" / "p.txt").write_text("3 0.400000 0.440000 0.133333 0.280000\n")
    spec = {"source": "real", "out": "data/stretched", "count": 3, "seed": 5}
    config = {"model": "yolo11n.yaml", "data": {"stretched": spec, "real_train": "real/images"}}
    text = write_data_yaml(tmp_path, config).read_text()
    made = tmp_path / "data" / "stretched"
    assert f"  - {made / 'images'}" in text and len(list((made / "images").iterdir())) == 3
    # made with this source, seed and count already: left as it is
    stamp = (made / "images").stat().st_mtime_ns
    write_data_yaml(tmp_path, config)
    assert (made / "images").stat().st_mtime_ns == stamp
    config["data"]["stretched"] = {**spec, "source": "missing", "seed": 6}
    with pytest.raises(TrainingError, match="missing"):
        write_data_yaml(tmp_path, config)


def _write_recipe(path, text):
    path.write_text(text)
    return path


def test_the_classifier_recipe_trains_one_epoch_and_exports(tmp_path, capfd):
    """`mjscan train --config <classifier recipe> --epochs 1` on a few labelled photos, on the CPU."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from tests.vision.test_classifier import _labelled_folder
    from vision.classifier import TileClassifier
    from vision.training import train

    (tmp_path / "pyproject.toml").write_text("")
    _labelled_folder(tmp_path / "photos", count=4)
    (tmp_path / "configs").mkdir()
    recipe = _write_recipe(tmp_path / "configs" / "classifier.yaml", """
task: classifier
seed: 0
epochs: 3
batch: 16
lr0: 0.01
threads: 1
network: {width: 8}
crops: {copies: 2, jitter: 0.05, none_per_image: 1, seed: 1}
data: {real_train: photos/images, val: photos/images, stretched: {source: photos, out: data/stretched, count: 3, seed: 5}}
run: {project: runs/classifier, name: test}
export: {onnx: models/classifier.onnx}
""")
    target = train(recipe, epochs=1)
    assert target == tmp_path / "models" / "classifier.onnx"
    # the stretched photos were made from the labelled ones and cut as a second source
    assert len(list((tmp_path / "data" / "stretched" / "images").iterdir())) == 3
    assert "crops, 2 sources" in capfd.readouterr().err
    history = json.loads((tmp_path / "runs" / "classifier" / "test" / "history.json").read_text())
    assert len(history) == 1 and "val_accuracy" in history[0]
    assert TileClassifier(target).probabilities(np.zeros((2, 64, 48, 3), np.uint8)).shape == (2, 44)


def test_the_localiser_recipe_trains_one_epoch_and_the_detector_runs_it(tmp_path):
    """The shipped localiser's recipe (configs/detector.yaml: one class, fine-tuned from an earlier round on a GPU;
    here from models/detector-cpu.pt, the chain's first start, on the CPU) for one epoch on a few photos at a tiny
    input size, exported to ONNX with a free input size and run by the two-stage Detector at its two scales."""
    pytest.importorskip("ultralytics")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    import yaml

    from tests.vision.test_classifier import _labelled_folder
    from vision.detector import Detector
    from vision.training import train

    repo = Path(__file__).resolve().parents[2]
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "detector-cpu.pt").write_bytes((repo / "models" / "detector-cpu.pt").read_bytes())
    _labelled_folder(tmp_path / "photos", count=4)
    config = yaml.safe_load((repo / "configs" / "detector.yaml").read_text())
    config.update(imgsz=64, batch=4, workers=0, cache=False, hours=None, device="cpu")
    # the recipe's own start is an earlier round's run (not in a clone); the first round's start stands in
    config["model"] = "models/detector-cpu.pt"
    config["export"]["onnx"] = "models/detector.onnx"
    config["data"] = {"real_train": "photos/images", "val": "photos/images"}
    config["run"] = {"project": "runs/localizer", "name": "test"}
    (tmp_path / "configs").mkdir()
    recipe = tmp_path / "configs" / "detector.yaml"
    recipe.write_text(yaml.safe_dump(config))
    target = train(recipe, epochs=1)
    assert target == tmp_path / "models" / "detector.onnx" and target.is_file()
    if not (repo / "models" / "classifier.onnx").is_file():
        pytest.skip("no shipped classifier to pair the localiser with")
    detector = Detector(target, classifier_path=repo / "models" / "classifier.onnx")
    assert detector.num_classes == 1 and detector.size == 64 and detector.pass_sizes == (64, 32)  # a free input size
    photo = tmp_path / "photos" / "images" / "000.png"
    assert all(0.0 <= t.confidence <= 1.0 for t in detector.detect(photo, confidence=0.0001))


def test_a_gpu_recipe_on_a_machine_without_one_says_so(tmp_path):
    torch = pytest.importorskip("torch")
    from vision.training import _check_device

    _check_device("cpu", "r.yaml")  # nothing to say
    if not torch.cuda.is_available():  # CI's machines and the developers' have none
        with pytest.raises(TrainingError, match="CUDA GPU"):
            _check_device("0", "r.yaml")


def test_a_classifier_recipe_is_refused_before_any_photo_is_rendered(tmp_path, monkeypatch):
    """A GPU classifier recipe on a machine without one, crop margins out of range, upright crops for a box
    head, a missing teacher or a teacher for a box head: a clear error, and nothing rendered (configs/classifier-round13.yaml would render 10,000 photos first)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import vision.training
    from vision.training import train

    rendered = []
    monkeypatch.setattr(vision.training, "render_synthetic", lambda root, spec: rendered.append(spec))
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "configs").mkdir()
    base = """
task: classifier
data: {synthetic: [{out: data/set, count: 5, seed: 1}]}
"""
    margins = _write_recipe(tmp_path / "configs" / "margins.yaml", base + "crops: {margins: [0.2, 0.1]}\n")
    with pytest.raises(TrainingError, match="crops.margins must be"):
        train(margins)
    upright = _write_recipe(tmp_path / "configs" / "upright.yaml",
                            base + "crops: {upright_copies: 2}\nnetwork: {box_head: true}\n")
    with pytest.raises(TrainingError, match="no box target"):
        train(upright)
    teacherless = _write_recipe(tmp_path / "configs" / "teacher.yaml", base + "distill: {teacher: runs/gone.pt}\n")
    with pytest.raises(TrainingError, match="teacher 'runs/gone.pt' that distill names is missing"):
        train(teacherless)
    (tmp_path / "t.pt").write_bytes(b"")
    boxed = _write_recipe(tmp_path / "configs" / "boxed.yaml",
                          base + "distill: {teacher: t.pt}\nnetwork: {box_head: true}\n")
    with pytest.raises(TrainingError, match="distill cannot go with network.box_head"):
        train(boxed)
    if not torch.cuda.is_available():  # CI's machines and the developers' have none
        gpu = _write_recipe(tmp_path / "configs" / "gpu.yaml", base + "device: cuda\n")
        with pytest.raises(TrainingError, match="CUDA GPU"):
            train(gpu)
    assert rendered == []


def test_training_leaves_pillow_as_it_found_it():
    """ultralytics patches PIL.Image.open on import (an unknown file then tries to pip-install pi-heif and
    raises ModuleNotFoundError); after the training code has loaded it, a file that is not an image is still
    Pillow's UnidentifiedImageError, which the photo checks of the detector and the server catch."""
    pytest.importorskip("ultralytics")
    import io

    from PIL import Image, UnidentifiedImageError

    from vision.training import _yolo

    _yolo()
    with pytest.raises(UnidentifiedImageError):
        Image.open(io.BytesIO(b"not an image at all"))


def test_the_averaging_recipe_exports_the_mean_of_two_rounds(tmp_path):
    """``task: classifier-average``: the shipped classifier is the mean of two rounds' weights (or a weighted mean)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.classifier import TileClassifier
    from vision.classifier_training import make_network
    from vision.training import train

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "runs").mkdir()
    states = []
    for k in (1, 2):
        torch.manual_seed(k)
        states.append(make_network(8).state_dict())
        torch.save(states[-1], tmp_path / "runs" / f"round{k}.pt")
    recipe = _write_recipe(tmp_path / "average.yaml", """
task: classifier-average
average: [runs/round1.pt, runs/round2.pt]
network: {width: 8}
run: {project: runs, name: mean}
export: {onnx: models/classifier.onnx}
""")
    target = train(recipe)
    mean = torch.load(tmp_path / "runs" / "mean" / "classifier.pt")
    assert torch.allclose(mean["0.weight"], (states[0]["0.weight"] + states[1]["0.weight"]) / 2)
    assert TileClassifier(target).probabilities(np.zeros((1, 64, 48, 3), np.uint8)).shape == (1, 44)
    # weighted (stop 41): each round's share of the mean
    weighted = _write_recipe(tmp_path / "weighted.yaml", (tmp_path / "average.yaml").read_text().replace(
        "name: mean}", "name: weighted}") + "weights: [0.65, 0.35]\n")
    train(weighted)
    soup = torch.load(tmp_path / "runs" / "weighted" / "classifier.pt")
    assert torch.allclose(soup["0.weight"], 0.65 * states[0]["0.weight"] + 0.35 * states[1]["0.weight"], atol=1e-6)
    for bad in ("[1.0]", "[-1, 2]", "[0, 0]", "half"):
        wrong = _write_recipe(tmp_path / "bad.yaml", (tmp_path / "average.yaml").read_text() + f"weights: {bad}\n")
        with pytest.raises(TrainingError, match="'weights' must give each"):
            train(wrong)
    (tmp_path / "runs" / "round2.pt").unlink()
    with pytest.raises(TrainingError, match="missing"):
        train(recipe)
    with pytest.raises(TrainingError, match="two or more"):
        load_config(_write_recipe(tmp_path / "one.yaml", "task: classifier-average\naverage: [runs/round1.pt]\n"))


def test_a_second_round_is_given_the_epochs_its_time_holds_by_the_first_rounds_log():
    """tools/two-rounds-on-gpu.sh sizes its second round from the first's log, as ``train_classifier`` writes it."""
    import io

    pytest.importorskip("torch")
    from vision.classifier_training import train_classifier
    from vision.training import epoch_seconds, epochs_that_fit

    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (32, 64, 48, 3), dtype=np.uint8)
    y = rng.integers(0, 44, 32)
    log = io.StringIO()
    train_classifier(x, y, epochs=3, batch=16, lr=0.01, width=8, seed=0, threads=1, log=log)
    marks = [json.loads(line)["seconds"] for line in log.getvalue().splitlines() if line.strip().startswith("{")]
    assert len(marks) == 3
    per = epoch_seconds(log.getvalue())
    assert per == pytest.approx((marks[2] - marks[0]) / 2, abs=0.051)
    assert epoch_seconds(log.getvalue().split('{"epoch": 2')[0]) is None  # one epoch tells no epoch time

    # stop 38's call: 9.8 s an epoch, 166 s left after the first round, a 12-epoch recipe: 9 epochs
    assert epochs_that_fit(166, 9.8, 12) == 9
    assert epochs_that_fit(10_000, 9.8, 12) == 12  # never more than the recipe asks
    assert epochs_that_fit(70, 9.8, 12) == 0  # the reload alone takes longer
    assert epochs_that_fit(500, None, 12) == 0 and epochs_that_fit(500, 0.0, 12) == 0
