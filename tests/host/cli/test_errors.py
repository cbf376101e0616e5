"""Every command answers the same bad input with the same code, as the error tree says
(engine/errors.py): a well-formed ID that is not stored is ``not_found``; input that is no
ID, no version URL and no URL is ``invalid_url``; a page's URL where a version is asked for,
or a file that cannot be read, is ``invalid_input``. One reader of page files
(host/cli/files.py), one resolver of refs (engine/archive/provider.py: ``resolve_id``)."""

from __future__ import annotations

import contextlib
import json
import re

import pytest

from host.cli.entry import EXIT_CODES, error_classes, exit_code, main
from tests.host.daemon_fixtures import make_home


def answer(capsys, *args: str) -> tuple[int, str]:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)["error"]["code"] if code else ""


def file_commands(bad: str, good: str) -> dict[str, list[str]]:
    return {
        "similarity": ["similarity", good, bad],
        "extract": ["extract", bad],
        "liveness": ["liveness", "--stored", bad, "--live", good],
        "archive add --html": ["archive", "add", "http://a.example/", "--html", bad],
        "import-bookmarks": ["archive", "import-bookmarks", bad],
        "archive import": ["archive", "import", bad],
    }


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_a_file_that_cannot_be_read_is_invalid_input_for_every_command(capsys, tmp_path, kind):
    home = make_home(tmp_path)
    good = tmp_path / "good.html"
    good.write_text("<title>x</title><p>hello there</p>")
    bad = tmp_path / ("nope.html" if kind == "missing" else "a-folder")
    if kind == "folder":
        bad.mkdir()
    for name, args in file_commands(str(bad), str(good)).items():
        assert answer(capsys, *args, "--home", str(home)) == (2, "invalid_input"), name


@pytest.mark.parametrize("kind", ["missing folder", "file for its folder", "folder"])
def test_an_output_path_in_no_folder_or_naming_a_folder_is_the_users_input(
    capsys, tmp_path, monkeypatch, kind
):
    """``get -o`` and ``export -o`` into a folder that does not exist, or onto a folder, are
    ``invalid_input`` (exit 2) naming the path (the user's input, not the archive's storage:
    exit 5), checked before anything is read; no folder is made for a mistyped path."""
    home = make_home(tmp_path)
    page = tmp_path / "page.html"
    page.write_text("<title>x</title><p>hello there, a page to write out</p>")
    monkeypatch.chdir(tmp_path)
    added = answer(
        capsys, "archive", "add", "http://a.example/", "--html", str(page), "--home", str(home)
    )
    assert added == (0, "")
    main(["archive", "versions", "http://a.example/", "--home", str(home), "--json"])
    version = json.loads(capsys.readouterr().out)[0]["id"]
    missing = tmp_path / "no-such-folder"
    target = {"missing folder": missing / "out", "file for its folder": page / "out"}.get(
        kind, tmp_path
    )
    said = "it is a folder" if kind == "folder" else "no folder"
    for args in (
        ["archive", "get", version, "-o", str(target)],
        ["archive", "export", "-o", str(target)],
    ):
        code = main([*args, "--home", str(home), "--json"])
        error = json.loads(capsys.readouterr().out)["error"]
        assert (code, error["code"]) == (2, "invalid_input"), (args, error)
        assert said in error["message"] and str(target) in error["message"], error
    assert not missing.exists()


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        ("abc", (2, "invalid_input")),
        ("-1", (2, "invalid_input")),
        ("12x", (2, "invalid_input")),  # a number's prefix is no number
        ("1 2", (2, "invalid_input")),
        ("\u0661\u0662", (2, "invalid_input")),  # digits, but not the ASCII ones delete prints
        ("99", (3, "not_found")),
        (" 99 ", (3, "not_found")),  # spaces around it, as pasted
    ],
)
def test_an_undo_number_follows_the_ref_rule(capsys, tmp_path, number, expected):
    """``archive undo``: text that is no undo number is bad input (exit 2), as a ref that is no
    ID is; a well-formed number with no deletion behind it is ``not_found`` (exit 3)."""
    home = make_home(tmp_path)
    code, said = answer(capsys, "archive", "undo", number, "--home", str(home))
    assert (code, said) == expected


