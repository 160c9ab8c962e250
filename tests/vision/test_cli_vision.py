"""mjscan detect / eval-detector / train: output formats and refusals (no traceback, exit status 2)."""

from __future__ import annotations

import json

import pytest

import vision.detector
from tests.vision.fakes import fake_detector, photo_with_boxes

BOXES = [(40, 60, 100, 140), (120, 60, 180, 140), (200, 80, 280, 120)]


@pytest.fixture
def fake_model(monkeypatch):
    """mjscan's Detector replaced by the red-box stand-in (the --model path is ignored)."""
    def make(model_path=None, *, confidence=0.25, **_):
        return fake_detector(320, confidence=confidence)

    monkeypatch.setattr(vision.detector, "Detector", make)


@pytest.fixture
def photos(tmp_path):
    a = tmp_path / "a.jpg"
    photo_with_boxes(640, 480, BOXES).save(a, quality=98)
    b = tmp_path / "b.png"
    photo_with_boxes(320, 200, BOXES[:1]).save(b)
    return str(a), str(b)


def test_detect_json_one_photo(cli, fake_model, photos):
    run = cli("detect", "--json", photos[0])
    assert run.status == 0, run.err
    data = json.loads(run.out)
    assert data["path"] == photos[0] and data["image"] == {"width": 640, "height": 480}
    assert len(data["tiles"]) == 3 and {t["code"] for t in data["tiles"]} == {"4m"}
    assert [t["sideways"] for t in sorted(data["tiles"], key=lambda t: t["box"][0])] == [False, False, True]


def test_detect_several_photos_one_line_each_and_drawings(cli, fake_model, photos, tmp_path):
    run = cli("detect", "--json", *photos, "--draw", str(tmp_path / "out.jpg"))
    assert run.status == 0, run.err
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert [line["path"] for line in lines] == list(photos)
    assert [len(line["tiles"]) for line in lines] == [3, 1]
    assert (tmp_path / "out-a.jpg").is_file() and (tmp_path / "out-b.jpg").is_file()


def test_detect_writes_yolo_labels_for_a_labelling_tool(cli, fake_model, photos, tmp_path):
    """``--labels DIR``: each photo's tiles as a YOLO file (the boxes read back as found, class 3 = 4m) and the class
    names in order; a label file that exists (a person's corrections) is never overwritten; two photos of one name
    are refused before anything is written."""
    from datasets.labels import read_yolo
    from vision.classes import CLASS_NAMES

    out = tmp_path / "labels"
    run = cli("detect", "--json", *photos, "--labels", str(out))
    assert run.status == 0, run.err
    found = json.loads(run.out.splitlines()[0])
    assert (out / "classes.txt").read_text().split() == list(CLASS_NAMES)
    rows = read_yolo(out / "a.txt", 640, 480)
    assert sorted(cls for cls, _ in rows) == [3, 3, 3]
    for (_, box), tile in zip(sorted(rows), sorted(found["tiles"], key=lambda t: t["box"])):
        assert box == pytest.approx(tile["box"], abs=0.01)
    assert len(read_yolo(out / "b.txt", 320, 200)) == 1

    (out / "a.txt").write_text("3 0.5 0.5 0.1 0.1\n")  # corrected by hand
    run = cli("detect", photos[0], "--labels", str(out))
    assert run.status == 2 and "exists already" in run.err and "Traceback" not in run.err
    assert (out / "a.txt").read_text() == "3 0.5 0.5 0.1 0.1\n"

    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "a.jpg").write_bytes(open(photos[0], "rb").read())
    run = cli("detect", photos[0], str(twin / "a.jpg"), "--labels", str(tmp_path / "fresh"))
    assert run.status == 2 and "several photos are named 'a'" in run.err and not (tmp_path / "fresh").exists()


def test_detect_text_output_and_threshold(cli, fake_model, photos):
    run = cli("detect", photos[0])
    assert run.status == 0 and "3 tiles in 640x480" in run.out and "sideways" in run.out
    assert "0 tiles" in cli("detect", "--conf", "0.95", photos[0]).out


def test_detect_bad_files_exit_2_without_traceback(cli, fake_model, photos, tmp_path):
    bad = tmp_path / "bad.jpg"
    bad.write_text("hello")
    run = cli("detect", "--json", photos[0], str(bad), str(tmp_path / "missing.jpg"))
    assert run.status == 2
    assert len(run.out.splitlines()) == 1  # the good photo is still read
    assert "Cannot read" in run.err and "No such file" in run.err and "Traceback" not in run.err
    assert cli("detect", "--conf", "2", photos[0]).status == 2


