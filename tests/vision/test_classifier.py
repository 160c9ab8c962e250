"""The detector's second stage: the tile classifier, and the two-stage Detector (a one-class localiser,
then the classifier names each box)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.fakes import ColourClassifier, LookAlikeClassifier, fake_detector, photo_with_boxes
from vision.classes import NUM_CLASSES, class_from_id
from vision.classifier import ClassifierError, TileClassifier
from vision.classifier_training import CLASSIFIER_NAMES, NONE_ID, build_crops, read_yolo_labels
from vision.crops import CROP_HEIGHT, CROP_WIDTH


def test_the_classifier_names_each_box_the_localiser_finds():
    classifier = ColourClassifier(class_id=7, probability=0.8)
    detector = fake_detector(classifier=classifier)
    photo = np.asarray(photo_with_boxes(400, 300, [(40, 60, 80, 112), (120, 60, 160, 112)])).copy()
    detections = detector.detect(photo)
    assert len(detections) == 2
    assert {t.code for t in detections} == {class_from_id(7)}
    # the confidence is the localiser's (0.9) times the classifier's (0.8)
    assert all(abs(t.confidence - 0.72) < 1e-5 for t in detections)
    assert classifier.seen[0].shape[1:] == (CROP_HEIGHT, CROP_WIDTH, 3)


def test_an_unsure_tile_is_read_as_the_tiles_it_looks_like():
    """``vision.sibling_readings`` in the detector: three tiles that look alike, two read surely as 5m and one
    unsurely as 3m, come out three 5m, the third at its own best reading's confidence with 3m next."""
    boxes = [(40, 60, 80, 112), (120, 60, 160, 112), (200, 60, 240, 112)]
    photo = np.asarray(photo_with_boxes(400, 300, boxes)).copy()
    photo[80:83, 205:220] = 0  # a dark mark inside the third: read unsurely
    five_m, three_m = 4, 2
    alone = fake_detector(classifier=LookAlikeClassifier(five_m, three_m), share_readings=False).detect(photo)
    assert sorted(t.code_str for t in alone) == ["3m", "5m", "5m"]
    shared = fake_detector(classifier=LookAlikeClassifier(five_m, three_m)).detect(photo)
    assert [t.code_str for t in shared] == ["5m", "5m", "5m"]
    third = max(shared, key=lambda t: t.box[0])
    assert third.confidence == pytest.approx(0.9 * 0.5)
    assert third.alternatives[0][0] == class_from_id(three_m) and third.alternatives[0][1] == pytest.approx(0.9 * 0.4)


def test_a_named_faces_bottom_edge_is_lowered_and_a_backs_is_not():
    """``Detector.bottom_edge_shift`` (``BOTTOM_EDGE_SHIFT``): once the classifier has named a box, a face's bottom edge
    moves down by that share of the box's height; a box named ``back`` keeps the localiser's."""
    from vision.classes import BACK_ID

    photo = np.asarray(photo_with_boxes(400, 300, [(40, 60, 80, 112)])).copy()
    found = fake_detector(classifier=ColourClassifier(class_id=7)).detect(photo).tiles[0].box
    face = fake_detector(classifier=ColourClassifier(class_id=7), bottom_edge_shift=0.05).detect(photo).tiles[0].box
    assert face[:3] == pytest.approx(found[:3]) and face[3] == pytest.approx(found[3] + 0.05 * (found[3] - found[1]))
    back = fake_detector(classifier=ColourClassifier(class_id=BACK_ID), bottom_edge_shift=0.05).detect(photo).tiles[0]
    assert back.code_str == "back" and back.box == pytest.approx(found)


def test_a_box_the_classifier_calls_none_is_dropped():
    detector = fake_detector(classifier=ColourClassifier())
    photo = np.asarray(photo_with_boxes(400, 300, [(40, 60, 80, 112), (120, 60, 160, 112)])).copy()
    photo[71:101, 125:155] = (0, 200, 0)  # the second box is mostly green inside: "not a tile"
    detections = detector.detect(photo)
    assert len(detections) == 1 and detections.tiles[0].box[0] < 100


def test_low_thresholds_reach_the_classifier_too():
    detector = fake_detector(classifier=ColourClassifier(probability=0.2))
    photo = photo_with_boxes(400, 300, [(40, 60, 80, 112)])
    assert len(detector.detect(photo)) == 0  # 0.9 x 0.2 = 0.18 < 0.25
    assert len(detector.detect(photo, confidence=0.1)) == 1


