"""Helpers for the server tests: a fake scanner, photos made on the fly, uploads."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from scorer.tiles import ALL_TILES
from server.scanning import FixedScanner

DATA = Path(__file__).parent / "data"
PHOTO = DATA / "hand.jpg"
# The hand in data/hand.jpg as a player would enter it (the photo shows no melds): MCR 64+.
PHOTO_HAND = "345s 666s 555z 666z 7z 3478f +7z"
STRAIGHT = "123m 456m 789m 234p 5s +5s | self_drawn"  # MCR 23; 21 when claimed
CLASS_NAMES = [t.code for t in ALL_TILES] + ["back"]


class Message:
    """An API error's message, in the shape tests.conftest.assert_readable checks."""

    def __init__(self, message: str):
        self.message = message

    def __str__(self) -> str:
        return self.message


def labelled_detection(width: int, height: int, labels: Path = DATA / "hand.txt") -> dict:
    """The detection JSON for a photo from its YOLO label file, scaled to the image the scanner got."""
    tiles = []
    for line in labels.read_text().split("\n"):
        if not line.strip():
            continue
        cls, x, y, w, h = line.split()
        x, y, w, h = float(x) * width, float(y) * height, float(w) * width, float(h) * height
        tiles.append({"code": CLASS_NAMES[int(cls)], "box": [round(x - w / 2, 1), round(y - h / 2, 1),
                                                             round(x + w / 2, 1), round(y + h / 2, 1)],
                      "confidence": 0.9, "sideways": False})
    return {"image": {"width": width, "height": height}, "tiles": tiles}


class FakeScanner(FixedScanner):
    """A FixedScanner that remembers what it was given, can fail on demand, and can answer the test
    photo's real labelled boxes (no ``group`` field: the page then matches the boxes to the hand itself)."""

    def __init__(self, hand: str = STRAIGHT, questions=None, labelled: bool = False):
        super().__init__(hand, questions)
        self.labelled = labelled
        self.sizes: list[tuple[int, int]] = []
        self.modes: list[str] = []
        self.fail: Exception | None = None
        self.answer: object | None = None  # replaces the whole reading when set

    def scan(self, image):
        self.sizes.append(image.size)
        self.modes.append(image.mode)
        if self.fail is not None:
            raise self.fail
        if self.answer is not None:
            return self.answer
        reading = super().scan(image)
        if self.labelled:
            reading["detection"] = labelled_detection(image.width, image.height)
        return reading


def image_bytes(fmt: str = "JPEG", size: tuple[int, int] = (64, 48), colour="white", **save) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, fmt, **save)
    return buffer.getvalue()


def upload(client, data: bytes, name: str = "photo.jpg", **fields):
    """POST /api/scan with ``data`` as the photo and ``fields`` as the other form fields."""
    form = {key: str(value) for key, value in fields.items()}
    form["photo"] = (io.BytesIO(data), name)
    return client.post("/api/scan", data=form, content_type="multipart/form-data")


class LiveServer:
    """The app served by waitress (as ``mjscan serve`` does) on a free loopback port, in a thread.

        with LiveServer(app) as server:
            urllib.request.urlopen(server.url + "/api/health")
    """

    def __init__(self, app, threads: int = 4):
        import waitress

        from server import waitress_options

        self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads, **waitress_options(app))
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = None

    def __enter__(self) -> "LiveServer":
        import threading

        self.thread = threading.Thread(target=self.server.run, name="mjscan-live-server", daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        from waitress import wasyncore

        self.server.task_dispatcher.shutdown()
        wasyncore.close_all(self.server._map)
        self.thread.join(timeout=10)
