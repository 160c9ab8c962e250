"""Finding the photo reader: none until vision/ has a detector and models/ a model; the adapter to
vision/'s interface; the stand-in FixedScanner."""

from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import dataclass

import pytest
from PIL import Image

from scorer import parse_hand
from scorer.codec import hand_to_dict
from server import create_app
from server.scanning import FixedScanner, VisionScanner, find_scanner, layout_detection
from vision.grouping import NOT_DECLARED


def test_the_shipped_detector_is_found_when_there_is_one():
    """None while vision/ has no detector or models/ no model; the vision adapter once both are there."""
    from server.scanning import MODELS_DIR

    shipped = importlib.util.find_spec("vision.detector") is not None and any(MODELS_DIR.glob("*.onnx"))
    scanner = find_scanner()
    assert (scanner is not None) == shipped
    assert isinstance(scanner, VisionScanner) or scanner is None
    assert (create_app({"TESTING": True}).config["SCANNER"] is not None) == shipped


def test_the_shipped_detector_reads_the_test_photo_end_to_end():
    """Once a detector and a model are there: the photo through the real /api/scan, no fake."""
    if find_scanner() is None:
        pytest.skip("no detector yet (vision.detector and models/*.onnx)")
    from tests.server.helpers import PHOTO, upload

    client = create_app({"TESTING": True}).test_client()
    assert client.get("/api/health").get_json()["detector"] is True
    response = upload(client, PHOTO.read_bytes())
    assert response.status_code == 200, response.get_data(as_text=True)
    data = response.get_json()
    assert data["detection"]["image"] == {"width": 640, "height": 640}
    melds = len((data["hand"] or {}).get("melds") or [])
    for tile in data["detection"]["tiles"]:
        assert 0 <= tile["box"][0] < tile["box"][2] <= 640 and 0 <= tile["box"][1] < tile["box"][3] <= 640
        group = tile.get("group")  # the grouping's, whatever the model read (docs/server.md)
        assert group in (None, "concealed", "winning", "flowers") or (
            group.startswith("meld:") and (data["hand"] is None or int(group[5:]) < melds)), group


def test_the_shipped_detector_says_how_to_take_a_better_photo():
    """/api/scan with the shipped model: the test photo as taken gets no advice; blurred by 2.5 pixels (its tiles are
    some 90 pixels wide, and the detector then finds 6 of its 18), ``photo_advice`` says so (vision.photo_advice),
    and the reading is answered all the same."""
    if find_scanner() is None:
        pytest.skip("no detector yet (vision.detector and models/*.onnx)")
    import io

    from PIL import ImageFilter

    from tests.server.helpers import PHOTO, upload

    client = create_app({"TESTING": True}).test_client()
    sharp = upload(client, PHOTO.read_bytes()).get_json()
    assert sharp["photo_advice"] == []
    buffer = io.BytesIO()
    with Image.open(PHOTO) as photo:
        photo.convert("RGB").filter(ImageFilter.GaussianBlur(2.5)).save(buffer, "JPEG", quality=95)
    response = upload(client, buffer.getvalue())
    assert response.status_code == 200
    blurred = response.get_json()
    assert [a["kind"] for a in blurred["photo_advice"]] == ["blurred"]
    advice = blurred["photo_advice"][0]
    assert advice["measured"] < advice["limit"] == 2.0 and "hold the phone still" in advice["message"]
    assert blurred["detection"]["tiles"]


@pytest.fixture
def fake_vision(monkeypatch):
    """vision.detector and vision.grouping modules as vision/ might write them."""

    @dataclass
    class Detections:
        tiles: list
        size: tuple

        def to_dict(self):
            return {"image": {"width": self.size[0], "height": self.size[1]},
                    "tiles": [{"code": c, "box": [0, 0, 1, 1], "confidence": 0.9, "sideways": False}
                              for c in self.tiles]}

    class Detector:
        loaded: list = []

        def __init__(self, path):
            Detector.loaded.append(path)

        def detect(self, image):
            return Detections(["1m", "back"], image.size)

    @dataclass
    class Reading:
        hand: object
        questions: list

    detector = types.ModuleType("vision.detector")
    detector.Detector = Detector
    grouping = types.ModuleType("vision.grouping")
    grouping.group = lambda detections: Reading(parse_hand("123m 456m 789m 234p 5s +5s"),
                                                [{"id": "q", "text": "?", "choices": ["a"]}])
    monkeypatch.setitem(sys.modules, "vision.detector", detector)
    monkeypatch.setitem(sys.modules, "vision.grouping", grouping)
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args):
        if name in ("vision.detector", "vision.grouping"):
            return importlib.machinery.ModuleSpec(name, None)
        return real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    return Detector