def test_a_missing_or_foreign_classifier_model_is_refused(tmp_path):
    pytest.importorskip("onnxruntime")
    with pytest.raises(ClassifierError, match="No tile classifier"):
        TileClassifier(tmp_path / "none.onnx")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(ClassifierError, match="Cannot load"):
        TileClassifier(junk)


def _labelled_folder(root, count=3):
    """A YOLO-format folder (images/ beside labels/) of grey photos with coloured 'tiles'."""
    images, labels = root / "images", root / "labels"
    images.mkdir(parents=True)
    labels.mkdir()
    rng = np.random.default_rng(0)
    for i in range(count):
        array = np.full((160, 240, 3), 90, dtype=np.uint8)
        lines = []
        for j in range(4):
            x, y = 20 + 50 * j, 40 + 10 * (i % 3)
            cls = (i * 4 + j) % 3
            array[y:y + 40, x:x + 30] = [(230, 40, 40), (40, 230, 40), (40, 40, 230)][cls]
            array[y + 5:y + 10, x + 5:x + 25] = rng.integers(0, 255, 3)
            lines.append(f"{cls} {(x + 15) / 240:.5f} {(y + 20) / 160:.5f} {30 / 240:.5f} {40 / 160:.5f}")
        from PIL import Image

        Image.fromarray(array).save(images / f"{i:03d}.png")
        (labels / f"{i:03d}.txt").write_text("\n".join(lines) + "\n")
    return images


def test_crops_and_labels_come_from_yolo_folders(tmp_path):
    images = _labelled_folder(tmp_path)
    boxes, classes = read_yolo_labels(tmp_path / "labels" / "000.txt", 240, 160)
    assert boxes.shape == (4, 4) and np.allclose(boxes[0], [20, 40, 50, 80], atol=0.01)
    x, y = build_crops([images], copies=2, jitter=0.05, none_per_image=2, seed=1, progress=False)
    assert x.shape[1:] == (CROP_HEIGHT, CROP_WIDTH, 3)
    assert (y < 3).sum() == 3 * 4 * 2 and 0 < (y == NONE_ID).sum() <= 3 * 2
    again = build_crops([images], copies=2, jitter=0.05, none_per_image=2, seed=1, progress=False)
    assert np.array_equal(again[0], x) and np.array_equal(again[1], y)  # a seed gives the same crops


def test_flowers_and_seasons_can_be_cut_more_often_than_other_faces(tmp_path):
    from vision.classes import CLASS_NAMES
    from vision.classifier_training import BONUS_IDS

    assert sorted(CLASS_NAMES[i] for i in BONUS_IDS) == ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]
    images = _labelled_folder(tmp_path)
    label = tmp_path / "labels" / "000.txt"
    # the first box of photo 000 becomes a season (6f): the one face cut five times instead of twice
    first, *rest = label.read_text().splitlines()
    label.write_text("\n".join([f"{CLASS_NAMES.index('6f')} " + first.split(" ", 1)[1], *rest]) + "\n")
    _, plain = build_crops([images], copies=2, jitter=0.05, none_per_image=0, seed=1, progress=False)
    _, more = build_crops([images], copies=2, jitter=0.05, none_per_image=0, seed=1, progress=False,
                          bonus_copies=5)
    season = CLASS_NAMES.index("6f")
    assert (plain == season).sum() == 2 and (more == season).sum() == 5
    assert len(more) == len(plain) + 3