def test_detect_without_a_model(cli, photos, tmp_path):
    run = cli("detect", "--model", str(tmp_path / "none.onnx"), photos[0])
    assert run.status == 2 and "No detector model" in run.err and "Traceback" not in run.err


def test_eval_detector_on_a_folder(cli, fake_model, tmp_path):
    data = tmp_path / "set"
    (data / "images").mkdir(parents=True)
    (data / "labels").mkdir()
    photo_with_boxes(640, 480, BOXES).save(data / "images" / "x.png")
    (data / "labels" / "x.txt").write_text("".join(
        f"3 {(x1 + x2) / 1280} {(y1 + y2) / 960} {(x2 - x1) / 640} {(y2 - y1) / 480}\n" for x1, y1, x2, y2 in BOXES))
    out = tmp_path / "report"
    run = cli("eval-detector", str(data), "--out", str(out), "--json")
    assert run.status == 0, run.err
    report = json.loads(run.out)
    assert report["mAP50"] == 1.0 and report["exact_photos"] == 1.0 and report["precision"] == 1.0
    assert (out / "confusion.png").is_file() and json.loads((out / "report.json").read_text())["images"] == 1
    text = cli("eval-detector", str(data), "--out", str(out), "--classes", "riichi")
    assert text.status == 0 and "mAP50 1.0000" in text.out
    # a second photo whose labels are wrong (a tile that is not there), then left out by name
    photo_with_boxes(640, 480, BOXES).save(data / "images" / "wrong.png")
    (data / "labels" / "wrong.txt").write_text("5 0.9 0.9 0.05 0.05\n")
    both = json.loads(cli("eval-detector", str(data), "--out", str(out), "--json").out)
    assert both["images"] == 2 and both["exact_photos"] == 0.5
    listed = tmp_path / "label-errors.txt"
    listed.write_text("# labelled wrong\nwrong.png\n")
    left_out = json.loads(cli("eval-detector", str(data), "--out", str(out), "--json", "--exclude", str(listed)).out)
    assert left_out["images"] == 1 and left_out["exact_photos"] == 1.0 and left_out["excluded"] == ["wrong"]
    # two lists: the photos of both are left out
    (data / "images" / "also.png").write_bytes((data / "images" / "wrong.png").read_bytes())
    (data / "labels" / "also.txt").write_text("5 0.9 0.9 0.05 0.05\n")
    second = tmp_path / "tile-label-errors.txt"
    second.write_text("also  # a tile labelled as another\n")
    one = json.loads(cli("eval-detector", str(data), "--out", str(out), "--json", "--exclude", str(listed)).out)
    assert one["images"] == 2 and one["exact_photos"] == 0.5
    two = json.loads(cli("eval-detector", str(data), "--out", str(out), "--json", "--exclude", str(listed),
                         "--exclude", str(second)).out)
    assert two["images"] == 1 and two["exact_photos"] == 1.0 and two["excluded"] == ["also", "wrong"]
    missing = cli("eval-detector", str(data), "--out", str(out), "--exclude", str(tmp_path / "nope.txt"))
    assert missing.status == 2 and "nope.txt" in missing.err and "Traceback" not in missing.err


@pytest.mark.parametrize("line, said", [
    ("99 0.5 0.5 0.1 0.1", "class 99 is not one of the 43 classes"),
    ("3 0.5 0.5 0.1", "a label line is 'class x_centre y_centre width height'"),
    ("3 0.5 0.5 0.1 0.1 0.2 0.3 0.4 0.5", "a label line is"),  # an oriented box or a polygon: boxes only
    ("3 0.5 0.5 wide 0.1", "five numbers"),
    ("3 0.5 1.5 0.1 0.1", "each from 0 to 1"),
    ("3.5 0.5 0.5 0.1 0.1", "class 3.5"),
])
def test_eval_detector_refuses_a_label_it_cannot_read(cli, fake_model, tmp_path, line, said):
    """A label line read wrong, or skipped, would score the detector against labels nobody gave: until stop 55 a
    class out of range or a short line was dropped silently."""
    data = tmp_path / "set"
    (data / "images").mkdir(parents=True)
    (data / "labels").mkdir()
    photo_with_boxes(640, 480, BOXES).save(data / "images" / "x.png")
    (data / "labels" / "x.txt").write_text("3 0.2 0.2 0.1 0.1\n\n" + line + "\n")
    run = cli("eval-detector", str(data), "--out", str(tmp_path / "report"))
    assert run.status == 2 and said in run.err and "x.txt, line 3" in run.err and "Traceback" not in run.err


