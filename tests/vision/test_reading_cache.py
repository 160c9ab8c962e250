"""vision.reading_cache: the detector's answers kept in a file, read back exactly."""

from __future__ import annotations

import json

import pytest

from scorer.tiles import Tile
from vision.classes import BACK
from vision.detections import Detection, Detections
from vision.reading_cache import ANSWERS, FORMAT, ReadingCache, ReadingCacheError, detector_fingerprint, file_digest, photo_key

FOUND = Detections(1280, 960, (
    Detection(Tile.parse("5p"), (101.123456789, 220.987654321, 160.5, 301.25), 0.812345678901, True,
              ((Tile.parse("6p"), 0.0712345678), (BACK, 0.0101010101)), axis=3.14159265),
    Detection(BACK, (300.0, 200.0, 360.0, 280.0), 0.25000000001),
))
UNSURE = (Detection(Tile.parse("2f"), (500.5, 300.25, 540.125, 360.0625), 0.2271234567,
                    alternatives=((Tile.parse("3f"), 0.081),)),)


def test_answers_read_back_are_the_answers_kept_to_the_last_digit(tmp_path):
    """A box rounded to 0.01 px can fall on the other side of a grouping threshold: the file keeps every digit."""
    path = tmp_path / "cache.json"
    cache = ReadingCache.open(path, {"detector": "abc"})
    assert cache.detections("000001.jpg", lambda: FOUND) == FOUND
    assert cache.unsure("000001.jpg", lambda: UNSURE) == UNSURE
    assert (cache.hits, cache.misses) == (0, 2)
    cache.save()
    again = ReadingCache.open(path, {"detector": "abc"})
    never = lambda: pytest.fail("the detector was asked for an answer the file holds")  # noqa: E731
    assert again.detections("000001.jpg", never) == FOUND
    assert again.unsure("000001.jpg", never) == UNSURE
    assert again.detections("000001.jpg", never).tiles[0].box[0] == 101.123456789
    assert again.detections("000001.jpg", never).tiles[0].axis == 3.14159265  # the JSON rounds it to 3.1
    assert (again.hits, again.misses) == (4, 0)
    assert not again.stale


def test_what_the_file_lacks_is_asked_of_the_detector_and_kept(tmp_path):
    path = tmp_path / "cache.json"
    cache = ReadingCache.open(path, {"detector": "abc"})
    cache.detections("000001.jpg", lambda: FOUND)
    cache.save()
    again = ReadingCache.open(path, {"detector": "abc"})
    asked = []
    assert again.unsure("000001.jpg", lambda: asked.append(1) or UNSURE) == UNSURE  # never asked for before
    assert again.detections("000002.jpg", lambda: asked.append(2) or FOUND) == FOUND  # a photo not read before
    assert asked == [1, 2] and (again.hits, again.misses) == (0, 2)
    again.save()
    third = ReadingCache.open(path, {"detector": "abc"})
    assert third.unsure("000001.jpg", lambda: pytest.fail("kept")) == UNSURE
    assert third.detections("000002.jpg", lambda: pytest.fail("kept")) == FOUND


def test_a_face_the_detector_could_not_tell_is_kept_as_such(tmp_path):
    path = tmp_path / "cache.json"
    unsure = Detections(640, 480, (Detection(Tile.parse("4f"), (10.0, 20.0, 50.0, 80.0), 0.25, unsure_face=True),))
    cache = ReadingCache.open(path, {"detector": "abc"})
    cache.detections("000001.jpg", lambda: unsure)
    cache.save()
    kept = ReadingCache.open(path, {"detector": "abc"}).detections("000001.jpg", lambda: pytest.fail("kept"))
    assert kept == unsure and kept.tiles[0].unsure_face
    assert ANSWERS == 3  # files of stop 53 and before lack the flag: started afresh


def test_the_photo_read_closer_is_kept_and_so_is_a_photo_that_could_not_be(tmp_path):
    """``Detector.detect_closer`` answers None for a photo read in windows already: that is an answer too."""
    path = tmp_path / "cache.json"
    cache = ReadingCache.open(path, {"detector": "abc"})
    assert cache.closer("000001.jpg", lambda: FOUND) == FOUND
    assert cache.closer("000002.jpg", lambda: None) is None
    cache.save()
    again = ReadingCache.open(path, {"detector": "abc"})
    never = lambda: pytest.fail("the detector was asked for an answer the file holds")  # noqa: E731
    assert again.closer("000001.jpg", never) == FOUND and again.closer("000002.jpg", never) is None
    assert (again.hits, again.misses) == (2, 0)


