"""vision/false_boxes.py: the localiser's false boxes become the classifier's hard "none" crops."""

import json

import numpy as np
import pytest

from tests.vision.test_classifier import _labelled_folder
from vision.classifier_training import NONE_ID, build_crops
from vision.false_boxes import false_boxes, mine_folder, model_digest


class StandInLocaliser:
    """Answers, for every photo, each labelled tile's box plus two boxes on bare table (one weak)."""

    def __init__(self):
        self.calls = 0

    def localise(self, path, confidence):
        self.calls += 1
        found = np.array([[20, 40, 50, 80], [70, 40, 100, 80], [5, 120, 35, 158], [200, 0, 230, 30]], np.float32)
        scores = np.array([0.9, 0.8, 0.6, 0.05], np.float32)
        keep = scores >= confidence
        return 240, 160, found[keep], scores[keep]


def test_false_boxes_keeps_what_overlaps_no_labelled_tile_best_first():
    found = np.array([[0, 0, 10, 10], [30, 0, 40, 10], [2, 0, 12, 10], [60, 0, 70, 10]], np.float32)
    boxes, scores = false_boxes(found, np.array([0.9, 0.3, 0.8, 0.6]), np.array([[0, 0, 10, 10]], np.float32))
    # [2, 0, 12, 10] overlaps the tile at IoU 0.67: a tile seen a little off, not a false box
    assert boxes.tolist() == [[60, 0, 70, 10], [30, 0, 40, 10]] and scores.tolist() == pytest.approx([0.6, 0.3])
    boxes, _ = false_boxes(found, np.ones(4), np.zeros((0, 4)))
    assert len(boxes) == 4  # a photo without labelled tiles: everything found is false


def test_mining_a_folder_caches_by_model_and_settings(tmp_path):
    images = _labelled_folder(tmp_path / "set", count=3)
    model = tmp_path / "localiser.onnx"
    model.write_bytes(b"weights one")
    localiser = StandInLocaliser()
    mined = mine_folder(images, model, detector=localiser, progress=False)
    assert sorted(mined) == ["000.png", "001.png", "002.png"] and localiser.calls == 3
    for rows in mined.values():  # the box on bare table; the labelled tile is not false; the weak one is below 0.1
        assert rows.shape == (1, 5) and rows[0].tolist() == pytest.approx([5, 120, 35, 158, 0.6])
    cache = tmp_path / "set" / f"false-boxes-{model_digest(model)}.json"
    assert json.loads(cache.read_text())["settings"] == {"min_score": 0.1, "max_iou": 0.3}
    again = mine_folder(images, model, detector=localiser, progress=False)
    assert localiser.calls == 3 and all(np.array_equal(again[k], mined[k]) for k in mined)  # from the cache
    mine_folder(images, model, min_score=0.01, detector=localiser, progress=False)
    assert localiser.calls == 6  # other settings: mined again
    model.write_bytes(b"weights two")
    mine_folder(images, model, min_score=0.01, detector=localiser, progress=False)
    assert localiser.calls == 9  # another model: its own cache
    cache.write_text("{broken")
    model.write_bytes(b"weights one")
    mine_folder(images, model, detector=localiser, progress=False)
    assert localiser.calls == 12  # a broken cache is made again


def test_mining_in_several_processes_finds_what_one_finds(tmp_path, monkeypatch):
    import vision.detector

    images = _labelled_folder(tmp_path / "set", count=5)
    model = tmp_path / "localiser.onnx"
    model.write_bytes(b"weights")
    alone = mine_folder(images, model, detector=StandInLocaliser(), progress=False)
    (tmp_path / "set" / f"false-boxes-{model_digest(model)}.json").unlink()
    opened = []

    def open_localiser(path, threads=None):  # each process opens its own, one thread each
        opened.append(threads)
        return StandInLocaliser()

    monkeypatch.setattr(vision.detector, "Detector", open_localiser)
    together = mine_folder(images, model, progress=False, workers=2)
    assert sorted(together) == sorted(alone) and all(np.array_equal(together[k], alone[k]) for k in alone)
    assert opened == []  # opened in the worker processes, not in this one


def test_false_boxes_become_none_crops(tmp_path):
    images = _labelled_folder(tmp_path, count=2)
    plain_x, plain_y = build_crops([images], copies=1, jitter=0.0, none_per_image=0, seed=1, progress=False)
    mined = {"000.png": np.array([[5, 120, 35, 158, 0.6], [200, 0, 230, 30, 0.3], [100, 100, 130, 140, 0.2]],
                                 np.float32)}
    x, y = build_crops([images], copies=1, jitter=0.0, none_per_image=0, seed=1, progress=False,
                       false_boxes=mined, false_per_image=2)
    assert len(x) == len(plain_x) + 2 and (y == NONE_ID).sum() == 2  # the best two of 000.png; none for 001.png
    assert np.array_equal(x[:4], plain_x[:4])  # the tiles' crops are unchanged
    x, y = build_crops([images], copies=1, jitter=0.0, none_per_image=0, seed=1, progress=False,
                       false_boxes=mined, false_per_image=0)
    assert len(x) == len(plain_x)


