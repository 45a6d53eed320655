"""IDX files, the format MNIST ships in: a magic number, the dimensions, then the raw values.

Magic: two zero bytes, a type code (0x08 = unsigned byte) and the number of
dimensions; then one big-endian uint32 per dimension. Images are
``(n, 28, 28)`` (magic 0x00000803), labels ``(n,)`` (magic 0x00000801).
Files may be gzip-compressed, as the mirrors serve them.
"""

from __future__ import annotations

import gzip
import io
import math
import struct
import zlib
from pathlib import Path

import numpy as np

_GZIP_MAGIC = b"\x1f\x8b"
_UNSIGNED_BYTE = 0x08
MAX_BYTES = 256 * 1024 * 1024  # far above MNIST's 47 MB; a bound for hostile files


class IdxError(ValueError):
    """The file is not a well-formed IDX file of the expected shape; the message names the file."""


def read_idx(path: str | Path, ndim: int | None = None, trailing_shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The array stored in the IDX file at ``path`` (gzip or raw), checked against ``ndim``/``trailing_shape``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if raw[:2] == _GZIP_MAGIC:
            raw = _gunzip(raw)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise IdxError(f"{path.name}: cannot read it ({exc}); delete it and fetch it again.") from None
    return parse_idx(raw, path.name, ndim, trailing_shape)


def parse_idx(raw: bytes, name: str, ndim: int | None = None,
              trailing_shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Decode IDX bytes; ``name`` only labels the error messages."""
    if len(raw) < 4:
        raise IdxError(f"{name}: {len(raw)} bytes is too short to be an IDX file.")
    zero, dtype_code, dims = struct.unpack(">HBB", raw[:4])
    if zero != 0 or dtype_code != _UNSIGNED_BYTE or dims == 0:
        raise IdxError(f"{name}: not an IDX file of unsigned bytes (magic number 0x{raw[:4].hex()}, "
                       f"expected 0x000008NN).")
    if ndim is not None and dims != ndim:
        raise IdxError(f"{name}: has {dims} dimension(s), expected {ndim} "
                       f"(magic 0x{0x800 + ndim:08x}); is it the {'images' if ndim == 3 else 'labels'} file?")
    header = 4 + 4 * dims
    if len(raw) < header:
        raise IdxError(f"{name}: truncated inside its header ({len(raw)} bytes).")
    shape = struct.unpack(f">{dims}I", raw[4:header])
    if trailing_shape is not None and tuple(shape[1:]) != tuple(trailing_shape):
        raise IdxError(f"{name}: items are {'×'.join(map(str, shape[1:]))}, expected "
                       f"{'×'.join(map(str, trailing_shape))}.")
    expected = math.prod(shape)  # exact: np.prod's int64 wraps, so a hostile header could claim 0 bytes
    if len(raw) - header != expected:
        state = "truncated" if len(raw) - header < expected else "longer than its header says"
        raise IdxError(f"{name}: {state}: {len(raw) - header:,} bytes of data, the header announces "
                       f"{expected:,} ({'×'.join(map(str, shape))}).")
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)


def write_idx(path: str | Path, array: np.ndarray, compress: bool | None = None) -> None:
    """Write ``array`` (uint8) as IDX; gzip when ``compress`` (default: when the name ends in .gz)."""
    path = Path(path)
    array = np.ascontiguousarray(array, dtype=np.uint8)
    data = struct.pack(">HBB", 0, _UNSIGNED_BYTE, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    data += array.tobytes()
    if compress if compress is not None else path.suffix == ".gz":
        data = gzip.compress(data, compresslevel=6)
    path.write_bytes(data)


def _gunzip(raw: bytes) -> bytes:
    with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
        data = stream.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise OSError(f"decompresses to more than {MAX_BYTES // 2**20} MB")
    return data