def test_a_detector_needs_a_model_file(fake_vision, tmp_path):
    assert find_scanner(tmp_path) is None
    assert find_scanner(tmp_path / "missing") is None
    (tmp_path / "notes.txt").write_text("x")
    assert find_scanner(tmp_path) is None
    (tmp_path / "classifier.onnx").write_bytes(b"")  # a two-stage detector's tile classifier alone: no detector
    (tmp_path / "bonus.onnx").write_bytes(b"")  # nor its bonus reader
    assert find_scanner(tmp_path) is None
    (tmp_path / "b.onnx").write_bytes(b"")
    (tmp_path / "a.onnx").write_bytes(b"")
    assert find_scanner(tmp_path).model_path == tmp_path / "a.onnx"
    (tmp_path / "detector.onnx").write_bytes(b"")
    scanner = find_scanner(tmp_path)
    assert isinstance(scanner, VisionScanner) and scanner.model_path == tmp_path / "detector.onnx"
    assert fake_vision.loaded == []  # nothing loads before the first photo


def test_the_vision_adapter_answers_a_reading(fake_vision, tmp_path):
    (tmp_path / "detector.onnx").write_bytes(b"")
    scanner = find_scanner(tmp_path)
    reading = scanner.scan(Image.new("RGB", (30, 20)))
    assert fake_vision.loaded == [tmp_path / "detector.onnx"]
    assert reading["detection"]["image"] == {"width": 30, "height": 20}
    assert [t["code"] for t in reading["detection"]["tiles"]] == ["1m", "back"]
    assert reading["hand"] == hand_to_dict(parse_hand("123m 456m 789m 234p 5s +5s"))
    assert reading["questions"] == [{"id": "q", "text": "?", "choices": ["a"]}]
    scanner.scan(Image.new("RGB", (30, 20)))
    assert len(fake_vision.loaded) == 1  # loaded once


def test_the_first_photos_at_once_load_the_model_once(fake_vision, tmp_path):
    import threading
    import time

    real_init = fake_vision.__init__

    def slow_init(self, path):  # loading a model takes a while: other threads' photos arrive meanwhile
        time.sleep(0.2)
        real_init(self, path)

    fake_vision.__init__ = slow_init
    fake_vision.loaded.clear()
    scanner = VisionScanner(tmp_path / "detector.onnx")
    readings = []
    threads = [threading.Thread(target=lambda: readings.append(scanner.scan(Image.new("RGB", (8, 8)))))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(readings) == 6 and fake_vision.loaded == [tmp_path / "detector.onnx"]


def test_the_adapter_without_grouping_gives_no_hand(fake_vision, tmp_path, monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.startswith("vision.group") else real_find_spec(name, *a))
    monkeypatch.setitem(sys.modules, "vision.detector", sys.modules["vision.detector"])
    scanner = VisionScanner(tmp_path / "m.onnx")
    reading = scanner.scan(Image.new("RGB", (8, 8)))
    assert reading["hand"] is None and reading["questions"] == []


def test_the_app_serves_the_found_detector(fake_vision, tmp_path, monkeypatch):
    import server.scanning

    (tmp_path / "detector.onnx").write_bytes(b"")
    monkeypatch.setattr(server.scanning, "MODELS_DIR", tmp_path)
    app = create_app({"TESTING": True})
    assert isinstance(app.config["SCANNER"], VisionScanner)
    assert app.test_client().get("/api/health").get_json()["detector"] is True


def test_fixed_scanner_lays_the_hand_out_as_the_camera_guide_says():
    hand = "123m 5s [4'56m] [77'7z] (6666z) 15f +5s"
    reading = FixedScanner(hand).scan(Image.new("RGB", (1600, 400)))
    assert reading["hand"] == hand_to_dict(parse_hand(hand))
    tiles = reading["detection"]["tiles"]
    codes = [t["code"] for t in tiles]
    assert codes == ["1m", "2m", "3m", "5s", "5s", "4m", "5m", "6m", "7z", "7z", "7z", "back", "6z", "6z", "back",
                     "1f", "5f"]
    assert [t["group"] for t in tiles][:6] == ["concealed"] * 4 + ["winning", "meld:0"]
    sideways = [(t["code"], t["group"]) for t in tiles if t["sideways"]]
    assert sideways == [("4m", "meld:0"), ("7z", "meld:1")]
    assert [t["sideways"] for t in tiles[8:11]] == [False, True, False]  # claimed from across: in the middle
    xs = [t["box"][0] for t in tiles]
    assert xs == sorted(xs) and all(0 <= t["box"][0] < t["box"][2] <= 1600 for t in tiles)
    for t in tiles:
        width, height = t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]
        assert (width > height) == t["sideways"]


