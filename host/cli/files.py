"""The one reader of a page file a command is given (``extract``, ``liveness``, ``similarity``,
``archive add --html``, ``archive import``, ``archive import-bookmarks``), and the one judge of
an output file a command is told to write (``archive get -o``, ``archive export -o``), so every
command answers a bad path alike, as the error tree says (engine/errors.py):

* a file that cannot be read (missing, a folder, no permission, damaged gzip) is
  ``invalid_input``: it is no registration, version or document, so never ``not_found``;
* a file above the command's cap is ``too_large``;
* bytes that are not a page (``decode_error``) are the command's own judgement;
* an output path whose folder does not exist, or that is a folder, is the user's input:
  ``invalid_input`` naming the folder, before anything is read or written (no folder is
  made: a mistyped path would leave a stray one). A folder that exists and cannot be written
  (permissions, a full disk) stays ``storage``.

>>> read_input("/no/such/file.html", 10)
Traceback (most recent call last):
...
engine.errors.InvalidInput: cannot read /no/such/file.html: No such file or directory
"""

from __future__ import annotations

import zlib
from pathlib import Path

from engine.errors import InvalidInput, TooLarge


def read_input(path: str, cap: int, gunzip: bool = False) -> bytes:
    """The file's bytes (gunzipped when ``gunzip`` and it is gzip, by magic number, any
    suffix); a file above ``cap`` bytes, before or after gunzipping, is refused before it is
    read whole."""
    try:
        if Path(path).stat().st_size > cap:
            raise TooLarge(f"{path} is larger than the cap of {cap} bytes")
        data = Path(path).read_bytes()
        if gunzip and data[:2] == b"\x1f\x8b":
            data = gunzip_capped(data, cap, path)
    except (OSError, EOFError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InvalidInput(f"cannot read {path}: {reason}") from exc
    return data


def output_path(name: str) -> Path:
    """The absolute path of an output file a command was given, once its folder is known to
    exist and the path is no folder itself.

    >>> output_path("/no/such/folder/page.html")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: cannot write /no/such/folder/page.html: no folder /no/such/folder (create it first, or give another path)
    """
    path = Path(name).absolute()
    if path.is_dir():
        raise InvalidInput(f"cannot write {path}: it is a folder (give a file name in it)")
    if not path.parent.is_dir():
        raise InvalidInput(
            f"cannot write {path}: no folder {path.parent} (create it first, or give another path)"
        )
    return path


def gunzip_capped(data: bytes, cap: int, path: str = "the file") -> bytes:
    """Every gzip member of ``data`` (RFC 1952 §2.2: members may follow one another),
    decompressed no further than ``cap`` bytes: a small file that inflates to gigabytes is
    refused after ``cap + 1`` bytes, never held whole. Zero bytes after the last member are
    padding (as :func:`gzip.decompress` allows).

    >>> import gzip
    >>> gunzip_capped(gzip.compress(b"ab") + gzip.compress(b"c"), 3)
    b'abc'
    >>> gunzip_capped(gzip.compress(b"x" * 10), 9)
    Traceback (most recent call last):
    ...
    engine.errors.TooLarge: the file is larger than the cap of 9 bytes once gunzipped
    """
    out = bytearray()
    while data.count(0) < len(data):  # what is left is more than zero padding
        member = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        out += member.decompress(data, cap + 1 - len(out))
        if len(out) > cap:
            raise TooLarge(f"{path} is larger than the cap of {cap} bytes once gunzipped")
        if not member.eof:
            raise EOFError("compressed file ended before the end-of-stream marker was reached")
        data = member.unused_data
    return bytes(out)
