"""A file of the detector's answers for a folder of photos, so that the grouping can be measured again in seconds.

``mjscan eval-grouping DIR --detector`` spends nearly all its time in the detector (about 1 s a photo on two
cores, 1-3 minutes a set of 200), while a change to the grouping needs only the detector's answers: each photo's
detections, the boxes under the threshold (``Detector.unsure_boxes``, asked for where the hand as read lacks a
tile or may lack a flower: rule 13 in ``vision.photo_reading``), and the photo read enlarged where the hand still lacks
a tile (``Detector.detect_closer``, stop 54). ``--cache FILE`` keeps them all. The first run fills it; a later run reads each
photo's answers from it and runs the detector only for what is missing (a photo not read yet, or unsure boxes that
an earlier grouping never asked for), so the figures are exactly those a run without the cache gives.

The file is JSON: the spec's detection objects (``Detections.to_dict``) with the boxes and confidences at full
precision (the grouping has thresholds, and a box rounded to 0.01 px can fall on the other side of one), keyed by
the photo's file name and the SHA-256 of its bytes (``photo_key``: rendered sets all name their photos 000000.jpg
on, so a file name alone would let one set's answers stand for another's), and the ``fingerprint`` of the detector
that made them (each model file's SHA-256 and the options that change its answers). A cache made by other models or
options is not used: it is started afresh, and the command says so.

>>> import json, os, tempfile
>>> from vision.detections import Detection, Detections
>>> from scorer.tiles import Tile
>>> found = Detections(640, 480, (Detection(Tile.parse("5p"), (10.123456, 20.0, 50.0, 80.0), 0.8123456),))
>>> path = os.path.join(tempfile.mkdtemp(), "cache.json")
>>> cache = ReadingCache.open(path, {"detector": "abc"})
>>> cache.detections("001.jpg", lambda: found) == found          # computed, kept
True
>>> cache.save()
>>> again = ReadingCache.open(path, {"detector": "abc"})
>>> again.detections("001.jpg", lambda: 1 / 0) == found          # read back exactly, the detector not run
True
>>> ReadingCache.open(path, {"detector": "xyz"}).stale          # made by another model: started afresh
True
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from vision.crops import TURNED_BY
from vision.detections import Detection, Detections

FORMAT = "mjscan-reading-cache/1"
ANSWERS = 3
"""What a detection in the file carries, part of the fingerprint: 2 since stop 37, when each face's axis was added
(a file of stop 36 lacks them, and the grouping reads them, so it is started afresh); 3 since stop 54, when a box
kept at the threshold though its face was unsure says so (``Detection.unsure_face``)."""


class ReadingCacheError(ValueError):
    """A cache file that cannot be read (not JSON, not a cache, a detection that does not parse)."""


def file_digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def photo_key(path: str | os.PathLike[str]) -> str:
    """A photo's key in the cache: its file name and the SHA-256 of its bytes."""
    return f"{Path(path).name} {file_digest(path)}"


def detector_fingerprint(detector: Any) -> dict[str, Any]:
    """What makes a ``vision.detector.Detector``'s answers what they are: its model files (by content) and the
    options that change them."""
    models = {"detector": detector.model_path}
    for name, reader in (("classifier", detector.classifier), ("bonus_reader", detector.bonus_reader),
                         ("axis_reader", detector.axis_reader)):
        if reader is not None:
            models[name] = reader.model_path
    return {**{name: file_digest(path) for name, path in models.items()},
            "confidence": detector.confidence, "share_readings": detector.share_readings,
            "sure_reading": detector.sure_reading, "sure_one_way": detector.sure_one_way,
            "input_stride": detector.input_stride, "turned_by": TURNED_BY, "answers": ANSWERS}


def _exact(tile: Detection) -> dict[str, Any]:
    """A detection as the spec writes it, but with its box, confidences and axis unrounded."""
    data = tile.to_dict()
    data["box"] = list(tile.box)
    data["confidence"] = tile.confidence
    if tile.alternatives:
        data["alternatives"] = [{"code": entry["code"], "confidence": chance}
                                for entry, (_, chance) in zip(data["alternatives"], tile.alternatives)]
    if tile.axis is not None:
        data["axis"] = tile.axis
    return data


class ReadingCache:
    """The detector's answers for the photos of one folder, kept in a JSON file (see the module's doc)."""

    def __init__(self, path: Path, fingerprint: Mapping[str, Any], photos: dict[str, dict[str, Any]],
                 stale: bool = False):
        self.path = path
        self.fingerprint = dict(fingerprint)
        self._photos = photos
        self.stale = stale  # the file held answers of another detector, now dropped
        self.hits = 0  # answers read from the file
        self.misses = 0  # answers the detector had to give

    @classmethod
    def open(cls, path: str | os.PathLike[str], fingerprint: Mapping[str, Any]) -> "ReadingCache":
        """The cache in ``path`` (empty when there is no such file, or when it was made by another detector)."""
        path = Path(path)
        if not path.exists():
            return cls(path, fingerprint, {})
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ReadingCacheError(f"'{path}' is no reading cache ({error}); delete it or name another file.") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("photos"), dict):
            raise ReadingCacheError(f"'{path}' is no reading cache (it lacks \"format\": \"{FORMAT}\"); delete it "
                                    "or name another file.")
        if data.get("fingerprint") != json.loads(json.dumps(dict(fingerprint))):
            return cls(path, fingerprint, {}, stale=True)
        return cls(path, fingerprint, data["photos"])

    def _get(self, photo: str, key: str, compute: Callable[[], Any], load: Callable[[Any], Any],
             dump: Callable[[Any], Any]) -> Any:
        entry = self._photos.setdefault(photo, {})
        if key in entry:
            try:
                value = load(entry[key])
            except (ValueError, TypeError, KeyError) as error:
                raise ReadingCacheError(f"'{self.path}': the {key} of '{photo}' do not parse ({error}); delete the "
                                        "file or name another.") from None
            self.hits += 1
            return value
        value = compute()
        entry[key] = dump(value)
        self.misses += 1
        return value

    def detections(self, photo: str, compute: Callable[[], Detections]) -> Detections:
        """The detections of ``photo`` (a file name), from the file or from ``compute()``."""
        return self._get(photo, "detections", compute, Detections.from_dict,
                         lambda found: {"image": {"width": found.width, "height": found.height},
                                        "tiles": [_exact(tile) for tile in found.tiles]})

    def unsure(self, photo: str, compute: Callable[[], tuple[Detection, ...]]) -> tuple[Detection, ...]:
        """The boxes under the detector's threshold of ``photo``, from the file or from ``compute()``."""
        return self._get(photo, "unsure", compute, lambda data: tuple(Detection.from_dict(t) for t in data),
                         lambda boxes: [_exact(tile) for tile in boxes])

    def closer(self, photo: str, compute: Callable[[], Detections | None]) -> Detections | None:
        """The detections of ``photo`` read enlarged (``Detector.detect_closer``; None for a photo read in windows
        already), from the file or from ``compute()``."""
        dump = lambda found: None if found is None else {"image": {"width": found.width, "height": found.height},
                                                          "tiles": [_exact(tile) for tile in found.tiles]}
        return self._get(photo, "closer", compute, lambda data: None if data is None else Detections.from_dict(data),
                         dump)

    def save(self) -> None:
        """Write the file (whole, through a temporary file, so an interrupted run never leaves half a cache)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps({"format": FORMAT, "fingerprint": self.fingerprint, "photos": self._photos}))
        os.replace(partial, self.path)