def test_layout_detection_fits_any_image():
    hand = hand_to_dict(parse_hand("19m 19p 19s 1234567z +1m"))
    for size in ((50, 2000), (4032, 3024), (10, 10)):
        detection = layout_detection(hand, *size)
        assert detection["image"] == {"width": size[0], "height": size[1]}
        assert all(0 <= v <= max(size) for t in detection["tiles"] for v in t["box"])


@pytest.fixture
def fake_detector(monkeypatch):
    """A fake vision.detector whose Detector answers real vision.detections.Detections (the detection
    JSON in ``Detector.answer``), so the real vision.grouping reads them: the adapter's whole path, no model."""
    from vision.detections import Detections

    class Detector:
        answer: dict = {}

        def __init__(self, path):
            self.path = path

        def detect(self, image):
            return Detections.from_dict(Detector.answer)

    detector = types.ModuleType("vision.detector")
    detector.Detector = Detector
    monkeypatch.setitem(sys.modules, "vision.detector", detector)
    return Detector


def _untagged(detection):
    return {**detection, "tiles": [{k: v for k, v in t.items() if k != "group"} for t in detection["tiles"]]}


def test_the_adapter_tags_the_detection_with_the_groupings_groups(fake_detector, tmp_path):
    """vision.grouping's Reading.tag_detection: each used box carries its group in the hand, so the page
    colours the photo by the grouping's real groups (not by matching codes)."""
    hand = "123m 5s [4'56m] [77'7z] (6666z) 15f +5s"
    laid_out = layout_detection(hand_to_dict(parse_hand(hand)), 1600, 400)
    fake_detector.answer = _untagged(laid_out)
    reading = VisionScanner(tmp_path / "detector.onnx").scan(Image.new("RGB", (1600, 400)))
    assert reading["hand"] == hand_to_dict(parse_hand(hand)) and reading["questions"] == []
    tiles = reading["detection"]["tiles"]
    assert [t["group"] for t in tiles] == [t["group"] for t in laid_out["tiles"]]
    # the spec's fields are all kept, unchanged; group is only added
    assert [{k: v for k, v in t.items() if k != "group"} for t in tiles] == fake_detector.answer["tiles"]


