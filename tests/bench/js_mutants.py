"""Mutants of an ES module (extension/), for tests/bench/mutate.py: the same run, restore and
count as its Python mutants, with operators written over JavaScript's own tokens.

Operators (each mutant is ONE change; line breaks are kept, so a mutant's line is its source's):

* ``compare``: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``===`` ↔ ``!==``, ``==`` ↔ ``!=``;
* ``logic``: ``&&`` ↔ ``||``;
* ``negate``: the condition of an ``if`` or a ``while`` wrapped in ``!( )``;
* ``drop return`` / ``drop throw``: the whole statement becomes the empty statement ``;``
  (an early exit or a guard that no longer stops anything);
* ``drop await``: the keyword removed (the promise is no longer waited for);
* ``drop statement``: an expression statement that starts its line (a call such as a
  ``storage.session`` write or a ``removeListener``, an assignment) becomes ``;``;
* ``number``: a numeric literal plus one;
* ``bool``: ``true`` ↔ ``false``.

Strings, template text, regular expressions and comments are never mutated: the tokenizer
below skips them (template literals' ``${…}`` are code and are tokenized).

    >>> [s.what for s in sites("if (a < 1 && ok) return true;\\n", None)]
    ['compare < → <=', 'logic && → ||', 'negate if (a < 1 && ok)', 'drop return true', 'number 1 → 2', 'bool true → false']
    >>> mutant_text("if (a < 1 && ok) return true;\\n", 3)
    'if (a < 1 && ok) ;\\n'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

MARKER = "// MUTANT written by tests/bench/mutate.py: the original is restored by its next run\n"

KEYWORDS = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "let",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "async",
        "await",
        "static",
        "of",
    ]
)
# After these, a `/` starts a regular expression, not a division.
_REGEX_AFTER_NAMES = frozenset(
    [
        "return",
        "typeof",
        "instanceof",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "case",
        "do",
        "else",
    ]
)
_PUNCT = sorted(
    [
        "===",
        "!==",
        "**=",
        "<<=",
        ">>=",
        ">>>",
        "...",
        "=>",
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        "??",
        "?.",
        "++",
        "--",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "**",
        "<<",
        ">>",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        "<",
        ">",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "|",
        "^",
        "!",
        "~",
        "?",
        ":",
        "=",
        ".",
        "@",
        "#",
    ],
    key=len,
    reverse=True,
)
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_SWAP = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "===": "!==",
    "!==": "===",
    "==": "!=",
    "!=": "==",
}


@dataclass(frozen=True)
class Token:
    kind: str  # name, num, punct (strings, templates' text, regexes and comments are skipped)
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Site:
    index: int
    line: int
    what: str
    start: int
    end: int
    replacement: str


def tokens(source: str) -> list[Token]:
    """The code tokens of ``source``, in order."""
    out: list[Token] = []
    braces: list[str] = []  # "{" for a block or object, "${" for a template's expression
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("//", i):
            i = _line_end(source, i)
        elif source.startswith("/*", i):
            i = source.index("*/", i + 2) + 2
        elif c in "'\"":
            i = _string_end(source, i)
        elif c == "`" or (c == "}" and braces and braces[-1] == "${"):
            if c == "}":
                braces.pop()
            i, opened = _template_part_end(source, i + 1)
            if opened:
                braces.append("${")
        elif c == "/" and _regex_may_start(out):
            i = _regex_end(source, i)
        elif m := _NUMBER.match(source, i):
            out.append(Token("num", m.group(), i, m.end()))
            i = m.end()
        elif m := _NAME.match(source, i):
            out.append(Token("name", m.group(), i, m.end()))
            i = m.end()
        else:
            p = next((p for p in _PUNCT if source.startswith(p, i)), c)
            if p == "{":
                braces.append("{")
            elif p == "}" and braces:
                braces.pop()
            out.append(Token("punct", p, i, i + len(p)))
            i += len(p)
    return out


def _line_end(source: str, i: int) -> int:
    end = source.find("\n", i)
    return len(source) if end < 0 else end


def _string_end(source: str, i: int) -> int:
    quote, i = source[i], i + 1
    while source[i] != quote:
        i += 2 if source[i] == "\\" else 1
    return i + 1


def _template_part_end(source: str, i: int) -> tuple[int, bool]:
    """From inside a template's text: the index after its end, and whether a ``${`` opened."""
    while True:
        if source[i] == "\\":
            i += 2
        elif source[i] == "`":
            return i + 1, False
        elif source.startswith("${", i):
            return i + 2, True
        else:
            i += 1


def _regex_may_start(before: list[Token]) -> bool:
    if not before:
        return True
    last = before[-1]
    if last.kind == "name":
        return last.text in _REGEX_AFTER_NAMES
    return last.kind == "punct" and last.text not in (")", "]", "}")


def _regex_end(source: str, i: int) -> int:
    i += 1
    in_class = False
    while source[i] != "/" or in_class:
        if source[i] == "\\":
            i += 1
        elif source[i] == "[":
            in_class = True
        elif source[i] == "]":
            in_class = False
        i += 1
    m = _NAME.match(source, i + 1)
    return m.end() if m else i + 1


def _matching(toks: list[Token], k: int) -> int:
    """The index of the bracket that closes ``toks[k]``."""
    depth = 0
    for j in range(k, len(toks)):
        if toks[j].text in ("(", "[", "{"):
            depth += 1
        elif toks[j].text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced bracket at {toks[k].start}")