def _mining_recipe_folders(tmp_path, monkeypatch, rendered_names):
    """A recipe folder with two real photos, the rendered sets ``data/NAME`` (3 photos each, answered for each
    spec by its ``out``) and a stand-in localiser in models/localiser.onnx; answers (the sets, the localiser)."""
    import vision.detector
    import vision.training

    (tmp_path / "pyproject.toml").write_text("")
    _labelled_folder(tmp_path / "photos", count=2)
    sets = {name: _labelled_folder(tmp_path / "data" / name, count=3) for name in rendered_names}
    monkeypatch.setattr(vision.training, "render_synthetic", lambda root, spec: sets[spec["out"].split("/")[-1]])
    localiser = StandInLocaliser()
    monkeypatch.setattr(vision.detector, "Detector", lambda path: localiser)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "localiser.onnx").write_bytes(b"weights")
    return sets, localiser


def test_the_classifier_recipe_mines_only_its_rendered_sets(tmp_path, monkeypatch, capfd):
    """``crops.false_boxes``: the rendered sets' false boxes are mined (and cached); the real photos and the
    stretched ones are not, as their labels may miss a tile."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.training import TrainingError, train

    sets, localiser = _mining_recipe_folders(tmp_path, monkeypatch, ["rendered"])
    rendered = sets["rendered"]
    recipe = tmp_path / "classifier.yaml"
    text = """
task: classifier
seed: 0
epochs: 1
batch: 16
lr0: 0.01
threads: 1
network: {width: 8}
crops: {copies: 1, jitter: 0.0, none_per_image: 0, seed: 1,
        false_boxes: {localiser: models/localiser.onnx, per_image: 2}}
data: {real_train: photos/images, synthetic: [{out: data/rendered, count: 3, seed: 1}],
       stretched: {source: photos, out: data/stretched, count: 2, seed: 5}}
run: {project: runs/classifier, name: test}
export: {onnx: models/classifier.onnx}
"""
    recipe.write_text(text)
    train(recipe)
    err = capfd.readouterr().err
    assert err.count("mining the localiser's false boxes") == 1 and str(rendered) in err
    assert localiser.calls == 3  # the rendered set's three photos only
    # real 2 x 4 tiles + rendered 3 x 4 tiles + 3 false boxes + stretched photos' tiles
    stretched = sum(len(p.read_text().splitlines()) for p in (tmp_path / "data" / "stretched" / "labels").iterdir())
    assert f"{8 + 12 + 3 + stretched} crops, 3 sources" in err
    recipe.write_text(text.replace("models/localiser.onnx", "models/missing.onnx"))
    with pytest.raises(TrainingError, match="missing.onnx"):
        train(recipe)


def test_a_set_marked_not_to_mine_is_cut_unmined_and_the_real_photos_cut_real_copies_times(tmp_path, monkeypatch,
                                                                                        capfd):
    """``mine_false_boxes: false`` on a rendered set leaves it unmined (a lent machine's call is short), and
    ``crops.real_copies`` cuts each real tile that many times while the other sets keep ``copies``."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.training import TrainingError, train

    sets, localiser = _mining_recipe_folders(tmp_path, monkeypatch, ["mined", "unmined"])
    recipe = tmp_path / "classifier.yaml"
    text = """
task: classifier
seed: 0
epochs: 1
batch: 16
lr0: 0.01
threads: 1
network: {width: 8}
crops: {copies: 1, real_copies: 3, jitter: 0.0, none_per_image: 0, seed: 1,
        false_boxes: {localiser: models/localiser.onnx, per_image: 2}}
data: {real_train: photos/images,
       synthetic: [{out: data/mined, count: 3, seed: 1}, {out: data/unmined, count: 3, seed: 2, mine_false_boxes: false}]}
run: {project: runs/classifier, name: test}
export: {onnx: models/classifier.onnx}
"""
    recipe.write_text(text)
    train(recipe)
    err = capfd.readouterr().err
    assert err.count("mining the localiser's false boxes") == 1 and str(sets["mined"]) in err
    assert localiser.calls == 3  # the first set's three photos only
    # real 2 photos x 4 tiles x 3 copies + two rendered sets of 3 x 4 tiles once + the mined set's 3 false boxes
    assert f"{24 + 12 + 12 + 3} crops, 3 sources" in err
    # a set's own `false_per_image` stands over the recipe's `per_image` (here: none of its false boxes is cut)
    recipe.write_text(text.replace("{out: data/mined, count: 3, seed: 1}",
                                   "{out: data/mined, count: 3, seed: 1, false_per_image: 0}"))
    train(recipe)
    assert f"{24 + 12 + 12} crops, 3 sources" in capfd.readouterr().err
    recipe.write_text(text.replace("real_copies: 3", "real_copies: 0"))
    with pytest.raises(TrainingError, match="real_copies must be 1 or more"):
        train(recipe)