def test_scan_answers_the_groups_through_the_api(fake_detector, tmp_path):
    """/api/scan with the vision adapter: the detection's groups name the answered hand's parts (meld:N is
    hand.melds[N]); a detection the grouping did not use has no group."""
    hand = hand_to_dict(parse_hand("234p 5s [4'56m] [7'89m] (7777z) 3f +5s"))
    detection = _untagged(layout_detection(hand, 1600, 400))
    misread = dict(detection["tiles"][0], code="9s", confidence=0.4)  # a weaker second box on the first tile
    detection["tiles"].append(misread)
    fake_detector.answer = detection
    client = create_app({"TESTING": True, "SCANNER": VisionScanner(tmp_path / "detector.onnx")}).test_client()
    from tests.server.helpers import image_bytes, upload

    response = upload(client, image_bytes(size=(1600, 400)), self_drawn="true")
    assert response.status_code == 200, response.get_data(as_text=True)
    data = response.get_json()
    assert set(data) >= {"rules", "detection", "hand", "score", "questions"}
    assert data["score"]["rules"] == "mcr" and data["hand"]["context"]["self_drawn"] is True
    assert {**data["hand"], "context": {}} == {**hand, "context": {}}
    tiles = data["detection"]["tiles"]
    assert all({"code", "box", "confidence", "sideways"} <= set(t) for t in tiles)
    assert "group" not in tiles[-1]  # the grouping ignored the weaker box: not in the hand
    groups: dict[str, list[str]] = {}
    for tile in tiles[:-1]:
        groups.setdefault(tile["group"], []).append(tile["code"])
    answered = data["hand"]
    assert sorted(groups) == ["concealed", "flowers", "meld:0", "meld:1", "meld:2", "winning"]
    assert groups["winning"] == [answered["winning_tile"]]
    assert sorted(groups["concealed"] + groups["winning"]) == sorted(answered["concealed"])
    assert groups["flowers"] == answered["flowers"]
    for n, meld in enumerate(answered["melds"]):
        shown = [c for c in groups[f"meld:{n}"] if c != "back"]
        assert sorted(shown) == sorted(meld["tiles"])[:len(shown)] and set(shown) <= set(meld["tiles"])


def test_label_only_choices_get_the_hand_they_lead_to(fake_detector, tmp_path):
    """A pung read without a sideways tile: the real grouping asks whose discard was claimed with bare
    labels; the adapter gives each choice the whole hand it leads to (Reading.answer), so the page can
    take it like any other choice."""
    tiles, x = [], 20.0

    def put(codes, gap):
        nonlocal x
        for code in codes:
            tiles.append({"code": code, "box": [x, 300.0, x + 40, 356.0], "confidence": 0.9, "sideways": False})
            x += 42
        x += gap

    put("1m 2m 3m 4p 5p 6p 7s 8s 9s 5s".split(), 10)
    put(["5s"], 40)
    put(["7z"] * 3, 0)
    fake_detector.answer = {"image": {"width": 1000, "height": 600}, "tiles": tiles}
    reading = VisionScanner(tmp_path / "detector.onnx").scan(Image.new("RGB", (1000, 600)))
    assert reading["hand"]["melds"] == [{"kind": "pung", "tiles": ["7z"] * 3, "concealed": False}]
    question = next(q for q in reading["questions"] if q["id"] == "claim-7z")
    assert [c["label"] for c in question["choices"]] == ["left", "across", "right", NOT_DECLARED]
    for choice in question["choices"][:3]:
        meld = choice["hand"]["melds"][0]
        assert meld["claimed"] == choice["label"] and meld["claimed_tile"] == "7z"
        assert choice["hand"]["concealed"] == reading["hand"]["concealed"]
    # laid apart but never declared: the three Red dragons join the concealed tiles
    undeclared = question["choices"][3]["hand"]
    assert undeclared["melds"] == []
    assert sorted(undeclared["concealed"]) == sorted(reading["hand"]["concealed"] + ["7z"] * 3)
    assert [t["group"] for t in reading["detection"]["tiles"]][-3:] == ["meld:0"] * 3


