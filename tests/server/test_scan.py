"""POST /api/scan: photos in, detection + hand + score out; every refusal, and the safety promises
(content not name, size checked before decoding, EXIF orientation, nothing written, failures contained)."""

from __future__ import annotations

import http.client
import io
import os
import sys
import tempfile

import numpy as np
import pytest
from PIL import Image, ImageFile

from scorer import parse_hand, score
from server import create_app
from server.uploads import MAX_PIXELS, MIN_PHOTO_SIDE, read_photo
from tests.pictures import png_header
from tests.server.helpers import PHOTO, PHOTO_HAND, STRAIGHT, FakeScanner, LiveServer, image_bytes, upload
from tests.server.test_api import error_of


def test_scan_answers_detection_hand_and_score(client, scanner):
    response = upload(client, PHOTO.read_bytes())
    assert response.status_code == 200, response.get_data(as_text=True)
    data = response.get_json()
    assert set(data) >= {"detection", "hand", "score"}
    assert data["detection"]["image"] == {"width": 640, "height": 640}
    assert [t["code"] for t in data["detection"]["tiles"]][:3] == ["1m", "2m", "3m"]
    assert data["hand"]["winning_tile"] == "5s"
    assert data["score"]["rules"] == "mcr" and data["score"]["total"] == 23
    assert data["score"]["notation"] == "123456789m 234p 5s +5s | self_drawn"
    assert data["questions"] == []
    assert scanner.sizes == [(640, 640)] and scanner.modes == ["RGB"]


def test_the_forms_context_is_merged_into_the_hands(client):
    data = upload(client, image_bytes(), self_drawn="false", seat_wind="S", prevalent_wind="W").get_json()
    context = data["hand"]["context"]
    assert context["self_drawn"] is False and context["seat_wind"] == "S" and context["prevalent_wind"] == "W"
    assert data["score"]["total"] == score(parse_hand("123m 456m 789m 234p 5s +5s | seat=S prevalent=W"), "mcr").total
    assert data["score"]["total"] == 21


def test_rules_and_their_own_context_keys(client):
    data = upload(client, image_bytes(), rules="jmja1967", jmja1967_false_calls="2", jmja1967_rounding="up",
                  dealer="on").get_json()
    assert data["rules"] == "jmja1967" and data["score"]["rules"] == "jmja1967"
    context = data["hand"]["context"]
    assert context["jmja1967_false_calls"] == 2 and context["jmja1967_rounding"] == "up" and context["dealer"] is True
    expected = score(parse_hand(STRAIGHT + " dealer jmja1967_false_calls=2 jmja1967_rounding=up"), "jmja1967")
    assert data["score"]["total"] == expected.total


@pytest.mark.parametrize("fields, code", [
    ({"rules": "nope"}, "unknown_rules"),
    ({"colour": "red"}, "bad_context"),
    ({"self_drawn": "perhaps"}, "bad_context"),
    ({"seat_wind": "X"}, "unknown_wind"),
    ({"rules": "jmja1967", "jmja1967_false_calls": "two"}, "bad_context"),
    ({"rules": "jmja1967", "jmja1967_rounding": "sideways"}, "bad_context"),
    ({"rules": "mcr", "classical_banker": "true"}, "bad_context"),
])
def test_bad_form_fields_are_400(client, fields, code):
    error_of(upload(client, image_bytes(), **fields), 400, code)


def test_no_photo_is_400(client):
    error_of(client.post("/api/scan", data={"rules": "mcr"}), 400, "no_photo")
    error_of(client.post("/api/scan", data={"photo": "not a file"}), 400, "no_photo")


def test_an_empty_file_is_400(client):
    error_of(upload(client, b""), 400, "empty_file")


def test_a_text_file_named_photo_jpg_is_refused_by_its_content(client, scanner):
    error = error_of(upload(client, b"this is not a photo\n" * 50, "photo.jpg"), 400, "not_an_image")
    assert "JPEG, PNG, WebP" in error["message"]
    assert scanner.sizes == []


def test_a_real_photo_is_read_by_its_content_whatever_its_name(client):
    assert upload(client, image_bytes("PNG"), "notes.txt").status_code == 200
    assert upload(client, image_bytes("JPEG"), "").status_code == 200


@pytest.mark.parametrize("fmt", ["GIF", "BMP", "TIFF", "ICO"])
def test_other_image_types_are_refused(client, fmt):
    error_of(upload(client, image_bytes(fmt), "photo.jpg"), 400, "not_an_image")


