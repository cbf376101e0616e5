"""Percent-escape rewriting for ``pct_upper`` and ``pct_decode_unreserved``.

One regex matches only the escapes that would change (a lowercase hex digit,
or an unreserved character when decoding), so the common case, escapes that
are already uppercase and reserved or non-ASCII (``%2F``, ``%C3%A9``), costs
one ``sub`` without a match (and normalize.py skips it for URLs without "%"). Decoding is a single pass over the original text: ``%25``
is reserved and never decoded, so ``%2541`` stays (no repeated unescaping).

>>> escapes = Escapes(upper=True, decode=True)
>>> escapes.sub(escapes.replace, "/%7euser/a%2fb%41")
'/~user/a%2FbA'
"""

from __future__ import annotations

import re

# RFC 3986 2.3 unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
HEX = "0123456789abcdefABCDEF"
# Escapes holding a lowercase hex digit.
LOWER = r"[a-f][0-9A-Fa-f]|[0-9A-F][a-f]"
# Escapes of unreserved characters: 2D 2E 30-39 41-5A 5F 61-7A 7E, any case.
UNRESERVED_CODES = r"2[DdEe]|3[0-9]|4[1-9A-Fa-f]|5[0-9AaFf]|6[1-9A-Fa-f]|7[0-9AaEe]"


class Escapes:
    """Rewrites ``%xx`` escapes: uppercase hex digits, decode unreserved ones."""

    __slots__ = ("sub", "replace")

    def __init__(self, upper: bool, decode: bool) -> None:
        table = {}
        for a in HEX:
            for b in HEX:
                escape, char = f"%{a}{b}", chr(int(a + b, 16))
                table[escape] = (
                    char if decode and char in UNRESERVED else escape.upper() if upper else escape
                )
        alternatives = [LOWER] if upper else []
        alternatives += [UNRESERVED_CODES] if decode else []
        pattern = re.compile("%(?:" + "|".join(alternatives or ["(?!)"]) + ")")
        self.sub = pattern.sub
        self.replace = lambda match: table[match[0]]