def test_eval_detector_refuses_a_folder_without_labels(cli, fake_model, tmp_path):
    data = tmp_path / "set"
    (data / "images").mkdir(parents=True)
    photo_with_boxes(640, 480, BOXES).save(data / "images" / "x.png")
    run = cli("eval-detector", str(data), "--out", str(tmp_path / "report"))
    assert run.status == 2 and "no labels/" in run.err and "Traceback" not in run.err


def test_eval_detector_each_alone_turns_the_look_alike_reading_off(monkeypatch):
    """``--each-alone`` builds the detector with ``share_readings`` off (``vision.sibling_readings``)."""
    from mjscan import cli
    from vision import detector as detector_module

    built = []
    monkeypatch.setattr(detector_module, "Detector", lambda *a, **options: built.append(options) or object())
    cli._load_detector(None, None)
    cli._load_detector(None, None, each_alone=True)
    cli._load_detector(None, 0.3, True, True)
    assert [options["share_readings"] for options in built] == [True, False, False]
    assert built[2]["confidence"] == 0.3 and built[2]["read_upright"] is False  # with --fast's reading


def test_every_crop_reads_every_box_from_all_its_crops(monkeypatch):
    """``--every-crop`` (eval-detector, eval-grouping) builds the detector without ``SURE_READING``."""
    from mjscan import cli
    from vision import detector as detector_module

    built = []
    monkeypatch.setattr(detector_module, "Detector", lambda *a, **options: built.append(options) or object())
    cli._load_detector(None, None)
    cli._load_detector(None, None, every_crop=True)
    assert "sure_reading" not in built[0] and built[1]["sure_reading"] is None
    parser = cli.build_parser()
    for command in (["eval-detector", "data"], ["eval-grouping", "data", "--detector"]):
        assert parser.parse_args(command + ["--every-crop"]).every_crop is True
        assert parser.parse_args(command).every_crop is False


def test_eval_detector_refuses_a_folder_without_images(cli, fake_model, tmp_path):
    run = cli("eval-detector", str(tmp_path))
    assert run.status == 2 and "images/" in run.err
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    run = cli("eval-detector", str(tmp_path), "--out", str(tmp_path / "r"))
    assert run.status == 2 and "no photos" in run.err


def test_train_refuses_a_missing_config(cli, tmp_path):
    run = cli("train", "--config", str(tmp_path / "none.yaml"))
    assert run.status == 2 and "Cannot read the config" in run.err