def _statement_end(toks: list[Token], k: int) -> int | None:
    """The index of the ``;`` that ends the statement starting at ``toks[k]``, or None when it is
    not a statement of its own (an object's member, a method: a ``,`` or ``:`` at its level, or its
    block closes first)."""
    depth = 0
    for j in range(k, len(toks)):
        t = toks[j].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and t in (",", ":"):
            return None
        elif depth == 0 and t == ";":
            return j
    return None


def _openers(toks: list[Token]) -> dict[int, int]:
    """For each ``)``, the index of its ``(``."""
    stack: list[int] = []
    out: dict[int, int] = {}
    for j, tok in enumerate(toks):
        if tok.text == "(":
            stack.append(j)
        elif tok.text == ")" and stack:
            out[j] = stack.pop()
    return out


def _closes_condition(toks: list[Token], opener: dict[int, int], j: int) -> bool:
    """``toks[j]`` is the ``)`` of an ``if (…)``, ``while (…)`` or ``for (…)``: what follows is
    the statement it guards (``if (next !== tab) await sessionStore.set(…);``)."""
    if j < 0 or toks[j].text != ")" or j not in opener or opener[j] == 0:
        return False
    return toks[opener[j] - 1].text in ("if", "while", "for")


def _starts_line(source: str, tok: Token) -> bool:
    return source[source.rfind("\n", 0, tok.start) + 1 : tok.start].strip() == ""


def _blank(source: str, start: int, end: int) -> str:
    """``;`` with the line breaks of ``source[start:end]`` kept."""
    return ";" + "\n" * source.count("\n", start, end)


def _plus_one(text: str) -> str:
    clean = text.replace("_", "")
    if clean[:2].lower() == "0x":
        return hex(int(clean, 16) + 1)
    if re.fullmatch(r"\d+", clean):
        return str(int(clean) + 1)
    return repr(float(clean) + 1)


def sites(source: str, lines: tuple[int, int] | None) -> list[Site]:
    """Every mutant of ``source`` (on lines A-B when given), numbered from 0."""
    toks = tokens(source)
    opener = _openers(toks)
    found: list[tuple[int, str, int, int, str]] = []  # start, what, span, replacement

    def add(what: str, start: int, end: int, replacement: str) -> None:
        found.append((start, what, start, end, replacement))

    for k, tok in enumerate(toks):
        prev = toks[k - 1].text if k else None
        if tok.kind == "punct" and tok.text in _SWAP:
            add(f"compare {tok.text} → {_SWAP[tok.text]}", tok.start, tok.end, _SWAP[tok.text])
        elif tok.text in ("&&", "||"):
            other = "||" if tok.text == "&&" else "&&"
            add(f"logic {tok.text} → {other}", tok.start, tok.end, other)
        elif tok.kind == "num" and prev != ".":
            add(
                f"number {tok.text} → {_plus_one(tok.text)}",
                tok.start,
                tok.end,
                _plus_one(tok.text),
            )
        elif tok.kind == "name" and tok.text in ("true", "false") and prev != ".":
            other = "false" if tok.text == "true" else "true"
            add(f"bool {tok.text} → {other}", tok.start, tok.end, other)
        elif tok.kind == "name" and tok.text in ("if", "while") and prev != ".":
            close = _matching(toks, k + 1)
            a, b = toks[k + 1].end, toks[close].start
            cond = " ".join(source[a:b].split())
            add(f"negate {tok.text} ({cond[:50]})", a, b, f"!({source[a:b]})")
        elif tok.kind == "name" and tok.text in ("return", "throw") and prev != ".":
            end = _statement_end(toks, k + 1) if toks[k + 1].text != ";" else k + 1
            if end is not None:
                body = " ".join(source[tok.start : toks[end].start].split())
                add(
                    f"drop {body[:60]}",
                    tok.start,
                    toks[end].end,
                    _blank(source, tok.start, toks[end].end),
                )
        elif tok.kind == "name" and tok.text == "await" and prev != ".":
            add(f"drop await ({_snippet(source, tok)})", tok.start, toks[k + 1].start, "")
        if (
            tok.kind == "name"
            and (tok.text not in KEYWORDS or tok.text == "await")
            and (prev in (None, ";", "{", "}", "else") or _closes_condition(toks, opener, k - 1))
            and (_starts_line(source, tok) or _closes_condition(toks, opener, k - 1))
        ):
            end = _statement_end(toks, k)
            if end is not None and end > k + 1:
                body = " ".join(source[tok.start : toks[end].start].split())
                add(
                    f"drop statement {body[:60]}",
                    tok.start,
                    toks[end].end,
                    _blank(source, tok.start, toks[end].end),
                )
    out = []
    for index, (start, what, a, b, replacement) in enumerate(found):
        line = source.count("\n", 0, start) + 1
        if lines is None or lines[0] <= line <= lines[1]:
            out.append(Site(index, line, what, a, b, replacement))
    return out


def _snippet(source: str, tok: Token) -> str:
    return " ".join(source[tok.start : tok.start + 60].split("\n")[0].split())[:50]


@functools.lru_cache(maxsize=4)
def _every_site(source: str) -> tuple[Site, ...]:
    return tuple(sites(source, None))


def mutant_text(source: str, index: int) -> str:
    """``source`` with the ``index``-th mutant of :func:`sites` put in (no marker)."""
    site = _every_site(source)[index]
    return source[: site.start] + site.replacement + source[site.end :]


def mutant(source: str, index: int) -> str:
    """The text written over the module: the marker line, then the mutant."""
    return MARKER + mutant_text(source, index)