@pytest.mark.parametrize("fmt, extra", [("JPEG", {}), ("PNG", {}), ("WEBP", {}), ("JPEG", {"progressive": True})])
def test_accepted_types(client, scanner, fmt, extra):
    assert upload(client, image_bytes(fmt, (120, 90), **extra)).status_code == 200
    assert scanner.sizes == [(120, 90)]


def test_a_truncated_photo_is_400(client):
    data = image_bytes("JPEG", (400, 300), colour="red")
    error = error_of(upload(client, data[: len(data) // 2]), 400, "not_an_image")
    assert "damaged" in error["message"]


def test_non_rgb_photos_reach_the_scanner_as_rgb(client, scanner):
    buffer = io.BytesIO()
    Image.new("RGBA", (30, 20), (255, 0, 0, 128)).save(buffer, "PNG")
    assert upload(client, buffer.getvalue()).status_code == 200
    buffer = io.BytesIO()
    Image.new("L", (30, 20), 128).save(buffer, "JPEG")
    assert upload(client, buffer.getvalue()).status_code == 200
    assert scanner.modes == ["RGB", "RGB"]


def test_a_16_bit_grey_png_keeps_its_tones():
    """Pillow's own conversion clips a 16-bit grey picture white (stop 55): the upload brings it to 8 bits."""
    buffer = io.BytesIO()
    Image.fromarray(np.full((40, 60), 30000, np.uint16)).save(buffer, "PNG")
    upright = read_photo(buffer.getvalue())
    assert upright.mode == "RGB" and upright.getpixel((0, 0)) == (117, 117, 117)


def test_heic_photos_are_read():
    pillow_heif = pytest.importorskip("pillow_heif", reason="pillow-heif is not installed")
    if not pillow_heif.libheif_info().get("encoders"):
        pytest.skip("this libheif build cannot write HEIC (no encoder)")
    scanner = FakeScanner()
    client = create_app({"TESTING": True, "SCANNER": scanner}).test_client()
    response = upload(client, image_bytes("HEIF", (96, 64), colour="green"), "IMG_0001.HEIC")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert scanner.sizes == [(96, 64)]
    # an iPhone photo taken upright: stored sideways with orientation 6, read upright
    exif = Image.Exif()
    exif[0x0112] = 6
    stored = Image.new("RGB", (96, 64), "white")
    stored.paste((255, 0, 0), (0, 0, 24, 16))
    buffer = io.BytesIO()
    stored.save(buffer, "HEIF", exif=exif.tobytes())
    assert upload(client, buffer.getvalue(), "IMG_0002.HEIC").status_code == 200
    assert scanner.sizes[-1] == (64, 96)
    upright = read_photo(buffer.getvalue())
    assert upright.getpixel((upright.width - 4, 4))[0] > 200 and upright.getpixel((4, 4)) == (255, 255, 255)


def _jpeg_with_orientation(width: int, height: int, orientation: int) -> bytes:
    image = Image.new("RGB", (width, height), "white")
    image.paste((255, 0, 0), (0, 0, width // 4, height // 4))  # a red mark top-left as stored
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def test_exif_orientation_is_applied_before_the_scanner_sees_the_photo(client, scanner):
    data = upload(client, _jpeg_with_orientation(200, 100, 6)).get_json()  # 6: rotate 90 degrees clockwise
    assert scanner.sizes == [(100, 200)]
    assert data["detection"]["image"] == {"width": 100, "height": 200}
    upright = read_photo(_jpeg_with_orientation(200, 100, 6))
    assert upright.getpixel((upright.width - 5, 5))[0] > 200  # the red mark is now top-right
    assert upright.getpixel((5, 5)) == (255, 255, 255)


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "PNG"])
def test_the_upright_photo_cannot_be_turned_twice(fmt):
    """The scanner gets the photo upright with no orientation left to apply: vision.detector applies
    ImageOps.exif_transpose itself, which must then change nothing."""
    from PIL import ImageOps

    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(buffer, fmt, exif=exif.tobytes())
    upright = read_photo(buffer.getvalue())
    assert upright.size == (100, 200)
    assert ImageOps.exif_transpose(upright).size == (100, 200)


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_over_50_megapixels_is_refused_before_decoding(client, scanner, monkeypatch):
    def no_decoding(self, *args, **kwargs):
        raise AssertionError("the image was decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    error = error_of(upload(client, png_header(10000, 6000)), 400, "image_too_large")
    assert "10000 x 6000" in error["message"] and "50 megapixels" in error["message"]
    assert scanner.sizes == []


def test_far_over_the_limit_is_refused_as_too_large_too(client, monkeypatch):
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("decoded"))
    error_of(upload(client, png_header(30000, 20000)), 400, "image_too_large")  # Pillow's own guard trips first


def test_50_megapixels_exactly_passes_the_size_check():
    with pytest.raises(Exception) as caught:  # it passes the size check, then fails on the missing pixels
        read_photo(png_header(10000, 5000))
    assert getattr(caught.value, "code", None) == "not_an_image"


@pytest.mark.parametrize("size", [(8000, 3), (15, 600), (1, 1)])
def test_a_picture_no_tile_fits_in_is_refused_before_decoding(client, scanner, monkeypatch, size):
    """A sliver or a thumbnail: 400 with the reason, never the reader's 500 (8000 x 3 once crashed the resize)."""
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: pytest.fail("decoded"))
    error = error_of(upload(client, png_header(*size)), 400, "image_too_small")
    assert f"{size[0]} x {size[1]} pixels" in error["message"] and scanner.sizes == []


def test_the_smallest_side_accepted_is_the_readers():
    from vision.detector import MIN_PHOTO_SIDE as READERS

    assert MIN_PHOTO_SIDE == READERS == 16


def test_pillows_own_limit_is_set_to_ours(app):
    assert Image.MAX_IMAGE_PIXELS == MAX_PIXELS == app.config["MAX_IMAGE_PIXELS"] == 50_000_000


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_a_smaller_pixel_limit_can_be_configured(scanner):
    client = create_app({"TESTING": True, "SCANNER": scanner, "MAX_IMAGE_PIXELS": 1000}).test_client()
    try:
        error_of(upload(client, image_bytes("PNG", (40, 30))), 400, "image_too_large")
        assert upload(client, image_bytes("PNG", (30, 30))).status_code == 200
    finally:
        create_app({"TESTING": True, "SCANNER": None})  # puts Pillow's global limit back to 50 MP


def test_an_upload_over_the_limit_is_413_json(scanner):
    client = create_app({"TESTING": True, "SCANNER": scanner, "MAX_CONTENT_LENGTH": 10_000}).test_client()
    error = error_of(upload(client, os.urandom(20_000)), 413, "too_large")
    assert "KB" in error["message"]
    assert scanner.sizes == []
    assert upload(client, image_bytes()).status_code == 200  # a small one still works


def test_the_default_upload_limit_is_20_mb(app):
    assert app.config["MAX_CONTENT_LENGTH"] == 20 * 1024 * 1024


# --------------------------------------------------------------------------------------------------
# the scanner's side


def test_no_detector_is_503_no_detector(bare_client):
    error = error_of(upload(bare_client, image_bytes()), 503, "no_detector")
    assert "not available yet" in error["message"]


def test_a_scanner_that_fails_gives_500_json_and_the_next_request_works(client, scanner, caplog):
    scanner.fail = RuntimeError("the model fell over")
    error_of(upload(client, image_bytes()), 500, "internal_error")
    assert "the model fell over" in caplog.text  # logged for the operator, not shown to the player
    scanner.fail = None
    assert upload(client, image_bytes()).status_code == 200
    assert client.post("/api/score", json={"notation": STRAIGHT}).status_code == 200


@pytest.mark.parametrize("answer", [None, "text", {"hand": None}, {"detection": {}, "hand": ["1m"]},
                                    {"detection": {}, "hand": None, "questions": "why"}])
def test_a_scanner_answering_nonsense_is_a_500(client, scanner, answer):
    scanner.answer = answer if answer is not None else []
    error_of(upload(client, image_bytes()), 500, "internal_error")


def test_a_reading_without_a_hand_has_no_score(client, scanner):
    scanner.answer = {"detection": {"image": {"width": 64, "height": 48}, "tiles": []}, "hand": None,
                      "questions": [{"id": "kong", "text": "Which tile is the face-down kong?", "choices": ["5z", "6z"]}]}
    data = upload(client, image_bytes()).get_json()
    assert data["hand"] is None and data["score"] is None
    assert data["questions"][0]["choices"] == ["5z", "6z"]


def test_a_reading_that_is_not_a_valid_hand_scores_as_invalid(client, scanner):
    scanner.answer = {"detection": {"image": {"width": 64, "height": 48}, "tiles": []},
                      "hand": {"concealed": ["1m", "2m", "3m"], "winning_tile": "3m"}, "questions": []}
    response = upload(client, image_bytes(), seat_wind="S")
    assert response.status_code == 200
    data = response.get_json()
    assert data["score"]["valid"] is False and data["score"]["error"]["code"] == "wrong_tile_count"
    assert data["hand"]["context"] == {"seat_wind": "S"}  # the reading, with the form's context, for the page


def test_the_photos_hand_scores_like_the_notation(scanner):
    fake = FakeScanner(PHOTO_HAND, labelled=True)
    client = create_app({"TESTING": True, "SCANNER": fake}).test_client()
    data = upload(client, PHOTO.read_bytes()).get_json()
    assert len(data["detection"]["tiles"]) == 18
    assert data["score"]["total"] == score(parse_hand(PHOTO_HAND), "mcr").total


# --------------------------------------------------------------------------------------------------
# nothing written, nothing kept


class _Writes:
    """Every file this process opens for writing while ``active`` (an audit hook: it sees Pillow,
    werkzeug's spooled temporary files and tempfile alike)."""

    active = False
    seen: list = []

    @classmethod
    def hook(cls, event, args):
        if not cls.active:
            return
        if event == "open":
            path, mode, flags = args
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            if writes and path is not None:
                cls.seen.append((event, path))
        elif event in ("tempfile.mkstemp", "tempfile.mkdtemp", "os.mkdir", "os.rename", "shutil.copyfile"):
            cls.seen.append((event, args))


sys.addaudithook(_Writes.hook)


def _multipart(photo: bytes, fields: dict, boundary: str = "mjscan-test-boundary") -> tuple[bytes, str]:
    """A multipart body built here, in memory (the test client would spool a large one to a temp file)."""
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
                 f"Content-Type: image/jpeg\r\n\r\n".encode() + photo + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _listing(folder: str) -> set[str]:
    return set(os.listdir(folder))


def test_nothing_uploaded_is_written_to_disk(client, scanner):
    big = io.BytesIO()
    Image.effect_noise((1000, 1000), 80).convert("RGB").save(big, "JPEG", quality=95)
    assert len(big.getvalue()) > 600 * 1024  # werkzeug would spill this to a temporary file
    bodies = [_multipart(big.getvalue(), {"rules": "mcr"}), _multipart(b"not an image" * 100_000, {})]
    before = (_listing(tempfile.gettempdir()), _listing(os.getcwd()))
    _Writes.seen = []
    _Writes.active = True
    try:
        response, refused = (client.post("/api/scan", data=body, content_type=kind) for body, kind in bodies)
    finally:
        _Writes.active = False
    assert response.status_code == 200 and refused.status_code == 400
    assert _Writes.seen == []
    assert (_listing(tempfile.gettempdir()), _listing(os.getcwd())) == before


def test_uploads_are_parsed_in_memory(app):
    with app.test_request_context("/api/scan", method="POST"):
        from flask import request

        stream = request._get_file_stream(10 * 1024 * 1024, "image/jpeg", "photo.jpg")
        assert isinstance(stream, io.BytesIO)


# --------------------------------------------------------------------------------------------------
# over real HTTP, served by waitress as `mjscan serve` does


def _post_multipart(url: str, photo: bytes, fields: dict) -> tuple[int, bytes]:
    body, kind = _multipart(photo, fields)
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("POST", "/api/scan", body, {"Content-Type": kind})
        response = connection.getresponse()
        return response.status, response.read()
    except (ConnectionError, http.client.HTTPException):
        return -1, b""
    finally:
        connection.close()


def test_over_http_with_waitress(scanner):
    import json

    app = create_app({"SCANNER": scanner, "MAX_CONTENT_LENGTH": 200_000})
    with LiveServer(app) as server:
        status, body = _post_multipart(server.url, PHOTO.read_bytes(), {"rules": "mcr", "seat_wind": "S"})
        assert status == 200 and json.loads(body)["hand"]["context"]["seat_wind"] == "S"
        status, body = _post_multipart(server.url, os.urandom(300_000), {})  # over Flask's limit: JSON 413
        assert status == 413 and json.loads(body)["error"]["code"] == "too_large"
        status, _ = _post_multipart(server.url, os.urandom(1_400_000), {})  # beyond waitress's own limit
        assert status in (413, -1)
        status, body = _post_multipart(server.url, image_bytes(), {})
        assert status == 200  # and it still serves


def test_the_uploads_doctests():
    import doctest

    import server.uploads

    failures, tried = doctest.testmod(server.uploads)
    assert tried and not failures
