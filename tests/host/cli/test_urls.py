"""``pagekeeper normalize`` and ``pagekeeper parse`` through the real CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.urls.normalize import NormalizeOptions, normalize
from host.cli.entry import main
from tests.conftest import run_pagekeeper

ROOT = Path(__file__).resolve().parents[3]


def pagekeeper(tmp_path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return run_pagekeeper(tmp_path, *args, stdin=stdin, timeout=60)


BATCH = [
    "HTTP://www.Example.com/a/index.html?utm_source=x&b=2&a=1#top",
    "",
    "http://exa mple.com/",
    "http://1.2.3.256/",
    "https://example.com/docs#/intro",
]


def test_normalize_json_batch_keeps_order_and_types_errors(tmp_path):
    done = pagekeeper(tmp_path, "normalize", "--json", stdin="\n".join(BATCH).encode() + b"\n")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["input"] for r in records] == BATCH
    assert records[0] == {"input": BATCH[0], "url": "http://example.com/a/?a=1&b=2"}
    assert records[4]["url"] == "https://example.com/docs/#/intro"
    for number, record in enumerate(records[1:4], 2):
        assert record["url"] is None and record["line"] == number
        assert record["error"]["code"] == ("invalid_input" if number == 2 else "invalid_url")
        assert record["error"]["message"]
    assert "IPv4" in records[3]["error"]["message"]


def test_normalize_plain_output_one_line_per_input_and_exit_code(tmp_path):
    done = pagekeeper(tmp_path, "normalize", stdin="\n".join(BATCH).encode())
    assert done.stdout.decode().split("\n")[:-1] == [
        "http://example.com/a/?a=1&b=2",
        "",
        "",
        "",
        "https://example.com/docs/#/intro",
    ]
    assert done.returncode == 2
    stderr = done.stderr.decode()
    assert "line 2: invalid_input: blank line" in stderr and "line 4" in stderr


def test_normalize_arguments_profile_and_rules(tmp_path):
    url = "HTTP://www.Example.com:80/a/b?utm_source=x"
    safe = pagekeeper(tmp_path, "normalize", "--profile", "safe", url)
    assert safe.stdout.decode() == "http://www.example.com/a/b?utm_source=x\n"
    adjusted = pagekeeper(tmp_path, "normalize", "--rules=-www,-trailing_slash_dir", url, url)
    assert adjusted.stdout.decode() == "http://www.example.com/a/b\n" * 2
    dotted = "HTTP://www.Example.com.:80/a/b?utm_source=x"
    plus_first = pagekeeper(tmp_path, "normalize", "--rules", "+host_trailing_dot,-www", dotted)
    assert plus_first.stdout.decode() == "http://www.example.com/a/b/\n"


def test_normalize_bad_bytes_and_huge_lines_do_not_stop_the_batch(tmp_path):
    stdin = (
        b"http://a.example/\n\xff\xfe://x\n"
        + b"http://b.example/"
        + b"x" * 100_000
        + b"\nhttp://c.example/\n"
    )
    done = pagekeeper(tmp_path, "normalize", "--json", stdin=stdin)
    assert done.returncode == 0
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["url"] for r in records] == ["http://a.example/", None, None, "http://c.example/"]
    assert records[1]["error"]["code"] == "invalid_url"
    assert records[2]["error"]["code"] == "too_large"


def test_list_rules_per_profile(tmp_path):
    for profile, expected_on in (("safe", 17), ("archive", 23), ("aggressive", 28)):
        done = pagekeeper(tmp_path, "normalize", "--list-rules", "--profile", profile)
        listing = json.loads(done.stdout)
        assert len(listing) == 28 and sum(listing.values()) == expected_on
    done = pagekeeper(tmp_path, "normalize", "--list-rules", "--rules", "+host_trailing_dot,-www")
    listing = json.loads(done.stdout)
    assert listing["host_trailing_dot"] is True and listing["www"] is False


def test_unknown_rule_is_a_usage_error(tmp_path):
    done = pagekeeper(tmp_path, "--json", "normalize", "--rules", "+nope", "http://x/")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "invalid_input"


def test_parse_single_and_relative(tmp_path):
    done = pagekeeper(tmp_path, "--json", "parse", "../x?y#z", "--base", "http://example.com/a/b/")
    assert json.loads(done.stdout) == {
        "href": "http://example.com/a/x?y#z",
        "protocol": "http:",
        "username": "",
        "password": "",
        "host": "example.com",
        "hostname": "example.com",
        "port": "",
        "pathname": "/a/x",
        "search": "?y",
        "hash": "#z",
    }
    bad = pagekeeper(tmp_path, "--json", "parse", "http://[::1")
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["code"] == "invalid_url"


def test_parse_batch_survives_malformed_lines(tmp_path):
    stdin = b'{"input": "http://x/", "base": null}\nnot json\n{"base": null}\n{"input": "a", "base": null}\n'
    done = pagekeeper(tmp_path, "parse", "--batch", stdin=stdin)
    assert done.returncode == 0
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert lines[0]["href"] == "http://x/"
    assert lines[1]["failure"] and lines[1]["error"]["code"] == "bad_request"
    assert lines[2]["failure"] and lines[2]["error"]["code"] == "bad_request"
    assert lines[3] == {"failure": True}


def test_parse_batch_treats_lone_surrogates_as_webidl_does(tmp_path):
    stdin = json.dumps({"input": "http://x/\ud800", "base": None}).encode() + b"\n"
    done = pagekeeper(tmp_path, "parse", "--batch", stdin=stdin)
    assert json.loads(done.stdout)["pathname"] == "/%EF%BF%BD"


def test_in_process_main_with_stdin(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO("http://EXAMPLE.com\r\nnope\n"))
    code = main(["--home", str(tmp_path), "normalize", "--json", "--profile", "safe"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert out[0]["url"] == "http://example.com/"
    assert out[1]["error"]["code"] == "invalid_url"


@pytest.mark.parametrize("profile", ["safe", "archive", "aggressive"])
def test_cli_agrees_with_the_engine(profile, tmp_path, capsys):

    url = "HTTP://www.Example.com:80/a/./index.html;jsessionid=1?ref=x&b=2&a=1#top"
    assert main(["--home", str(tmp_path), "normalize", "--profile", profile, url]) == 0
    expected = normalize(url, NormalizeOptions.from_profile(profile))
    assert capsys.readouterr().out == expected + "\n"


def test_every_kind_of_bad_input_gets_a_typed_error_line(tmp_path):
    lines = [
        "",  # empty
        "   ",  # spaces only
        "http://exa mple.com/",  # space in the host
        "http://exa\x01mple.com/",  # control character
        "http://example.com/" + "a" * 100_000,  # 100 KB
        "http://example.com/\ud800",  # lone surrogate
        "http://1.2.3.256/",  # invalid IPv4
        "https://example.com/fine",
    ]
    stdin = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"
    done = pagekeeper(tmp_path, "--json", "normalize", stdin=stdin)
    assert done.returncode == 0
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    codes = [r.get("error", {}).get("code") for r in records]
    assert codes == ["invalid_input"] * 2 + ["invalid_url"] * 2 + ["too_large"] + [
        "invalid_url"
    ] * 2 + [None]
    assert [r.get("line") for r in records] == [1, 2, 3, 4, 5, 6, 7, None]
    assert records[-1]["url"] == "https://example.com/fine/"
    assert all(r["url"] is None for r in records[:-1])


def test_rules_value_may_start_with_a_dash(tmp_path, capsys):
    url = "http://www.example.com/a#top"
    assert main(["--home", str(tmp_path), "normalize", "--rules", "-www,-fragment", url]) == 0
    assert (
        main(["--home", str(tmp_path), "normalize", "--rules", "-www", "--profile", "safe", url])
        == 0
    )
    assert (
        main(["--home", str(tmp_path), "normalize", "--rules=-host_case", "--profile", "safe", url])
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "http://www.example.com/a/#top",
        "http://www.example.com/a#top",
        "http://www.example.com/a#top",
    ]