def test_one_epoch_of_training_exports_a_classifier_that_loads(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.classifier_training import export_onnx, predict, train_classifier

    images = _labelled_folder(tmp_path, count=6)
    x, y = build_crops([images], copies=4, jitter=0.05, none_per_image=2, seed=1, progress=False)
    model, history = train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=8, seed=0, threads=1,
                                      evaluations={"train": (x, y)})
    assert len(history) == 1 and 0 <= history[0]["train"] <= 1 and history[0]["loss"] > 0
    target = export_onnx(model, tmp_path / "classifier.onnx")
    classifier = TileClassifier(target)
    assert classifier.names == CLASSIFIER_NAMES and len(classifier.names) == NUM_CLASSES + 1
    probs = classifier.probabilities(x[:5])
    assert probs.shape == (5, NUM_CLASSES + 1) and np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    # ONNX answers what torch answers (read once, not also upside down)
    assert np.allclose(classifier.probabilities(x[:5], half_turn=False), predict(model, x[:5]), atol=1e-4)
    classes, scores = classifier.classify(x[:5])
    assert classes.shape == (5,) and np.all((0 <= scores) & (scores <= 1))
    assert not classifier.gives_features and classifier.read_features(x[:5])[1] is None
    # exported with its features too (what the detector compares between a photo's tiles): the same probabilities
    import torch

    with_features = TileClassifier(export_onnx(model, tmp_path / "features.onnx", features=True))
    assert with_features.gives_features and not with_features.draws_boxes
    probs_too, seen = with_features.read_features(x[:5])
    assert np.allclose(probs_too, probs, atol=1e-5) and seen.shape == (5, 8 * 8)
    model.eval()  # (torch.onnx.export leaves the wrapper it was given, and so the model, as it found them)
    with torch.no_grad():
        inputs = torch.from_numpy(x[:5]).permute(0, 3, 1, 2).float() / 255
        upright, upside_down = model[:-1](inputs), model[:-1](inputs.flip(2, 3))
    assert np.allclose(seen, ((upright + upside_down) / 2).numpy(), atol=1e-4)  # averaged over both ways up
    empty_probs, empty_seen = with_features.read_features(x[:0])
    assert empty_probs.shape == (0, NUM_CLASSES + 1) and empty_seen.shape == (0, 64)


class _TopHeavySession:
    """A stand-in onnxruntime session: "1m" when a crop's top half is brighter than its bottom, else "2m"."""

    def __init__(self):
        self.batches = []

    def run(self, _outputs, feeds):
        crops = next(iter(feeds.values()))  # N x 3 x H x W in 0..1
        self.batches.append(len(crops))
        half = crops.shape[2] // 2
        top_heavy = crops[:, :, :half].mean(axis=(1, 2, 3)) > crops[:, :, half:].mean(axis=(1, 2, 3))
        probs = np.zeros((len(crops), len(CLASSIFIER_NAMES)), dtype=np.float32)
        probs[np.arange(len(crops)), np.where(top_heavy, 0, 1)] = 1.0
        return [probs]


def test_each_crop_is_also_read_upside_down_and_the_readings_averaged():
    classifier = TileClassifier.__new__(TileClassifier)
    classifier.session, classifier.input_name, classifier.names = _TopHeavySession(), "crops", CLASSIFIER_NAMES
    crops = np.zeros((3, CROP_HEIGHT, CROP_WIDTH, 3), dtype=np.uint8)
    crops[:, :CROP_HEIGHT // 2] = 200  # bright on top: this reading says 1m, the upside-down one 2m
    probs = classifier.probabilities(crops)
    assert probs.shape == (3, len(CLASSIFIER_NAMES))
    assert np.allclose(probs[:, 0], 0.5) and np.allclose(probs[:, 1], 0.5)
    assert sum(classifier.session.batches) == 6
    single = classifier.probabilities(crops, half_turn=False)
    assert np.allclose(single[:, 0], 1.0) and np.allclose(single[:, 1], 0.0)


def test_training_can_start_from_earlier_weights(tmp_path):
    torch = pytest.importorskip("torch")
    from vision.classifier_training import train_classifier

    images = _labelled_folder(tmp_path, count=3)
    x, y = build_crops([images], copies=1, jitter=0.0, none_per_image=0, seed=1, progress=False)
    first, _ = train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=8, seed=0, threads=1)
    saved = tmp_path / "round1.pt"
    torch.save(first.state_dict(), saved)
    # a rate too small to move anything: the weights are the saved ones, not another seed's random ones
    again, _ = train_classifier(x, y, epochs=1, batch=16, lr=1e-12, width=8, seed=5, threads=1, init=saved)
    fresh, _ = train_classifier(x, y, epochs=1, batch=16, lr=1e-12, width=8, seed=5, threads=1)
    weight = "0.weight"
    assert torch.allclose(again.state_dict()[weight], first.state_dict()[weight], atol=1e-6)
    assert not torch.allclose(fresh.state_dict()[weight], first.state_dict()[weight], atol=1e-3)


