"""vision.bonus_reader and vision.bonus_training: re-reading the boxes taken for a flower or a season."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from vision.bonus_reader import (BONUS_CLASS_IDS, READER_NAMES, BonusReader, BonusReaderError, bonus_share,
                                 classifier_view, combine)
from vision.classes import CLASS_NAMES, NUM_CLASSES

ONE_F, TWO_F, SEVEN_F = (CLASS_NAMES.index(name) for name in ("1f", "2f", "7f"))
NONE = NUM_CLASSES  # "none", the tile classifier's last column


def _probs(**readings: float) -> np.ndarray:
    """One row of tile-classifier probabilities from {class name or 'none': probability}."""
    row = np.zeros((1, NUM_CLASSES + 1), np.float32)
    for name, p in readings.items():
        row[0, NONE if name == "none" else CLASS_NAMES.index(name.replace("_", ""))] = p
    return row


def _reading(**readings: float) -> np.ndarray:
    row = np.zeros((1, len(READER_NAMES)), np.float32)
    for name, p in readings.items():
        row[0, READER_NAMES.index(name.replace("_", ""))] = p
    return row


def test_the_reader_names_the_eight_bonus_faces_then_other():
    assert READER_NAMES == ("1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f", "other")
    assert [CLASS_NAMES[i] for i in BONUS_CLASS_IDS] == list(READER_NAMES[:8])


def test_bonus_share_is_the_share_of_a_tile_on_the_bonus_faces():
    probs = np.concatenate([_probs(_1f=0.3, _1m=0.3, none=0.4), _probs(_5z=0.9, none=0.1), _probs(none=1.0)])
    assert bonus_share(probs).round(3).tolist() == [0.5, 0.0, 0.0]


def test_combine_lets_the_reader_choose_the_bonus_face_and_keeps_none_and_the_others_proportions():
    probs = _probs(_1f=0.4, _2f=0.1, _1m=0.2, _2m=0.1, none=0.2)
    combined = combine(probs, _reading(_7f=0.6, _2f=0.2, other=0.2), weight=1.0)[0]
    assert combined.sum() == pytest.approx(1.0, abs=1e-6)
    assert combined[NONE] == pytest.approx(0.2)                        # "a tile at all" is the classifier's
    assert combined[SEVEN_F] == pytest.approx(0.6 * 0.8)               # which bonus face is the reader's
    assert combined[TWO_F] == pytest.approx(0.2 * 0.8) and combined[ONE_F] == 0
    one_m, two_m = CLASS_NAMES.index("1m"), CLASS_NAMES.index("2m")
    assert combined[one_m] == pytest.approx(0.2 * 0.8 * 2 / 3)         # the others share "other" as they were
    assert combined[two_m] == pytest.approx(0.2 * 0.8 * 1 / 3)


def test_combine_gives_the_bonus_faces_everything_when_the_classifier_gave_the_others_nothing():
    combined = combine(_probs(_1f=0.9, none=0.1), _reading(_3f=0.5, other=0.5), weight=1.0)[0]
    assert combined[CLASS_NAMES.index("3f")] == pytest.approx(0.9)
    assert combined.sum() == pytest.approx(1.0, abs=1e-6)


def test_combine_averages_the_readers_answer_with_the_classifiers_own():
    probs = _probs(_1f=0.6, _1m=0.2, none=0.2)                     # the classifier: 1f, three quarters of a tile
    assert classifier_view(probs)[0].round(3).tolist() == [0.75, 0, 0, 0, 0, 0, 0, 0, 0.25]
    combined = combine(probs, _reading(_2f=1.0))[0]              # the reader: surely 2f
    assert combined[ONE_F] == pytest.approx(0.8 * 0.375) and combined[TWO_F] == pytest.approx(0.8 * 0.5)
    assert combined[CLASS_NAMES.index("1m")] == pytest.approx(0.8 * 0.125)
    assert np.allclose(combine(probs, _reading(_2f=1.0), weight=0.0), probs)   # weight 0: the classifier alone


class _FixedSession:
    """A stand-in for the reader's onnxruntime session: answers one reading for every crop, and keeps what it saw."""

    def __init__(self, reading: np.ndarray):
        self.reading, self.seen = reading, []

    def run(self, _outputs, feeds):
        batch = next(iter(feeds.values()))
        self.seen.append(batch.shape)
        return [np.repeat(self.reading, len(batch), axis=0)]


