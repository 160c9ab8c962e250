"""Uploaded photos: read in memory, checked by their content, refused before decoding when too big.

- The upload is kept in memory (``InMemoryRequest``): nothing is written to disk, not even werkzeug's
  temporary file for uploads over 500 KB, and nothing outlives the request.
- The file's type comes from its bytes, never from its name or the browser's content type: only JPEG,
  PNG, WebP and HEIC/HEIF (through pillow-heif, when installed) are opened, so no other Pillow plugin
  (EPS, PDF, TIFF...) ever sees the bytes.
- The header's width x height is checked before a single pixel is decoded (Pillow opens lazily), and
  ``Image.MAX_IMAGE_PIXELS`` is set to the same limit as a second guard.
- The EXIF orientation is applied (``ImageOps.exif_transpose``), so the scanner and its boxes see the
  photo the right way up, as the detection spec says.

>>> import io
>>> from PIL import Image
>>> buffer = io.BytesIO(); Image.new("RGB", (40, 30)).save(buffer, "PNG")
>>> read_photo(buffer.getvalue()).size
(40, 30)
>>> read_photo(b"hello").code
Traceback (most recent call last):
...
server.uploads.UploadError: This file is not a photo mjscan can read: send a JPEG, PNG, WebP or HEIC image.
"""

from __future__ import annotations

import io
import logging
from typing import IO

from flask import Request
from PIL import Image, ImageOps, UnidentifiedImageError

log = logging.getLogger(__name__)

MAX_PIXELS = 50_000_000
"""The largest photo accepted, in pixels (width x height): 50 megapixels."""
MIN_PHOTO_SIDE = 16
"""The shortest side accepted, in pixels: vision.detector.MIN_PHOTO_SIDE, which refuses a picture no tile fits in
(the server checks an upload's header without importing vision; a test pins that the two agree)."""

try:  # iPhone photos: HEIC. Optional at run time; a HEIC upload is then refused with a clear message.
    from pillow_heif import register_heif_opener

    register_heif_opener()
    HEIF = True
except ImportError:  # pragma: no cover - pillow-heif is a runtime dependency
    HEIF = False

# Pillow's format ids for the accepted types (MPO is the JPEG variant many phones write). Image.open is
# given only these, so no other plugin ever parses an upload; init() registers them (open() would not).
Image.init()
FORMATS = tuple(f for f in ("JPEG", "MPO", "PNG", "WEBP", "HEIF") if f in Image.OPEN)
_KINDS = "JPEG, PNG, WebP or HEIC" if "HEIF" in FORMATS else "JPEG, PNG or WebP"


class UploadError(Exception):
    """A photo that cannot be used: ``code`` and ``status`` for the API, and a message for the player."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class InMemoryRequest(Request):
    """Flask's request, with uploaded files kept in memory instead of spilling to a temporary file.

    The size of the whole request is bounded by ``MAX_CONTENT_LENGTH`` (413 beyond it), so memory is too."""

    def _get_file_stream(self, total_content_length: int | None, content_type: str | None,
                         filename: str | None = None, content_length: int | None = None) -> IO[bytes]:
        return io.BytesIO()


def limit_pixels(max_pixels: int = MAX_PIXELS) -> None:
    """Pillow's own decompression-bomb guard, at our limit (it warns above it and refuses above twice it)."""
    Image.MAX_IMAGE_PIXELS = max_pixels


def read_photo(data: bytes, max_pixels: int = MAX_PIXELS) -> Image.Image:
    """The photo in ``data``, decoded, turned upright by its EXIF orientation, in RGB.

    Raise UploadError: ``empty_file``, ``not_an_image`` (not one of the accepted types, or damaged), or
    ``image_too_large`` (more than ``max_pixels``, found from the header before decoding) or ``image_too_small``
    (a side under ``MIN_PHOTO_SIDE`` pixels, also from the header)."""
    if not data:
        raise UploadError("empty_file", "The photo is empty (0 bytes): take or choose the photo again.")
    try:
        image = Image.open(io.BytesIO(data), formats=FORMATS)  # reads the header only
    except Image.DecompressionBombError:  # Pillow's own guard: over twice MAX_IMAGE_PIXELS
        raise _too_large(None, max_pixels) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        log.info("refused an upload that is not an accepted image: %s", error)
        raise _not_an_image() from None
    width, height = image.size
    if width <= 0 or height <= 0:
        raise _not_an_image()
    if width * height > max_pixels:
        image.close()
        raise _too_large((width, height), max_pixels)
    if min(width, height) < MIN_PHOTO_SIDE:  # no tile fits: the reader would refuse it after the upload's decoding
        image.close()
        raise UploadError("image_too_small", f"The photo is {width} x {height} pixels: too small to show a tile "
                                             f"(each side needs at least {MIN_PHOTO_SIDE}). Send the photo itself, "
                                             "not a thumbnail.")
    try:
        image.load()
        upright = ImageOps.exif_transpose(image)
    except (Image.DecompressionBombError, OSError, ValueError, SyntaxError, EOFError) as error:
        log.info("refused a damaged image: %s", error)
        raise UploadError("not_an_image", "The photo could not be read to the end: the file is damaged or "
                                          "incomplete. Take or choose the photo again.") from None
    from vision.crops import as_rgb  # (numpy: loaded with the first photo, not with the app)

    return as_rgb(upright)  # a 16-bit grey PNG brought to 8 bits, not clipped white


def _too_large(size: tuple[int, int] | None, max_pixels: int) -> UploadError:
    shown = f"{size[0]} x {size[1]} pixels ({size[0] * size[1] / 1e6:.0f} megapixels)" if size else \
        f"over {2 * max_pixels / 1e6:g} megapixels"
    return UploadError("image_too_large", f"The photo is {shown}; mjscan reads photos up to {max_pixels / 1e6:g} "
                                          "megapixels. Take it at a lower resolution or send a smaller copy.")


def _not_an_image() -> UploadError:
    return UploadError("not_an_image", f"This file is not a photo mjscan can read: send a {_KINDS} image.")
