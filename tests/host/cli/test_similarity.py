"""``pagekeeper similarity A.html B.html`` on real saved pages, in-process and as a real process."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from host.cli.entry import main

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
ARTICLE, OTHER_BLOG, CHIP_TEST = "66ccd752a9bb2db9", "85b666998a03fcc0", "f158ac51f8c9d889"


def saved(tmp_path: Path, name: str, edit=None) -> Path:
    html = gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())
    if edit:
        html = edit(html)
    path = tmp_path / f"{name}{'-edited' if edit else ''}.html"
    path.write_bytes(html)
    return path


def run(capsys, *argv) -> tuple[int, dict, str]:
    code = main(["similarity", *map(str, argv), "--json"])
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else {}, captured.err


def test_a_page_is_identical_to_itself(tmp_path, capsys):
    page = saved(tmp_path, ARTICLE)
    code, result, _ = run(capsys, page, page)
    assert code == 0
    assert result == {"similarity": 1.0, "content_similarity": 1.0}


def test_a_new_version_is_close_on_both_measures(tmp_path, capsys):
    def reword(html: bytes) -> bytes:  # a paragraph added after the article's first one
        added = b"<p>Nachtrag: ein neuer Absatz mit einigen neuen Worten zum Thema.</p>"
        first = html.index(b"</p>", html.index(b'class="entry-content"')) + len(b"</p>")
        return html[:first] + added + html[first:]

    code, result, _ = run(capsys, saved(tmp_path, ARTICLE), saved(tmp_path, ARTICLE, reword))
    assert code == 0
    assert 0.9 < result["similarity"] <= 1.0
    assert 0.8 < result["content_similarity"] < 1.0


def test_pages_of_different_sites_are_far_apart(tmp_path, capsys):
    code, result, _ = run(capsys, saved(tmp_path, ARTICLE), saved(tmp_path, CHIP_TEST))
    assert code == 0
    assert result["similarity"] < 0.5
    assert result["content_similarity"] < 0.1


def test_argument_order_does_not_matter(tmp_path, capsys):
    a, b = saved(tmp_path, ARTICLE), saved(tmp_path, OTHER_BLOG)
    assert run(capsys, a, b)[1] == run(capsys, b, a)[1]


def test_missing_file_is_invalid_input_as_for_extract(tmp_path, capsys):
    """A file is no registration, version or document: never not_found (host/cli/files.py)."""
    code, result, err = run(capsys, saved(tmp_path, ARTICLE), tmp_path / "nope.html")
    assert code == 2
    assert result["error"]["code"] == "invalid_input"
    assert "nope.html" in err


def test_binary_file_is_a_decode_error(tmp_path, capsys):
    png = tmp_path / "image.html"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(4096))
    code, result, _ = run(capsys, saved(tmp_path, ARTICLE), png)
    assert code == 2
    assert result["error"]["code"] == "decode_error"


def test_human_output(tmp_path, capsys):
    page = saved(tmp_path, ARTICLE)
    assert main(["similarity", str(page), str(page)]) == 0
    assert capsys.readouterr().out.strip() == "similarity 1.0000  content 1.0000"


@pytest.mark.slow
def test_the_installed_command(tmp_path):
    """The real console script in a real process."""
    exe = Path(sys.executable).with_name("pagekeeper")
    a, b = saved(tmp_path, ARTICLE), saved(tmp_path, OTHER_BLOG)
    done = subprocess.run(
        [str(exe), "--json", "similarity", str(a), str(b)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"similarity", "content_similarity"}
    assert 0.0 <= result["similarity"] < 0.6