def _reader(reading: np.ndarray, trigger: float = 0.1, weight: float = 1.0) -> BonusReader:
    reader = object.__new__(BonusReader)
    reader.session, reader.input_name, reader.size = _FixedSession(reading), "crops", (18, 24)
    reader.trigger, reader.weight = trigger, weight
    return reader


def test_reread_looks_again_only_at_the_boxes_taken_for_a_bonus_tile():
    reader = _reader(_reading(_8f=1.0))
    image = Image.new("RGB", (200, 100), (200, 200, 200))
    boxes = np.array([[10, 10, 40, 50], [60, 10, 90, 50], [110, 10, 140, 50]], np.float32)
    probs = np.concatenate([_probs(_1f=0.8, none=0.2), _probs(_5z=0.95, _1f=0.01, none=0.04),
                            _probs(_1m=0.5, _2f=0.4, none=0.1)])
    out = reader.reread(image, boxes, probs)
    assert reader.session.seen == [(4, 3, 24, 18)]           # rows 0 and 2, each also turned upside down
    eight_f = CLASS_NAMES.index("8f")
    assert out[0, eight_f] == pytest.approx(0.8) and out[2, eight_f] == pytest.approx(0.9)
    assert np.array_equal(out[1], probs[1])                  # 1 % on a bonus face: not looked at
    assert out[2, CLASS_NAMES.index("1m")] == 0              # the reader says: no other tile
    assert reader.reread(image, boxes[:0], probs[:0]).shape == (0, NUM_CLASSES + 1)


class _RecordingSession(_FixedSession):
    """Keeps the crops it was given, not their shapes."""

    def run(self, _outputs, feeds):
        batch = next(iter(feeds.values()))
        self.seen.append(batch.copy())
        return [np.repeat(self.reading, len(batch), axis=0)]


def test_with_the_faces_axes_the_reader_also_reads_each_box_turned_upright():
    from vision.crops import tile_crops, to_tensor, upright_crops

    reader = _reader(_reading(_8f=1.0))
    reader.session = _RecordingSession(_reading(_8f=1.0))
    # a tile lying sideways (its face's axis along the photo's x axis), red at its left end, blue at its right
    array = np.full((100, 200, 3), 200, np.uint8)
    array[30:60, 40:70], array[30:60, 70:100] = (220, 30, 30), (30, 30, 220)
    image = Image.fromarray(array)
    boxes = np.array([[40, 30, 100, 60], [120, 30, 150, 70]], np.float32)
    probs = np.concatenate([_probs(_1f=0.8, none=0.2), _probs(_2f=0.9, none=0.1)])
    axes = np.array([0.0, np.nan])
    out = reader.reread(image, boxes, probs, axes)
    (seen,) = reader.session.seen
    assert len(seen) == 8                                     # each box as cut and upright, each both ways up
    as_cut = tile_crops(image, boxes, size=reader.size)
    upright = upright_crops(image, boxes, axes, size=reader.size)[0]
    assert np.allclose(seen[:2], to_tensor(as_cut)) and np.allclose(seen[2:4], to_tensor(upright))
    assert np.allclose(upright[1], as_cut[1])                 # an unknown axis: as cut
    turned = upright[0]  # the red and blue ends now lie above each other, not side by side
    top, bottom = turned[:8].reshape(-1, 3).mean(axis=0), turned[-8:].reshape(-1, 3).mean(axis=0)
    assert {int(np.argmax(top)), int(np.argmax(bottom))} == {0, 2}
    assert out[0, CLASS_NAMES.index("8f")] == pytest.approx(0.8)
    reader.session.seen.clear()
    reader.reread(image, boxes, probs)                        # without axes: as cut alone
    assert len(reader.session.seen[0]) == 4

    class SidewaysFaces:  # the face-axis reader's interface, keeping the boxes it was asked about
        asked = []

        def axes(self, _image, asked_boxes):
            self.asked.append(np.array(asked_boxes))
            return np.zeros(len(asked_boxes))

    reader.session.seen.clear()
    faces = SidewaysFaces()
    probs[1] = _probs(_5z=0.95, none=0.05)                   # the second box is no bonus tile now: not looked at
    reader.reread(image, boxes, probs, axis_reader=faces)     # the --fast reading: axes of the boxes looked at only
    (asked,) = faces.asked
    assert np.array_equal(asked, boxes[:1])
    assert np.allclose(reader.session.seen[0][:2], to_tensor(np.concatenate([as_cut[:1], upright[:1]])))


