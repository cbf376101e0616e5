"""Every batch command answers one line per input line, blank lines included (host/cli/batch.py):
a caller zips its inputs with the outputs. Real processes, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_pagekeeper
from tests.dictionary_cache import seed_home_cache

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract"
ARTICLE = FIXTURES / "76e5d18c072b364b.html.gz"
BLANK = {"code": "invalid_input", "message": "blank line: one input per line expected"}


def answers(home, *args: str, lines: list[str]) -> list[dict]:
    done = run_pagekeeper(home, *args, stdin="\n".join(lines).encode() + b"\n", timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def jsonl(*items: dict | str) -> list[str]:
    return [x if isinstance(x, str) else json.dumps(x) for x in items]


def test_normalize_answers_a_blank_line_with_its_own_error_line(tmp_path):
    out = answers(
        tmp_path, "normalize", "--json", lines=["http://a.example/", "", " \t", "b.example"]
    )
    assert len(out) == 4
    assert out[0] == {"input": "http://a.example/", "url": "http://a.example/"}
    assert out[1] == {"input": "", "url": None, "error": BLANK, "line": 2}
    assert out[2] == {"input": " \t", "url": None, "error": BLANK, "line": 3}
    assert out[3]["error"]["code"] == "invalid_url" and out[3]["line"] == 4


def test_normalize_plain_keeps_the_blank_line_and_names_it(tmp_path):
    done = run_pagekeeper(tmp_path, "normalize", stdin=b"http://a.example/\n\nhttp://b.example/\n")
    assert done.stdout.decode().split("\n") == ["http://a.example/", "", "http://b.example/", ""]
    assert "line 2: invalid_input: blank line" in done.stderr.decode()
    assert done.returncode == 2


def test_parse_batch_answers_a_blank_line(tmp_path):
    out = answers(tmp_path, "parse", "--batch", lines=jsonl({"input": "http://x/"}, "", "nope"))
    assert len(out) == 3 and out[0]["href"] == "http://x/"
    assert out[1] == {"failure": True, "error": BLANK, "line": 2}
    assert out[2]["error"]["code"] == "bad_request" and out[2]["line"] == 3


@pytest.mark.parametrize("command", ["extract", "liveness"])
def test_page_batches_answer_a_blank_line(tmp_path, command):
    page = (
        {"path": str(ARTICLE)}
        if command == "extract"
        else {"stored": str(ARTICLE), "live": str(ARTICLE)}
    )
    out = answers(
        tmp_path, command, "--batch", lines=jsonl({"id": "a", **page}, "  ", {"id": "b", **page})
    )
    assert [o["id"] for o in out] == ["a", None, "b"]
    assert out[1] == {"id": None, "error": BLANK, "line": 2}
    assert "error" not in out[0] and "line" not in out[0] and "error" not in out[2]


def test_suggest_batch_answers_a_blank_line(tmp_path):
    seed_home_cache(tmp_path)
    out = answers(
        tmp_path, "suggest", "--batch", lines=jsonl({"url": "http://gogle.com/"}, "", "not json")
    )
    assert len(out) == 3 and out[0]["suggestions"]
    assert out[1] == {"url": None, "error": BLANK, "line": 2}
    assert out[2]["error"]["code"] == "invalid_input" and out[2]["line"] == 3