def ref_commands(ref: str) -> dict[str, list[str]]:
    return {
        "get": ["archive", "get", ref],
        "similar": ["archive", "similar", ref],
        "export --id": ["archive", "export", "--id", ref, "-o", "x.warc.gz"],
        "check": ["check", ref],
        "versions": ["archive", "versions", ref],
        "delete": ["archive", "delete", ref],
        "note": ["archive", "note", ref, "hi"],
    }


@pytest.mark.parametrize(
    ("ref", "expected", "commands"),
    [
        ("12345", (2, "invalid_url"), None),  # no ID, no version URL, no URL
        ("nosuchid", (2, "invalid_url"), None),
        ("20990101000000000000", (3, "not_found"), None),  # well formed, not stored
        ("http://127.0.0.1:47477/v/20990101000000000000/x", (3, "not_found"), None),
        ("http://127.0.0.1:47477/v/123/x", (2, "invalid_input"), ("get", "similar")),
        ("http://a.example/", (2, "invalid_input"), ("get", "similar", "export --id")),
    ],
)
def test_every_command_answers_a_ref_alike(capsys, tmp_path, monkeypatch, ref, expected, commands):
    home = make_home(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name, args in ref_commands(ref).items():
        if commands is None or name in commands:
            assert answer(capsys, *args, "--home", str(home)) == expected, name


def test_help_lists_every_exit_status_with_the_codes_that_lead_to_it(capsys, tmp_path):
    """``pagekeeper --help`` documents each status main returns, and the error codes of each,
    as the mapper computes them; then two real errors exit as the table says."""
    with contextlib.suppress(SystemExit):
        main(["--help"])
    said = capsys.readouterr().out
    table = said.split("exit status", 1)[1]
    for status in {*EXIT_CODES.values(), 0, 130}:
        assert re.search(rf"^  {status}\s", table, re.M), (status, table)
    listed = {
        status: re.sub(r"\s+", " ", text)
        for status, text in re.findall(r"^  (\d+)\s+(.+?)(?=^  \d|\Z)", table, re.M | re.S)
    }
    for cls in error_classes():
        assert re.search(rf"\b{cls.code}\b", listed[str(exit_code(cls()))]), cls
    home = str(make_home(tmp_path))
    assert main(["archive", "get", "12345678901234567890", "--home", home]) == 3
    assert re.search(r"\bnot_found\b", listed["3"])
    assert main(["archive", "get", "abc", "--home", home]) == 2
    assert re.search(r"\binvalid_url\b", listed["2"])


@pytest.mark.parametrize(
    "argv",
    [
        ["archive", "add", "notaurl"],
        ["archive", "crawl", "notaurl", "--depth", "1"],
        ["archive", "schedule", "notaurl"],
        ["archive", "versions", "notaurl"],
        ["check", "notaurl"],
        ["suggest", "notaurl"],
    ],
)
def test_a_text_that_is_no_url_is_named_in_the_error(capsys, tmp_path, argv):
    """``invalid_url`` (exit 2) says which input it refused, as typed: the parser's own
    reason ("no scheme …") names none."""
    code = main([*argv, "--home", str(make_home(tmp_path)), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert code == 2 and error["code"] == "invalid_url"
    assert "'notaurl'" in error["message"], error


@pytest.mark.parametrize("argv", [[], ["archive"]])
def test_a_missing_command_with_json_is_a_typed_usage_error(capsys, argv):
    assert main([*argv, "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "invalid_input" and "give a command" in error["message"]
    assert main(argv) == 2  # for people: the help itself
    assert capsys.readouterr().out.startswith("usage: pagekeeper")