def test_a_wider_network_starts_as_the_narrow_one_widened(tmp_path):
    """Stop 40: ``init`` of a narrower network is widened (``widen_state``): the wider network reads every crop as the
    narrow one did before it trains, and then trains on (its copies of a channel drift apart)."""
    torch = pytest.importorskip("torch")
    from vision.classifier_training import (WIDEN_NOISE, make_network, network_width, predict, train_classifier,
                                            widen_state)

    images = _labelled_folder(tmp_path, count=3)
    x, y = build_crops([images], copies=1, jitter=0.0, none_per_image=0, seed=1, progress=False)
    narrow, _ = train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=8, seed=0, threads=1)
    saved = tmp_path / "narrow.pt"
    torch.save(narrow.state_dict(), saved)
    wide = make_network(24).eval()
    wide.load_state_dict(widen_state(narrow.state_dict(), 3))
    assert network_width(wide.state_dict()) == 24
    assert np.allclose(predict(wide, x), predict(narrow, x), atol=1e-5)
    # through the recipe's door: a rate too small to move anything keeps the widened weights (a training epoch
    # moves the batch norms' running statistics whatever the rate, so the weights are compared, not the readings)
    kept, _ = train_classifier(x, y, epochs=1, batch=16, lr=1e-12, width=16, seed=5, threads=1, init=saved)
    widened = widen_state(narrow.state_dict(), 2, noise=WIDEN_NOISE, seed=5)
    assert network_width(kept.state_dict()) == 16
    for name in ("0.weight", "9.weight", "24.weight"):
        assert torch.allclose(kept.state_dict()[name], widened[name], atol=1e-6), name
    # the copies of a filter start a little apart (WIDEN_NOISE): without it they would get the same gradients
    first = kept.state_dict()["0.weight"]
    assert not torch.allclose(first[:8], first[8:], atol=1e-6)
    assert torch.allclose(first[:8], first[8:], atol=0.05)
    with pytest.raises(ValueError, match="whole multiple"):
        train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=12, seed=0, threads=1, init=saved)


def test_a_teacher_keeps_the_student_reading_as_it_did(tmp_path):
    """Stop 41, learning without forgetting: trained on from a network on labels that contradict it, a student with
    that network as its teacher (weight 1: the teacher's readings alone) keeps reading the crops as the teacher
    does, and one without a teacher learns the new labels instead; so does one whose teacher counts only where it
    reads the crop right (nowhere here)."""
    torch = pytest.importorskip("torch")
    from vision.classifier_training import predict, train_classifier

    images = _labelled_folder(tmp_path, count=3)
    x, y = build_crops([images], copies=2, jitter=0.0, none_per_image=0, seed=1, progress=False)
    first, _ = train_classifier(x, y, epochs=6, batch=16, lr=0.01, width=8, seed=0, threads=1)
    taught = predict(first, x).argmax(1)
    assert (taught == y).mean() > 0.9
    saved = tmp_path / "first.pt"
    torch.save(first.state_dict(), saved)
    swapped = (y + 1) % 3  # every crop now labelled as the next colour
    kept, _ = train_classifier(x, swapped, epochs=6, batch=16, lr=0.01, width=8, seed=0, threads=1, init=saved,
                               teacher=saved, distill_weight=1.0)
    moved, _ = train_classifier(x, swapped, epochs=6, batch=16, lr=0.01, width=8, seed=0, threads=1, init=saved)
    assert (predict(kept, x).argmax(1) == taught).mean() > 0.9
    assert (predict(moved, x).argmax(1) == swapped).mean() > 0.6 and (predict(moved, x).argmax(1) == taught).mean() < 0.4
    # distill_only_right: the teacher misreads (nearly) every crop now, so the labels teach, as without a teacher
    relearnt, _ = train_classifier(x, swapped, epochs=6, batch=16, lr=0.01, width=8, seed=0, threads=1, init=saved,
                                   teacher=saved, distill_weight=1.0, distill_only_right=True)
    relearnt_reads = predict(relearnt, x).argmax(1)
    assert (relearnt_reads == swapped).mean() > 0.6 and (relearnt_reads == taught).mean() < 0.4
    with pytest.raises(ValueError, match="weight in"):
        train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=8, seed=0, threads=1, teacher=saved,
                         distill_weight=0.0)


