"""What every batch command shares (``normalize`` from stdin, ``parse --batch``, ``suggest
--batch``, ``extract --batch``, ``liveness --batch``): one output line per input line, in
order, always, so a caller can zip its inputs with the outputs.

* A line that cannot be answered (malformed, a file that cannot be read, a blank line) gets
  its own error line, and the run goes on.
* An error line carries ``"line"``: the input's line number, from 1 (every input line
  counts, blank ones too).
* A blank line (nothing but white space) is ``invalid_input``: an input was expected there.

>>> list(numbered(["a\\n", "\\r\\n", "b"]))
[(1, 'a'), (2, ''), (3, 'b')]
>>> error_line(2, blank_line(), id=None)
{'id': None, 'error': {'code': 'invalid_input', 'message': 'blank line: one input per line expected'}, 'line': 2}
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.errors import InvalidInput, error_payload


def read_lines(stream) -> Iterator[str]:
    """Lines of ``stream`` without their terminator. Bytes that are not UTF-8 become lone
    surrogates (so they reach the command and get a typed error instead of stopping the
    batch)."""
    source = getattr(stream, "buffer", None)
    for line in source if source is not None else stream:
        if isinstance(line, bytes):
            line = line.decode("utf-8", "surrogateescape")
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        yield line


def numbered(stream) -> Iterator[tuple[int, str]]:
    """``(line number from 1, line)`` for every line of ``stream``, blank ones included."""
    return enumerate(read_lines(stream), 1)


def is_blank(text: str) -> bool:
    """Nothing but white space (a blank line is no input)."""
    return not text.strip()


def blank_line() -> InvalidInput:
    """The error a blank input line answers with (its number is the error line's ``line``)."""
    return InvalidInput("blank line: one input per line expected")


def error_line(number: int, exc: BaseException, **fields) -> dict:
    """A batch command's error line: its own ``fields`` (the echoed input), ``error`` and
    ``line``."""
    return {**fields, "error": error_payload(exc), "line": number}


def with_line(record: dict, number: int) -> dict:
    """``record`` with its ``line`` when it is an error line (answers stay as they were)."""
    return {**record, "line": number} if "error" in record else record