def test_a_tile_read_again_reaches_the_api_with_its_note(fake_detector, tmp_path):
    """A standing tile misread (8s as 6s, 8s its runner-up): the real grouping reads it again to make a winning
    hand, and /api/scan answers the corrected hand with ``corrections`` and ``reading_notes`` saying so."""
    tiles, x = [], 20.0
    for code in "1m 2m 3m 4p 5p 6p 7s 8s 9s 9p".split():
        tile = {"code": code, "box": [x, 300.0, x + 40, 356.0], "confidence": 0.9, "sideways": False}
        if code == "8s":
            tile.update(code="6s", confidence=0.6, alternatives=[{"code": "8s", "confidence": 0.3}])
        tiles.append(tile)
        x += 42
    tiles.append({"code": "9p", "box": [x + 20, 300.0, x + 60, 356.0], "confidence": 0.9, "sideways": False})
    for k, code in enumerate(["5s", "5s", "5s"]):  # a pung beyond the row, its first tile sideways
        left = 100 + 44 * k + (0 if k == 0 else 16)
        box = [100.0, 190.0, 156.0, 230.0] if k == 0 else [float(left), 180.0, float(left + 40), 236.0]
        tiles.append({"code": code, "box": box, "confidence": 0.9, "sideways": k == 0})
    fake_detector.answer = {"image": {"width": 1000, "height": 600}, "tiles": tiles}
    client = create_app({"TESTING": True, "SCANNER": VisionScanner(tmp_path / "detector.onnx")}).test_client()
    from tests.server.helpers import image_bytes, upload

    data = upload(client, image_bytes(size=(1000, 600))).get_json()
    assert sorted(data["hand"]["concealed"]) == sorted("1m 2m 3m 4p 5p 6p 7s 8s 9s 9p 9p".split()), data
    assert [(c["read_as"], c["taken_as"]) for c in data["corrections"]] == [("6s", "8s")]
    assert any("6s read as 8s" in note for note in data["reading_notes"])
    assert data["score"]["valid"] is True and data["questions"] == []


def test_the_adapter_completes_a_hand_with_a_box_under_the_threshold(monkeypatch, tmp_path):
    """vision.photo_reading through the adapter: a detector whose winning tile lay under its threshold answers a
    complete hand, the detection holds that tile, a note says so, and answering the detection regroups it the same."""
    from server.scanning import answer_detection
    from vision.detections import Detections

    hand = hand_to_dict(parse_hand("123m 456p 789s 11z 55z +1z"))
    whole = layout_detection(hand, 1600, 400)
    short = {**whole, "tiles": _untagged(whole)["tiles"][:-1]}
    faint = {**_untagged(whole)["tiles"][-1], "confidence": 0.1}
    assert faint["code"] == "1z"

    class Detector:
        def __init__(self, path):
            self.asked = 0

        def detect(self, image):
            return Detections.from_dict(short)

        def unsure_boxes(self, image, reported):
            return Detections.from_dict({**whole, "tiles": [faint]}).tiles

    detector = types.ModuleType("vision.detector")
    detector.Detector = Detector
    monkeypatch.setitem(sys.modules, "vision.detector", detector)
    reading = VisionScanner(tmp_path / "detector.onnx").scan(Image.new("RGB", (1600, 400)))
    assert reading["hand"] == hand and reading["questions"] == []
    assert len(reading["detection"]["tiles"]) == len(whole["tiles"])
    assert reading["detection"]["tiles"][-1]["confidence"] == pytest.approx(0.1)
    assert any("under the detector's threshold" in note for note in reading["reading_notes"])
    assert answer_detection(reading["detection"], {})["hand"] == hand


def test_scan_says_which_questions_change_the_score(fake_detector, tmp_path):
    """/api/scan weighs the reading's questions under the rules and context sent: the Danish book has no flowers,
    so the unsure flower changes nothing there and the hand is scored as read; under the classical rules an own
    flower scores more."""
    from tests.server.helpers import image_bytes, upload
    from tests.vision.test_question_stakes import unsure_flower

    detections, flower = unsure_flower()
    fake_detector.answer = detections.to_dict()
    client = create_app({"TESTING": True, "SCANNER": VisionScanner(tmp_path / "detector.onnx")}).test_client()
    danish = upload(client, image_bytes(size=(1000, 600)), rules="danish").get_json()
    assert [(q["id"], q["changes_score"]) for q in danish["questions"]] == [(flower, False)]
    assert danish["settled_questions"] == [flower] and danish["score"]["valid"]
    classical = upload(client, image_bytes(size=(1000, 600)), rules="classical").get_json()
    assert [(q["id"], q["changes_score"]) for q in classical["questions"]] == [(flower, True)]
    assert classical["settled_questions"] == []
    # a scanner that does not weigh (no ``score`` keyword) answers as before
    plain = create_app({"TESTING": True, "SCANNER": FixedScanner()}).test_client()
    data = upload(plain, image_bytes(size=(1000, 600)), rules="danish").get_json()
    assert "settled_questions" not in data and data["questions"] == []