def test_channel_shuffle_puts_the_inks_in_any_channel_and_is_off_by_default():
    torch = pytest.importorskip("torch")
    from vision.classifier_training import augment

    batch = torch.zeros(90, 3, 8, 6)
    batch[:, 0] = 0.9  # a red crop

    def brightest(out):  # the brightest channel of each crop not turned grey (a tenth are)
        means = out.mean(dim=(2, 3))
        coloured = means.max(1).values - means.min(1).values > 0.1
        assert coloured.sum() > 60
        return set(means[coloured].argmax(1).tolist())

    plain = augment(batch.clone(), torch.Generator().manual_seed(0))
    assert brightest(plain) == {0}  # colour casts never swap the inks
    assert brightest(augment(batch.clone(), torch.Generator().manual_seed(0), channel_shuffle=1.0)) == {0, 1, 2}
    # off (0) draws nothing more from the generator: earlier recipes train exactly as before
    again = augment(batch.clone(), torch.Generator().manual_seed(0), channel_shuffle=0.0)
    assert torch.equal(again, plain)


def test_blur_spreads_a_point_three_ways_and_is_off_by_default():
    torch = pytest.importorskip("torch")
    from vision.classifier_training import augment, blurred

    batch = torch.zeros(300, 3, 64, 48)
    batch[:, :, 32, 24] = 1.0  # one bright point a crop
    out = blurred(batch, torch.Generator().manual_seed(0), 1.0)
    assert out.shape == batch.shape and torch.equal(batch[:, :, 32, 24], torch.ones(300, 3))  # the input is left
    assert (out[:, 0].amax(dim=(1, 2)) < 0.9).all()  # every crop blurred
    ys, xs = torch.meshgrid(torch.arange(64.0), torch.arange(48.0), indexing="ij")
    light = out[:, 0] / out[:, 0].sum(dim=(1, 2), keepdim=True)
    my, mx = (light * ys).sum(dim=(1, 2)), (light * xs).sum(dim=(1, 2))
    dy, dx = ys - my[:, None, None], xs - mx[:, None, None]
    spread = torch.stack([torch.stack([(light * dx * dx).sum(dim=(1, 2)), (light * dx * dy).sum(dim=(1, 2))], 1),
                          torch.stack([(light * dx * dy).sum(dim=(1, 2)), (light * dy * dy).sum(dim=(1, 2))], 1)], 1)
    small, large = torch.linalg.eigvalsh(spread).unbind(1)
    streaks = large > 4 * small  # a line's light spreads along it
    round_ones = (large < 1.5 * small) & (small > 0.15)
    assert streaks.sum() > 60 and round_ones.sum() > 60
    # out of focus and streaks keep the light (their kernels sum to one), away from the crop's edges
    kept = (out[:, 0].sum(dim=(1, 2)) - 1).abs() < 1e-4
    assert kept.sum() > 150
    # none blurred at 0, and a recipe without blur trains as before: nothing more is drawn from the generator
    assert torch.equal(blurred(batch, torch.Generator().manual_seed(0), 0.0), batch)
    plain = augment(batch.clone(), torch.Generator().manual_seed(5))
    assert torch.equal(augment(batch.clone(), torch.Generator().manual_seed(5), blur=0.0), plain)
    assert not torch.equal(augment(batch.clone(), torch.Generator().manual_seed(5), blur=0.5), plain)


def test_blur_must_be_a_share():
    pytest.importorskip("torch")
    from vision.classifier_training import train_classifier

    x = np.zeros((4, 64, 48, 3), np.uint8)
    with pytest.raises(ValueError, match="share of crops blurred"):
        train_classifier(x, np.zeros(4, np.int64), epochs=1, batch=4, width=8, threads=1, blur=1.5)


def test_a_classifier_with_a_box_head_redraws_the_localisers_loose_boxes():
    from tests.vision.fakes import BoxDrawingClassifier

    photo = photo_with_boxes(400, 300, [(40, 60, 80, 112), (120, 60, 200, 100)])  # upright, and lying sideways
    truth = np.array([[40, 60, 80, 112], [120, 60, 200, 100]], dtype=np.float32)

    def boxes(detections):
        return np.array(sorted(t.box for t in detections), dtype=np.float32)

    loose = fake_detector(classifier=BoxDrawingClassifier(), slack=4.0, refine_boxes=False).detect(photo)
    assert np.abs(boxes(loose) - truth).min() >= 4  # 4 px of the 320 px input is 5 px of the photo
    tight = fake_detector(classifier=BoxDrawingClassifier(), slack=4.0).detect(photo)
    assert np.abs(boxes(tight) - truth).max() <= 1.5