def test_a_missing_or_foreign_model_is_refused_with_a_message(tmp_path):
    with pytest.raises(BonusReaderError, match="No bonus reader model"):
        BonusReader(tmp_path / "none.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(BonusReaderError, match="Cannot load the bonus reader"):
        BonusReader(broken)
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.classifier_training import export_onnx, make_network

    tile_classifier = export_onnx(make_network(4), tmp_path / "classifier.onnx")  # 44 answers: not a reader
    with pytest.raises(BonusReaderError, match="eight bonus faces"):
        BonusReader(tile_classifier)


def _bonus_folder(root, count=4):
    """A YOLO-format folder of grey photos with coloured tiles: red 1f, green 2f, blue 1m (another tile)."""
    images, labels = root / "images", root / "labels"
    images.mkdir(parents=True)
    labels.mkdir()
    kinds = [(ONE_F, (230, 40, 40)), (TWO_F, (40, 230, 40)), (CLASS_NAMES.index("1m"), (40, 40, 230))]
    for i in range(count):
        array = np.full((160, 240, 3), 90, dtype=np.uint8)
        lines = []
        for j, (cls, colour) in enumerate(kinds):
            x, y = 20 + 70 * j, 40 + 10 * (i % 3)
            array[y:y + 40, x:x + 30] = colour
            lines.append(f"{cls} {(x + 15) / 240:.5f} {(y + 20) / 160:.5f} {30 / 240:.5f} {40 / 160:.5f}")
        Image.fromarray(array).save(images / f"{i:03d}.png")
        (labels / f"{i:03d}.txt").write_text("\n".join(lines) + "\n")
    return images


def test_the_crops_are_every_bonus_tile_copied_and_some_other_tiles_at_the_readers_size(tmp_path):
    from vision.bonus_training import OTHER_ID, build_crops

    images = _bonus_folder(tmp_path)
    x, y = build_crops([images], copies=3, others_per_image=1, jitter=0.05, seed=1, size=(18, 24), progress=False)
    assert x.shape == (4 * (2 * 3 + 1), 24, 18, 3)
    assert np.bincount(y, minlength=9).tolist() == [12, 12, 0, 0, 0, 0, 0, 0, 4]
    again = build_crops([images], copies=3, others_per_image=1, jitter=0.05, seed=1, size=(18, 24), progress=False)
    assert np.array_equal(again[0], x) and np.array_equal(again[1], y)  # a seed gives the same crops
    # a red 1f crop is red: the crops are cut round the right boxes
    assert x[y == 0][:, 8:16, 6:12].mean(axis=(0, 1, 2)).argmax() == 0 and (y == OTHER_ID).sum() == 4


def test_the_hard_others_are_the_other_tiles_the_classifier_takes_for_a_bonus_tile(tmp_path):
    from vision.bonus_training import OTHER_ID, build_crops

    class BlueIsAFlower:  # the tile classifier's interface: a blue crop reads half 1f
        def probabilities(self, crops):
            out = np.zeros((len(crops), NUM_CLASSES + 1), np.float32)
            blue = crops[..., 2].mean(axis=(1, 2)) > 150
            out[:, 0] = 1.0
            out[blue, 0], out[blue, ONE_F] = 0.5, 0.5
            return out

    images = _bonus_folder(tmp_path, count=2)
    _, y = build_crops([images], copies=1, others_per_image=0, jitter=0.0, seed=1, size=(18, 24),
                       classifier=BlueIsAFlower(), progress=False)
    assert (y == OTHER_ID).sum() == 2  # the blue 1m of each photo


def test_crops_cut_in_processes_are_the_same_for_any_number_of_processes(tmp_path):
    from vision.bonus_training import build_crops

    images = _bonus_folder(tmp_path, count=6)
    settings = dict(copies=2, others_per_image=1, jitter=0.05, seed=3, size=(18, 24), progress=False)
    two = build_crops([images], workers=2, **settings)
    three = build_crops([images], workers=3, **settings)
    assert np.array_equal(two[0], three[0]) and np.array_equal(two[1], three[1])
    assert np.bincount(two[1], minlength=9).tolist() == [12, 12, 0, 0, 0, 0, 0, 0, 6]
    one = build_crops([images], **settings)  # one process: one generator for all photos, as the CPU recipes cut
    assert np.array_equal(one[1], two[1]) and not np.array_equal(one[0], two[0])


def test_upright_copies_are_cut_where_a_sidecar_gives_the_face_axis(tmp_path):
    from vision.bonus_training import OTHER_ID, build_crops
    from vision.classifier_training import read_yolo_labels

    images = _bonus_folder(tmp_path, count=3)
    sidecars = tmp_path / "sidecars"
    sidecars.mkdir()
    for path in sorted(images.iterdir())[:2]:  # the third photo has no sidecar, as a real photo has none
        boxes, _ = read_yolo_labels(tmp_path / "labels" / (path.stem + ".txt"), 240, 160)
        # the faces lie a quarter turned: their tops to the left
        tiles = [{"box": [x1, y1, x2, y2], "quad": [[x1, y2], [x1, y1], [x2, y1], [x2, y2]]}
                 for x1, y1, x2, y2 in boxes.tolist()]
        (sidecars / (path.stem + ".json")).write_text(json.dumps({"tiles": tiles}))
    settings = dict(copies=2, others_per_image=1, jitter=0.0, seed=1, size=(18, 24), progress=False)
    plain = build_crops([images], **settings)
    x, y = build_crops([images], upright_copies=1, **settings)
    # each chosen box of the two photos with sidecars once more: two bonus tiles and one other a photo
    assert len(x) == len(plain[0]) + 2 * 3
    assert np.bincount(y, minlength=9).tolist() == [8, 8, 0, 0, 0, 0, 0, 0, 5]
    first = x[:5]  # photo 0: 1f, 1f, 1f turned, 2f, 2f ... (the order of photo_crops)
    assert np.array_equal(first[0], first[1]) and not np.array_equal(first[0], first[2])
    assert (y == OTHER_ID).sum() == 5


def test_processes_open_the_hard_others_classifier_from_its_path(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.bonus_training import build_crops
    from vision.classifier import TileClassifier
    from vision.classifier_training import export_onnx, make_network

    images = _bonus_folder(tmp_path / "photos", count=4)
    path = export_onnx(make_network(4), tmp_path / "classifier.onnx")
    settings = dict(copies=1, others_per_image=0, jitter=0.0, seed=1, size=(18, 24), progress=False)
    in_processes = build_crops([images], classifier=path, workers=2, **settings)
    here = build_crops([images], classifier=TileClassifier(path), **settings)
    assert np.array_equal(in_processes[1], here[1])  # the same hard others, whichever process read them


def test_a_gpu_bonus_reader_recipe_is_refused_before_any_photo_is_cut_on_a_machine_without_one(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU: the recipe would run")
    from vision.training import TrainingError, train

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "recipe.yaml").write_text("task: bonus-reader\ndevice: cuda\n"
                                          "data: {real_train: nowhere/images}\n")
    with pytest.raises(TrainingError, match="CUDA GPU"):
        train(tmp_path / "recipe.yaml")


def test_the_reader_starts_from_the_tile_classifiers_head():
    torch = pytest.importorskip("torch")
    from vision.bonus_training import reader_start
    from vision.classifier_training import make_network

    state = make_network(4).state_dict()
    started = reader_start(state)
    key = [k for k, v in state.items() if v.dim() == 2][-1]
    assert started[key].shape[0] == 9
    assert torch.equal(started[key][:8], state[key][list(BONUS_CLASS_IDS)])
    assert reader_start(started) == started                          # a reader's own weights as they are
    make_network(4, 9).load_state_dict(started)
    with pytest.raises(ValueError, match="outputs"):
        reader_start(make_network(4, 5).state_dict())


def _recipe_root(root):
    """A project folder for a bonus reader recipe: pyproject.toml, four labelled photos in photos/, and a tile
    classifier's starting weights in models/classifier.pt."""
    import torch

    from vision.classifier_training import make_network

    (root / "pyproject.toml").write_text("")
    _bonus_folder(root / "photos", count=4)
    (root / "models").mkdir()
    torch.save(make_network(8).state_dict(), root / "models" / "classifier.pt")


def test_the_bonus_reader_recipe_trains_one_epoch_and_the_detector_uses_it(tmp_path, capfd):
    """`mjscan train --config <bonus reader recipe> --epochs 1` on a few labelled photos, on the CPU; then a
    detector finds the exported reader beside its classifier."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.classifier_training import export_onnx, make_network
    from vision.training import train

    _recipe_root(tmp_path)
    (tmp_path / "configs").mkdir()
    recipe = tmp_path / "configs" / "bonus.yaml"
    recipe.write_text("""
task: bonus-reader
init: models/classifier.pt
seed: 0
epochs: 3
batch: 8
lr0: 0.01
threads: 1
network: {width: 8}
crops: {size: [18, 24], copies: 2, jitter: 0.05, others_per_image: 1, seed: 1}
data: {real_train: photos/images, val: photos/images}
run: {project: runs/bonus, name: test}
export: {onnx: models/bonus.onnx}
""")
    target = train(recipe, epochs=1)
    assert target == tmp_path / "models" / "bonus.onnx"
    assert "20 crops of 18 x 24" in capfd.readouterr().err
    history = json.loads((tmp_path / "runs" / "bonus" / "test" / "history.json").read_text())
    assert "val_accuracy" in history[0] and 0 <= history[-1]["val_bonus_accuracy"] <= 1
    reader = BonusReader(target)
    assert reader.size == (18, 24)
    assert np.allclose(reader.probabilities(np.zeros((3, 24, 18, 3), np.uint8)).sum(axis=1), 1, atol=1e-4)

    from vision.detector import Detector, DetectorError

    export_onnx(make_network(8), tmp_path / "models" / "classifier.onnx")
    localiser = tmp_path / "localiser.onnx"
    from tests.vision.fakes import tiny_localiser

    tiny_localiser(localiser, 320)
    detector = Detector(localiser, classifier_path=tmp_path / "models" / "classifier.onnx")
    assert detector.bonus_reader is not None and detector.bonus_reader.model_path == target
    assert Detector(localiser, classifier_path=tmp_path / "models" / "classifier.onnx",
                    bonus_reader_path=False).bonus_reader is None
    with pytest.raises(DetectorError, match="bonus reader"):
        Detector(localiser, classifier_path=tmp_path / "models" / "classifier.onnx",
                 bonus_reader_path=tmp_path / "models" / "classifier.onnx")


def test_the_real_photos_bonus_tiles_are_cut_real_copies_times(tmp_path, capfd):
    """`crops.real_copies`: the real training photos' bonus tiles are cut that many times (the rendered ones'
    `copies`), so that a round can weigh the real sets' faces more; 0 is refused before any crop is cut."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.training import TrainingError, train

    _recipe_root(tmp_path)
    recipe = tmp_path / "bonus.yaml"
    text = """
task: bonus-reader
init: models/classifier.pt
seed: 0
batch: 8
threads: 1
network: {width: 8}
crops: {size: [18, 24], copies: 2, real_copies: REAL, jitter: 0.05, others_per_image: 1, seed: 1}
data: {real_train: photos/images}
run: {project: runs/bonus, name: test}
export: {onnx: models/bonus.onnx}
"""
    recipe.write_text(text.replace("REAL", "3"))
    train(recipe, epochs=1)
    assert "28 crops of 18 x 24" in capfd.readouterr().err   # 4 photos x (2 bonus tiles x 3 + 1 other)
    recipe.write_text(text.replace("REAL", "0"))
    with pytest.raises(TrainingError, match="real_copies must be 1 or more"):
        train(recipe, epochs=1)
    assert "cutting" not in capfd.readouterr().err


def _trained_norms(network, torch, size=(24, 18)):
    """A network whose batch norms hold statistics of their own (a few batches in train mode), as a trained one does."""
    network.train()
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for _ in range(4):
            network(torch.rand(16, 3, *size, generator=generator) * 0.8 + 0.1)
    network.eval()
    return network


def test_a_network_is_rebuilt_from_its_export_with_the_batch_norms_put_back(tmp_path):
    """The export folds each batch norm into its convolution; ``state_from_onnx`` gives back a ``make_network`` state
    that computes the same in eval mode and nearly the same in train mode on crops like the calibration ones."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from vision.classifier_training import export_onnx, make_network, state_from_onnx
    from vision.crops import to_tensor

    torch.manual_seed(0)
    original = _trained_norms(make_network(8, 9), torch)
    path = export_onnx(original, tmp_path / "reader.onnx", names=READER_NAMES, crop_size=(18, 24))
    rng = np.random.default_rng(0)
    crops = (rng.random((64, 24, 18, 3)) * 200 + 30).astype(np.uint8)
    state = state_from_onnx(path, crops)
    rebuilt = make_network(8, 9)
    rebuilt.load_state_dict(state)
    rebuilt.eval()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    exported = session.run(None, {"crops": to_tensor(crops)})[0]
    with torch.no_grad():
        again = torch.softmax(rebuilt(torch.from_numpy(to_tensor(crops))), dim=1).numpy()
        assert np.abs(exported - again).max() < 1e-4
        # in train mode (dropout aside) a batch is normalised by its own statistics: about the calibration's
        rebuilt.train()
        for module in rebuilt:
            if isinstance(module, torch.nn.Dropout):
                module.eval()
        batch = torch.softmax(rebuilt(torch.from_numpy(to_tensor(crops))), dim=1).numpy()
    assert np.abs(exported - batch).max() < 0.02
    # the norms' statistics are the calibration's, not an identity's
    norms = [m for m in rebuilt if isinstance(m, torch.nn.BatchNorm2d)]
    assert not torch.allclose(norms[1].running_var, torch.ones_like(norms[1].running_var))


def test_only_a_plain_make_network_export_is_rebuilt(tmp_path):
    """A fresh network's export (whose equal folded biases the exporter shares through Identity nodes) is rebuilt;
    a network with a box head is refused."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.classifier_training import export_onnx, make_network, state_from_onnx

    fresh = make_network(8)
    fresh.eval()
    state = state_from_onnx(export_onnx(fresh, tmp_path / "fresh.onnx"), np.full((4, 64, 48, 3), 128, np.uint8))
    assert set(state) == set(fresh.state_dict())
    assert torch.allclose(state["0.weight"], fresh.state_dict()["0.weight"], rtol=1e-4)  # folded: W / sqrt(1 + eps)

    boxed = export_onnx(make_network(4, box_head=True), tmp_path / "boxed.onnx", boxes=True)
    with pytest.raises(ValueError, match="not an export of a plain make_network"):
        state_from_onnx(boxed, np.zeros((2, 64, 48, 3), np.uint8))


def test_a_bonus_reader_round_may_start_from_a_readers_export(tmp_path, capfd):
    """`init: models/bonus.onnx`: the round starts from what the export computes (its first epoch's loss is the
    export's, not a fresh head's) and trains on."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.classifier_training import export_onnx, make_network
    from vision.training import TrainingError, train

    _recipe_root(tmp_path)
    torch.manual_seed(0)
    export_onnx(_trained_norms(make_network(8, 9), torch), tmp_path / "models" / "bonus.onnx", names=READER_NAMES,
                crop_size=(18, 24))
    (tmp_path / "configs").mkdir()
    recipe = tmp_path / "configs" / "bonus.yaml"
    recipe.write_text("""
task: bonus-reader
init: models/bonus.onnx
seed: 0
epochs: 1
batch: 8
lr0: 0.001
threads: 1
network: {width: 8}
crops: {size: [18, 24], copies: 2, jitter: 0.05, others_per_image: 1, seed: 1}
data: {real_train: photos/images}
run: {project: runs/bonus, name: from-onnx}
export: {onnx: runs/bonus/from-onnx/bonus.onnx}
""")
    target = train(recipe, epochs=1)
    assert BonusReader(target).size == (18, 24)
    assert "crops of 18 x 24" in capfd.readouterr().err
    export_onnx(make_network(8, box_head=True), tmp_path / "models" / "bonus.onnx")  # not a plain network's export
    with pytest.raises(TrainingError, match="starting weights: .* not an export of a plain make_network"):
        train(recipe, epochs=1)
