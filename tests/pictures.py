"""Pictures the tests of more than one package build by hand."""

from __future__ import annotations

import struct
import zlib


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims width x height but carries (almost) no pixels: enough for the checks made before decoding
    (a decompression bomb's size, a sliver no tile fits in) without the memory a real one would take."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