def test_train_configs_name_every_setting():
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    localiser_chain = ("detector-scratch", "localizer-round2", "localizer-round3", "localizer-round4", "localizer-round5",
                       "localizer-round6", "detector")
    classifier_chain = ("classifier-round1", "classifier-round2", "classifier-round3", "classifier-round4",
                        "classifier-round5")
    later_rounds = ("classifier-average45", "classifier-round7", "classifier-round8", "classifier-round9",
                    "classifier-average-s13", "classifier-round10", "classifier-round11", "classifier-average-s13-11",
                    "classifier-round12", "classifier-average-s14-12", "classifier-round13", "classifier-round13-long",
                    "classifier-round13-as-cut", "classifier-round17b", "classifier-round17c", "classifier-round18-cpu")
    configs = {name: yaml.safe_load((repo / "configs" / f"{name}.yaml").read_text())
               for name in (*localiser_chain, *classifier_chain, *later_rounds, "classifier", "classifier-round17",
                            "classifier-boxhead")}
    for name in localiser_chain:
        for key in ("model", "imgsz", "epochs", "batch", "seed", "data", "export"):
            assert key in configs[name]
        specs = configs[name]["data"]["synthetic"]
        assert all(spec["seed"] is not None for spec in (specs if isinstance(specs, list) else [specs]))
    # nothing is downloaded: stage 0 starts from an architecture file, its checkpoint ships in the repository,
    # and every later round starts from the run the round before it writes
    assert configs["detector-scratch"]["model"].endswith(".yaml")
    assert configs["localizer-round2"]["model"] == "models/detector-cpu.pt"
    assert (repo / configs["localizer-round2"]["model"]).is_file()
    for before, after in zip(localiser_chain[1:], localiser_chain[2:]):
        run = configs[before]["run"]
        assert configs[after]["model"] == f"{run['project']}/{run['name']}/weights/last.pt"
        assert configs[after]["single_cls"] is True
        # the rounds on the CPU keep 320 px; the GPU round (the shipped one) reads 640 and exports a free input size
        if after == "detector":
            assert configs[after]["imgsz"] == 640 and configs[after]["export"]["dynamic"] is True
            assert configs[after]["device"] == 0 and configs[after]["data"]["real_train_repeat"] == 3
        else:
            assert configs[after]["imgsz"] == configs[before]["imgsz"] == 320
    assert configs["classifier-round1"].get("init") is None
    for before, after in zip(classifier_chain, classifier_chain[1:]):
        run = configs[before]["run"]
        assert configs[after]["init"] == f"{run['project']}/{run['name']}/classifier.pt"
        assert configs[after]["task"] == "classifier"
    def weights(name):
        return f"{configs[name]['run']['project']}/{configs[name]['run']['name']}/classifier.pt"

    # the stop-12 classifier is the mean of rounds 4 and 5; rounds 7 and 8 go on from it; the shipped classifier
    # is the mean of the stop-12 one and round 8
    assert configs["classifier-average45"]["task"] == "classifier-average"
    assert configs["classifier-average45"]["average"] == [weights(name) for name in classifier_chain[-2:]]
    assert configs["classifier-round7"]["init"] == weights("classifier-average45")
    assert configs["classifier-round8"]["init"] == weights("classifier-round7")
    assert configs["classifier-round8"]["crops"]["false_boxes"]["localiser"] == "models/detector.onnx"
    assert configs["classifier-round9"]["init"] == weights("classifier-round8")  # measured, not shipped
    assert configs["classifier-round10"]["init"] == weights("classifier-average-s13")  # round 7's false boxes
    assert configs["classifier-round11"]["init"] == weights("classifier-average-s13")  # only boxes touching no label
    assert configs["classifier-round11"]["crops"]["false_boxes"]["max_iou"] < configs["classifier-round10"]["crops"][
        "false_boxes"]["max_iou"]
    # localiser round 8 (measured, not shipped) goes on from round 7's run
    round8 = yaml.safe_load((repo / "configs" / "localizer-round8.yaml").read_text())
    run = configs["detector"]["run"]
    assert round8["model"] == f"{run['project']}/{run['name']}/weights/last.pt" and round8["imgsz"] == 640
    assert not round8["export"]["onnx"].startswith("models/")
    assert configs["classifier-average-s13"]["task"] == "classifier-average"
    assert configs["classifier-average-s13"]["average"] == [weights("classifier-average45"), weights("classifier-round8")]
    # the stop-14 classifier: the stop-13 one averaged with round 11, which went on from it
    assert configs["classifier-average-s13-11"]["task"] == "classifier-average"
    assert configs["classifier-average-s13-11"]["average"] == [weights("classifier-average-s13"),
                                                               weights("classifier-round11")]
    # the stop-15 classifier: the stop-14 one averaged with round 12 (flowers cut more often), which went on from it
    assert configs["classifier-round12"]["init"] == weights("classifier-average-s13-11")
    assert configs["classifier-round12"]["crops"]["bonus_copies"] > configs["classifier-round12"]["crops"]["copies"]
    assert configs["classifier-average-s14-12"]["task"] == "classifier-average"
    assert configs["classifier-average-s14-12"]["average"] == [weights("classifier-average-s13-11"),
                                                               weights("classifier-round12")]
    # round 13 went on from it on a GPU, with upright crops (its two variants too); the shipped classifier (stop 19)
    # is round 13 trained on with every real photo, on the CPU
    for name in ("classifier-round13", "classifier-round13-long", "classifier-round13-as-cut"):
        assert configs[name]["init"] == weights("classifier-average-s14-12") and configs[name]["device"] == "cuda"
    assert configs["classifier-round13"]["crops"]["upright_copies"] > 0
    assert configs["classifier-round13-as-cut"]["crops"]["upright_copies"] == 0
    assert configs["classifier"]["task"] == "classifier"
    assert configs["classifier"]["init"] == weights("classifier-round13")
    assert configs["classifier"].get("device", "cpu") == "cpu" and configs["classifier"]["crops"]["upright_copies"] > 0
    # round 17 (shipped at stop 24) went on from it on a GPU, its real tiles cut more often than the rendered ones;
    # 17b and 17c are its variants from the same start, round 18 a CPU round after it (measured, not shipped)
    for name in ("classifier-round17", "classifier-round17b", "classifier-round17c"):
        assert configs[name]["init"] == weights("classifier") and configs[name]["device"] == "cuda"
        assert configs[name]["crops"]["real_copies"] > configs[name]["crops"]["copies"]
    assert configs["classifier-round18-cpu"]["init"] == weights("classifier-round17")
    # only the last round of each chain writes into models/
    assert configs["detector"]["export"]["onnx"] == "models/detector.onnx"
    assert configs["classifier-round17"]["export"]["onnx"] == "models/classifier.onnx"
    assert all(not configs[name]["export"]["onnx"].startswith("models/")
               for name in (*localiser_chain[:-1], *classifier_chain, *later_rounds, "classifier", "classifier-boxhead"))


