"""The one reader of a page file a command is given (``extract``, ``liveness``, ``similarity``,
``archive add --html``, ``archive import-bookmarks``), so every command answers a bad file alike,
as the error tree says (engine/errors.py):

* a file that cannot be read (missing, a folder, no permission, damaged gzip) is
  ``invalid_input``: it is no registration, version or document, so never ``not_found``;
* a file above the command's cap is ``too_large``;
* bytes that are not a page (``decode_error``) are the command's own judgement.

>>> read_input("/no/such/file.html", 10)
Traceback (most recent call last):
...
engine.errors.InvalidInput: cannot read /no/such/file.html: No such file or directory
"""

from __future__ import annotations

import gzip
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
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InvalidInput(f"cannot read {path}: {reason}") from exc
    if len(data) > cap:
        raise TooLarge(f"{path} is larger than the cap of {cap} bytes once gunzipped")
    return data
