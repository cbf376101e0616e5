"""A side-by-side text diff of two versions' extracted text: line rows, changed words marked.

Lines are compared with :class:`difflib.SequenceMatcher`; runs of equal lines longer than
``2 * DIFF_CONTEXT + 1`` fold to one ``skip`` row; a changed line pair also gets its
changed words marked.

>>> rows, stats = diff_rows(diff_lines("Title\\n\\nold text"), diff_lines("Title\\nnew text"))
>>> [r["op"] for r in rows], stats["changed"]
(['equal', 'replace'], 1)
"""

from __future__ import annotations

import difflib
import re

MAX_DIFF_LINES = 20_000
DIFF_CONTEXT = 3


def diff_lines(text_value: str) -> list[str]:
    """Paragraph lines of a text, blank lines dropped, capped."""
    lines = [line.strip() for line in text_value.splitlines()]
    return [line for line in lines if line][:MAX_DIFF_LINES]


def word_parts(a: str, b: str) -> tuple[list, list]:
    """Changed words of one changed line pair as ``[[text, changed], ...]`` per side.

    >>> word_parts("the red car", "the blue car")
    ([['the ', False], ['red ', True], ['car', False]], [['the ', False], ['blue ', True], ['car', False]])
    """
    ta, tb = re.findall(r"\S+\s*", a), re.findall(r"\S+\s*", b)
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append(["".join(ta[i1:i2]), op != "equal"])
        if j2 > j1:
            right.append(["".join(tb[j1:j2]), op != "equal"])
    return left, right


def _equal_rows(a, b, i1, i2, j1, rows: list) -> None:
    n = i2 - i1
    shown = range(n) if n <= 2 * DIFF_CONTEXT + 1 else None
    if shown is None:
        keep = list(range(DIFF_CONTEXT)) if rows else []
        tail = list(range(n - DIFF_CONTEXT, n)) if i2 < len(a) else []
        for k in keep:
            rows.append(_row("equal", a, b, i1 + k, j1 + k))
        rows.append({"op": "skip", "count": n - len(keep) - len(tail)})
        for k in tail:
            rows.append(_row("equal", a, b, i1 + k, j1 + k))
        return
    for k in shown:
        rows.append(_row("equal", a, b, i1 + k, j1 + k))


def _row(op, a, b, i, j) -> dict:
    return {
        "op": op,
        "left_no": None if i is None else i + 1,
        "left": None if i is None else a[i],
        "right_no": None if j is None else j + 1,
        "right": None if j is None else b[j],
    }


def _changed_rows(op, a, b, i1, i2, j1, j2, rows: list, stats: dict) -> None:
    pairs = max(i2 - i1, j2 - j1)
    for k in range(pairs):
        i = i1 + k if i1 + k < i2 else None
        j = j1 + k if j1 + k < j2 else None
        kind = "replace" if i is not None and j is not None else "delete" if j is None else "insert"
        row = _row(kind, a, b, i, j)
        if kind == "replace":
            row["left"], row["right"] = word_parts(a[i], b[j])
        rows.append(row)
        stats[{"replace": "changed", "delete": "removed", "insert": "added"}[kind]] += 1


def diff_rows(a: list[str], b: list[str]) -> tuple[list[dict], dict]:
    """Side-by-side rows (equal runs folded to ``skip``) and counts.

    >>> rows, stats = diff_rows(["a", "b"], ["a", "c"])
    >>> [r["op"] for r in rows], stats["changed"]
    (['equal', 'replace'], 1)
    """
    rows: list[dict] = []
    stats = {"added": 0, "removed": 0, "changed": 0, "equal": 0}
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=len(a) + len(b) > 4000)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            stats["equal"] += i2 - i1
            _equal_rows(a, b, i1, i2, j1, rows)
        else:
            _changed_rows(op, a, b, i1, i2, j1, j2, rows, stats)
    return rows, stats