def test_a_file_made_by_another_detector_is_started_afresh(tmp_path):
    path = tmp_path / "cache.json"
    cache = ReadingCache.open(path, {"detector": "abc", "confidence": 0.25})
    cache.detections("000001.jpg", lambda: FOUND)
    cache.save()
    other = ReadingCache.open(path, {"detector": "abc", "confidence": 0.3})
    assert other.stale
    empty = Detections(1280, 960, ())
    assert other.detections("000001.jpg", lambda: empty) == empty and other.misses == 1


@pytest.mark.parametrize("text, says", [
    ("not json", "no reading cache"),
    (json.dumps({"photos": {}}), FORMAT),
    (json.dumps({"format": FORMAT, "fingerprint": {"detector": "abc"},
                 "photos": {"000001.jpg": {"detections": {"image": {"width": 10}}}}}), "do not parse"),
])
def test_a_file_that_is_no_cache_gives_a_clear_error(tmp_path, text, says):
    path = tmp_path / "cache.json"
    path.write_text(text)
    with pytest.raises(ReadingCacheError, match=says):
        ReadingCache.open(path, {"detector": "abc"}).detections("000001.jpg", lambda: FOUND)
    assert path.read_text() == text  # nothing overwritten


def test_saving_leaves_no_partial_file_and_makes_its_folder(tmp_path):
    path = tmp_path / "deeper" / "cache.json"
    cache = ReadingCache.open(path, {"detector": "abc"})
    cache.detections("000001.jpg", lambda: FOUND)
    cache.save()
    assert [p.name for p in path.parent.iterdir()] == ["cache.json"]
    assert json.loads(path.read_text())["format"] == FORMAT


def test_the_fingerprint_names_each_model_by_its_content(tmp_path):
    class Reader:
        def __init__(self, path):
            self.model_path = path

    class Detector:
        confidence, share_readings, sure_reading, sure_one_way, input_stride = 0.25, True, 0.7, 0.9, 32

    files = {}
    for name, body in (("detector", b"one"), ("classifier", b"two")):
        files[name] = tmp_path / f"{name}.onnx"
        files[name].write_bytes(body)
    detector = Detector()
    detector.model_path = files["detector"]
    detector.classifier, detector.bonus_reader, detector.axis_reader = Reader(files["classifier"]), None, None
    first = detector_fingerprint(detector)
    assert first == {"detector": file_digest(files["detector"]), "classifier": file_digest(files["classifier"]),
                     "confidence": 0.25, "share_readings": True, "sure_reading": 0.7, "sure_one_way": 0.9,
                     "input_stride": 32, "turned_by": "opencv", "answers": ANSWERS}
    files["classifier"].write_bytes(b"retrained")
    assert detector_fingerprint(detector)["classifier"] != first["classifier"]
    # a box read from fewer crops reads otherwise: another cache
    detector.sure_reading = None
    assert detector_fingerprint(detector)["sure_reading"] is None
    detector.sure_one_way = None  # read both ways up from the start: another cache
    assert detector_fingerprint(detector)["sure_one_way"] is None
    detector.input_stride = None  # the localiser given square inputs finds boxes a little otherwise: another cache
    assert detector_fingerprint(detector)["input_stride"] is None


def test_a_photo_is_known_by_its_name_and_its_bytes(tmp_path):
    """Rendered sets all name their photos 000000.jpg on: one set's answers must not stand for another's."""
    one, two = tmp_path / "a", tmp_path / "b"
    one.mkdir(), two.mkdir()
    (one / "000000.jpg").write_bytes(b"a photo")
    (two / "000000.jpg").write_bytes(b"another photo")
    (two / "000001.jpg").write_bytes(b"a photo")
    assert photo_key(one / "000000.jpg") != photo_key(two / "000000.jpg")
    assert photo_key(one / "000000.jpg") != photo_key(two / "000001.jpg")  # the same bytes under another name
    assert photo_key(one / "000000.jpg") == photo_key(str(one / "000000.jpg")) == f"000000.jpg {file_digest(one / '000000.jpg')}"