def test_mjscan_read_text_names_a_tile_read_again():
    from dataclasses import replace

    from mjscan.cli import format_reading
    from scorer.tiles import Tile
    from tests.vision.test_grouping import MELD_Y, scene
    from vision.grouping import group

    truth = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 9p | 9p"), (MELD_Y, "5s' 5s 5s")])
    tiles = list(truth.tiles)
    k = next(i for i, t in enumerate(tiles) if t.code_str == "8s")
    tiles[k] = replace(tiles[k], code=Tile.parse("6s"), alternatives=((Tile.parse("8s"), 0.5 * tiles[k].confidence),))
    text = format_reading(group(replace(truth, tiles=tuple(tiles))))
    assert f"read again: detection {k}, 6s read as 8s (its confidence 0.50 of the first reading's)" in text
    assert "note: The tiles as read made no winning hand" in text


def test_mjscan_read_text_names_a_box_taken_for_no_tile():
    from dataclasses import replace

    from mjscan.cli import format_reading
    from tests.vision.test_grouping import MELD_Y, scene
    from vision.grouping import group

    truth = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 9p | 9p"), (MELD_Y, "5s' 5s 5s 7m")])
    tiles = list(truth.tiles)
    k = next(i for i, t in enumerate(tiles) if t.code_str == "7m")
    tiles[k] = replace(tiles[k], confidence=0.25, alternatives=())
    text = format_reading(group(replace(truth, tiles=tuple(tiles))))
    assert f"read again: detection {k}, 7m taken for no tile (the odds against a tile 3.00)" in text
    assert f"ignored detection {k} (7m): taken for no tile" in text


def test_detect_text_shows_the_runner_up_of_an_unsure_tile():
    from mjscan.cli import _format_detections
    from scorer.tiles import Tile
    from vision.detections import Detection, Detections

    tiles = (Detection(Tile.parse("5f"), (10, 10, 40, 50), 0.34, alternatives=((Tile.parse("4z"), 0.2),
                                                                              (Tile.parse("8f"), 0.02))),
             Detection(Tile.parse("3m"), (50, 10, 80, 50), 0.9, alternatives=((Tile.parse("2m"), 0.05),)))
    text = _format_detections("p.jpg", Detections(100, 60, tiles))
    assert "5f  0.34  [10, 10, 40, 50]  (or 4z 0.20)" in text  # 8f is under a tenth of 0.34: not shown
    assert "3m  0.90  [50, 10, 80, 50]\n" in text  # 2m is a eighteenth as likely: a sure reading


def test_fast_reads_with_one_crop_a_box_and_no_mirrored_passes(cli, photos, monkeypatch):
    from vision.detector import FAST_READING

    built = []

    def make(model_path=None, *, confidence=0.25, **options):
        built.append(options)
        return fake_detector(320, confidence=confidence)

    monkeypatch.setattr(vision.detector, "Detector", make)
    assert cli("detect", "--json", photos[0]).status == 0
    assert cli("detect", "--json", "--fast", photos[0]).status == 0
    assert built == [{"share_readings": True}, {**FAST_READING, "share_readings": True}]