def test_training_with_a_box_head_exports_both_outputs(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from vision.classifier_training import export_onnx, make_network, train_classifier

    images = _labelled_folder(tmp_path, count=3)
    targets: list[np.ndarray] = []
    x, y = build_crops([images], copies=2, jitter=0.08, none_per_image=1, seed=1, progress=False, boxes=targets)
    targets = np.stack(targets)
    assert targets.shape == (len(x), 4)
    tiles = y != NONE_ID
    assert np.isnan(targets[~tiles]).all() and np.isfinite(targets[tiles]).all()
    # a jittered crop holds its tile's box near the margin the crop was cut with (8 % of 1.16)
    assert 0.0 < np.median(targets[tiles][:, 0]) < 0.15 and 0.85 < np.median(targets[tiles][:, 2]) < 1.0
    plain, _ = train_classifier(x, y, epochs=1, batch=16, lr=0.01, width=8, seed=0, threads=1)
    saved = tmp_path / "plain.pt"
    torch.save(plain.state_dict(), saved)
    model, history = train_classifier(x, y, epochs=1, batch=16, lr=1e-12, width=8, seed=0, threads=1, init=saved,
                                      train_boxes=targets, box_evaluations={"iou": (x, targets)})
    assert set(history[0]["iou"]) == {"drawn", "given"}
    # the plain classifier's weights started the body and the class head
    assert torch.allclose(model.classify.weight, plain.state_dict()["24.weight"], atol=1e-6)
    assert not hasattr(make_network(8), "both")
    target = export_onnx(model, tmp_path / "classifier.onnx")
    classifier = TileClassifier(target)
    assert classifier.draws_boxes
    probs, drawn = classifier.read(x[:5])
    assert probs.shape == (5, len(CLASSIFIER_NAMES)) and drawn.shape == (5, 4)
    # the half-turn reading's box is turned back before the two are averaged
    single = classifier.read(x[:5], half_turn=False)[1]
    turned = classifier.read(x[:5, ::-1, ::-1], half_turn=False)[1]
    assert np.allclose(drawn, (single + 1 - turned[:, [2, 3, 0, 1]]) / 2, atol=1e-5)


def test_a_half_turn_turns_the_box_targets_with_the_crops():
    torch = pytest.importorskip("torch")
    from vision.classifier_training import augment

    batch = torch.zeros(40, 3, 8, 6)
    batch[:, 0, :2, :2] = 1.0  # a bright corner at the top left, where the box is
    boxes = torch.tensor([[0.0, 0.0, 2 / 6, 2 / 8]]).repeat(40, 1)
    out, turned = augment(batch, torch.Generator().manual_seed(3), boxes=boxes)
    flipped = turned[:, 0] > 0.5
    assert 0 < int(flipped.sum()) < 40
    assert torch.allclose(turned[flipped], torch.tensor([4 / 6, 6 / 8, 1.0, 1.0]))
    assert (out[flipped][:, :, -1, -1].max(dim=1).values > out[flipped][:, :, 0, 0].max(dim=1).values).all()


def _with_sidecars(images, turned=()):
    """Sidecars beside a ``_labelled_folder``: each labelled box with its face's corners, upright (axis 90) unless
    its index is in ``turned`` (a quarter turn: axis 0); photo 002 gets none, as a real photo has none."""
    import json

    from PIL import Image

    sidecars = images.parent / "sidecars"
    sidecars.mkdir()
    for path in sorted(images.iterdir())[:2]:
        width, height = Image.open(path).size
        boxes, _ = read_yolo_labels(images.parent / "labels" / (path.stem + ".txt"), width, height)
        tiles = []
        for j, (x1, y1, x2, y2) in enumerate(boxes.tolist()):
            quad = [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]  # TL TR BR BL: upright
            if j in turned:
                quad = [[x1, y2], [x1, y1], [x2, y1], [x2, y2]]  # its top to the left
            tiles.append({"box": [x1, y1, x2, y2], "quad": quad, "labelled": True})
        tiles.append({"box": [0, 0, 5, 5], "quad": [[0, 0], [5, 0], [5, 5], [0, 5]], "labelled": False})
        (sidecars / (path.stem + ".json")).write_text(json.dumps({"tiles": tiles}))


def test_the_sidecar_gives_each_labelled_box_its_face_axis(tmp_path):
    from vision.classifier_training import sidecar_axes

    images = _labelled_folder(tmp_path)
    _with_sidecars(images, turned=(1,))
    boxes, _ = read_yolo_labels(tmp_path / "labels" / "000.txt", 240, 160)
    stray = np.array([[120, 120, 150, 158]], np.float32)  # a box no sidecar tile matches
    axes = sidecar_axes(images / "000.png", np.concatenate([boxes, stray]))
    assert axes[[0, 2, 3]].tolist() == pytest.approx([90, 90, 90]) and axes[1] == pytest.approx(0)
    assert np.isnan(axes[4])
    assert np.isnan(sidecar_axes(images / "002.png", boxes)).all()  # no sidecar: a real photo


def test_rendered_photos_also_give_upright_crops_and_real_ones_do_not(tmp_path):
    from vision.classifier_training import image_crops

    images = _labelled_folder(tmp_path)
    _with_sidecars(images, turned=(1,))
    rng = np.random.default_rng(0)
    plain, plain_labels = image_crops(images / "000.png", rng, copies=1, jitter=0.0, none_per_image=0)
    crops, labels = image_crops(images / "000.png", rng, copies=1, jitter=0.0, none_per_image=0, upright_copies=2,
                                axis_noise=0.0)
    assert len(plain) == 4 and len(crops) == 4 * 3  # each box: one as cut, two upright
    assert labels == [label for label in plain_labels for _ in range(3)]
    # the tile whose face lies a quarter turned: its upright crop is its crop as cut turned back
    upright, as_cut = crops[4], plain[1]
    assert upright.shape == as_cut.shape and not np.array_equal(upright, as_cut)
    real, _ = image_crops(images / "002.png", rng, copies=1, jitter=0.0, none_per_image=0, upright_copies=2)
    assert len(real) == 4  # no sidecar, no axis: crops as cut only
    with pytest.raises(ValueError, match="box target"):
        image_crops(images / "000.png", rng, copies=1, jitter=0.0, none_per_image=0, upright_copies=1, targets=[])


def test_crop_margins_can_be_drawn_from_a_range(tmp_path):
    from vision.classifier_training import image_crops

    images = _labelled_folder(tmp_path)
    narrow, _ = image_crops(images / "000.png", np.random.default_rng(0), copies=1, jitter=0.0, none_per_image=0,
                            margins=(0.0, 0.0))
    wide, _ = image_crops(images / "000.png", np.random.default_rng(0), copies=1, jitter=0.0, none_per_image=0,
                          margins=(0.4, 0.4))
    # the grey table round each tile takes a larger share of a crop cut with a wider margin
    grey = lambda crops: np.mean([(np.abs(c.astype(int) - 90).sum(axis=2) < 30).mean() for c in crops])  # noqa: E731
    assert grey(wide) > grey(narrow) + 0.2


def test_crops_cut_in_several_processes_are_the_same_for_any_number_of_them(tmp_path):
    images = _labelled_folder(tmp_path, count=5)
    _with_sidecars(images)
    settings = dict(copies=2, jitter=0.05, none_per_image=2, seed=3, progress=False, upright_copies=1,
                    margins=(0.04, 0.16))
    two = build_crops([images], workers=2, **settings)
    three = build_crops([images], workers=3, **settings)
    assert np.array_equal(two[0], three[0]) and np.array_equal(two[1], three[1])
    alone = build_crops([images], **settings)  # one process: one generator for every photo, as before
    assert len(alone[0]) == len(two[0]) - (len(two[1]) - len(alone[1]))  # the same boxes, other jitter
    assert sorted(alone[1][alone[1] != NONE_ID].tolist()) == sorted(two[1][two[1] != NONE_ID].tolist())


def test_parallel_map_keeps_the_order_of_its_items():
    from vision.classifier_training import parallel_map

    assert list(parallel_map(lambda n: n * n, range(20), 3)) == [n * n for n in range(20)]
    assert list(parallel_map(lambda n: -n, [4, 5], 0)) == [-4, -5]
