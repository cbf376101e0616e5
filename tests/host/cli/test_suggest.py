"""``pagekeeper suggest`` through the real CLI (a real process, real files in a tmp home)."""

from __future__ import annotations

import json
import re
import subprocess
from argparse import Namespace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester
from host.cli.commands.suggest import batch_line
from host.cli.entry import main
from host.services import learning_file
from tests.conftest import run_pagekeeper
from tests.dictionary_cache import seed_home_cache
from tests.host.daemon_fixtures import SHARED_CACHE, make_home

ROOT = Path(__file__).resolve().parents[3]
SUGGESTER = Suggester(DomainDictionary.from_domains(["google.com", "facebook.com"]))
BATCH_ARGS = Namespace(error="dns", limit=5, timings=True)


def pagekeeper(home, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return run_pagekeeper(home, *args, stdin=stdin, timeout=120)


def test_single_url_json(tmp_path):
    done = pagekeeper(
        tmp_path, "suggest", "http://user:pw@gogle.com/maps?q=1", "--json", "--limit", "3"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["suggestions"][0]["url"] == "http://google.com/maps?q=1"
    assert set(result["suggestions"][0]) == {"url", "score", "step", "reason"}
    assert len(result["suggestions"]) <= 3
    assert "pw@" not in done.stdout.decode().split('"suggestions"')[1]
    assert list((tmp_path / "cache").glob("dictionary-*.idx")), (
        "the warm index cache was not written"
    )


def test_human_output_and_referrer(tmp_path):
    seed_home_cache(tmp_path)
    done = pagekeeper(
        tmp_path, "suggest", "http://faceboook.com/", "--referrer", "https://example.org/"
    )
    assert done.returncode == 0, done.stderr
    first = done.stdout.decode().splitlines()[0]
    assert "http://facebook.com/" in first and "[spelling]" in first


def test_batch_keeps_order_and_types_errors_per_line(tmp_path):
    seed_home_cache(tmp_path)
    lines = [
        {"url": "http://gogle.com/"},
        "not json",
        {"url": 5},
        {"url": "http://googlecom/", "error": "dns"},
        {"url": "ftp://example.com/"},
        {"url": "http://example.com/", "error": "bogus"},
        {"url": "http://ww.facebook.com/", "referrer": "https://news.ycombinator.com/"},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines).encode() + b"\n"
    done = pagekeeper(tmp_path, "suggest", "--batch", "--timings", stdin=stdin)
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(out) == len(lines)
    assert out[0]["suggestions"][0]["url"] == "http://google.com/"
    assert out[0]["elapsed_ms"] >= 0
    assert out[1]["error"]["code"] == "invalid_input"
    assert out[2]["error"]["code"] == "invalid_input" and out[2]["url"] == 5
    assert out[3]["suggestions"][0]["url"] == "http://google.com/"
    assert out[4]["error"]["code"] == "invalid_url"
    assert out[5]["error"]["code"] == "invalid_input"
    assert out[6]["suggestions"][0]["url"] == "http://www.facebook.com/"


def test_batch_survives_lines_the_output_cannot_carry(tmp_path):
    """JSON may hold a lone surrogate (\\ud800) that UTF-8 output cannot: that line gets an
    error (the url echoed with U+FFFD), the batch goes on; "error": null is the default kind."""
    seed_home_cache(tmp_path)
    stdin = (
        b'{"url": "http://g\\ud800ogle.com/"}\n'
        b'{"url": "http://gogle.com/", "referrer": "http://x\\udc00.com/"}\n'
        b'{"url": "http://gogle.com/", "error": null, "referrer": null, "languages": null}\n'
    )
    done = pagekeeper(tmp_path, "suggest", "--batch", stdin=stdin)
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(out) == 3
    assert out[0] == {
        "url": "http://g\ufffdogle.com/",
        "error": {"code": "invalid_url", "message": out[0]["error"]["message"]},
        "line": 1,
    }
    assert "error" in out[1] or out[1]["suggestions"][0]["url"] == "http://google.com/"
    assert out[2]["suggestions"][0]["url"] == "http://google.com/"


def test_custom_dictionary_replaces_the_bundled_one(tmp_path):
    csv = tmp_path / "dict.csv"
    csv.write_text("rank,domain\n1,zzexamplezz.com\n2,other.org\n")
    done = pagekeeper(
        tmp_path, "suggest", "http://zzexamplz.com/", "--json", "--dictionary", str(csv)
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["suggestions"][0]["url"] == "http://zzexamplezz.com/"
    # google.com is not in this dictionary: only an unverified segment repair, below 0.5
    done = pagekeeper(tmp_path, "suggest", "http://gogle.com/", "--json", "--dictionary", str(csv))
    found = json.loads(done.stdout)["suggestions"]
    assert all(s["step"] == "segments" and s["score"] < 0.5 for s in found), found


def test_a_bare_word_is_no_address_a_typed_error_with_its_exit_code(tmp_path):
    """``suggest notaurl`` (no scheme, no dot, no port) names no page a browser failed to
    load: ``invalid_url``, exit 2 (as ``--help`` documents), naming the word, alone or as a
    batch line; a name on the network written as an address is answered (no suggestion)."""
    seed_home_cache(tmp_path)
    done = pagekeeper(tmp_path, "suggest", "notaurl")
    assert done.returncode == 2 and done.stdout == b"", done.stdout
    assert done.stderr.decode().startswith("pagekeeper: invalid_url: 'notaurl' is no web address")
    assert "http://notaurl/" in done.stderr.decode()
    done = pagekeeper(tmp_path, "suggest", "notaurl", "--json")
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "invalid_url"
    lines = [{"url": "notaurl"}, {"url": "gogle.com"}, {"url": "localhost"}]
    lines.append({"url": "localhost:8080/a"})  # a host and its port, typed without a scheme
    stdin = "".join(json.dumps(x) + "\n" for x in lines).encode()
    out = [
        json.loads(x)
        for x in pagekeeper(tmp_path, "suggest", "--batch", stdin=stdin).stdout.splitlines()
    ]
    assert out[0]["error"]["code"] == "invalid_url" and out[0]["line"] == 1
    assert out[1]["suggestions"][0]["url"] == "http://google.com/"
    assert "error" not in out[2] and "error" not in out[3], out[3]
    done = pagekeeper(tmp_path, "suggest", "http://notaurl/")
    assert done.returncode == 0 and done.stdout == b"no suggestion\n"
    help_text = pagekeeper(tmp_path, "--help").stdout.decode()
    assert "invalid_url" in re.search(r"^  2 (.+?)^  3 ", help_text, re.M | re.S).group(1)


def test_bad_dictionary_and_bad_arguments_are_typed_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("1,a.com\nx,b.com\n")
    done = pagekeeper(tmp_path, "suggest", "http://a.com/", "--json", "--dictionary", str(bad))
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "invalid_input"
    done = pagekeeper(
        tmp_path,
        "suggest",
        "http://a.com/",
        "--json",
        "--dictionary",
        str(tmp_path / "missing.csv"),
    )
    assert done.returncode == 2
    done = pagekeeper(tmp_path, "suggest", "--json")
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "invalid_input"
    # a usage error (argparse's) is typed too: JSON on stdout with --json, the usage on stderr
    done = pagekeeper(tmp_path, "suggest", "http://a.com/", "--error", "bogus", "--json")
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2 and error["code"] == "invalid_input"
    assert "invalid choice: 'bogus'" in error["message"]
    assert done.stderr.startswith(b"usage: pagekeeper suggest")


def test_damaged_cache_is_rebuilt(tmp_path):
    cache = seed_home_cache(tmp_path)
    cache.write_bytes(cache.read_bytes()[:1000])
    done = pagekeeper(tmp_path, "suggest", "http://gogle.com/", "--json")
    assert (
        done.returncode == 0
        and json.loads(done.stdout)["suggestions"][0]["url"] == "http://google.com/"
    )
    assert cache.stat().st_size > 1_000_000


def test_learning_file_is_used(tmp_path):
    seed_home_cache(tmp_path)
    state = {
        "version": 1,
        "outcomes": {"gogle.com": {"goggle.com": {"shown": 1, "taken": 2, "rejected": 0}}},
    }
    learning_file.save_learning(tmp_path, state)
    done = pagekeeper(tmp_path, "suggest", "http://gogle.com/", "--json")
    top = json.loads(done.stdout)["suggestions"][0]
    assert top["url"] == "http://goggle.com/" and top["step"] == "learned"


def test_atomic_write_leaves_no_temp_files(tmp_path):
    learning_file.save_learning(tmp_path, {"visited": {"a.com": 1}})
    learning_file.save_learning(tmp_path, {"visited": {"b.com": 2}})
    assert learning_file.load_learning(tmp_path) == {"visited": {"b.com": 2}}
    assert [p.name for p in tmp_path.iterdir()] == ["learning.json"]


def test_bundled_dictionary_cache_is_reused(tmp_path):
    seed_home_cache(tmp_path)
    first = learning_file.bundled_dictionary(tmp_path)
    (cache,) = (tmp_path / "cache").glob("dictionary-*.idx")
    stamp = cache.stat().st_mtime_ns
    again = learning_file.bundled_dictionary(tmp_path)
    assert cache.stat().st_mtime_ns == stamp  # read, not rewritten
    assert again.domains == first.domains and again.rank("google.com") == 1


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELD = st.sampled_from(["http://gogle.com/", "ww.facebook.com", "", "http://\ud800.com/"]) | JSON


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(max_size=80)
    | st.fixed_dictionaries(
        {"url": FIELD},
        optional={"referrer": FIELD, "error": FIELD, "languages": FIELD},
    ).map(json.dumps)
)
def test_any_batch_line_gives_one_answer_the_output_can_carry(line):
    """Whatever a line holds, batch_line answers {"url", "suggestions"} or {"url", "error"}
    and that answer encodes as UTF-8 (what ``--batch`` writes)."""
    out = batch_line(SUGGESTER, line, BATCH_ARGS)
    assert set(out) in ({"url", "suggestions", "elapsed_ms"}, {"url", "error"})
    json.dumps(out, ensure_ascii=False).encode("utf-8")


def test_limit_above_five_is_honoured(tmp_path):
    """The engine ranks as deep as the largest --limit; a first cut at 5 would cap it."""
    (tmp_path / "config.json").write_text(json.dumps({"cache_dir": str(SHARED_CACHE)}))
    done = pagekeeper(tmp_path, "suggest", "http://gogle.com/", "--json", "--limit", "12")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["suggestions"]) == 12


def test_the_cli_uses_the_configured_cache_dir_the_daemon_uses(tmp_path):
    """``cache_dir`` in config.json: ``suggest`` reads and writes the daemon's index cache."""
    shared = tmp_path / "shared-cache"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"cache_dir": str(shared)}))
    done = pagekeeper(home, "suggest", "http://gogle.com/", "--json")
    assert done.returncode == 0, done.stderr
    (cache,) = shared.glob("dictionary-*.idx")
    assert not (home / "cache").exists()
    assert cache == learning_file.bundled_cache_path(home, str(shared))


def _suggest_in_process(capsys, home: Path, url: str):
    """``pagekeeper suggest URL --json`` through the CLI's entry point, in this process."""
    code = main(["suggest", url, "--home", str(home), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_known_scheme_with_anything_but_colon_slash_slash_is_one_scheme_typo(tmp_path, capsys):
    """``http;example.com``, ``http;//…``, ``http;:…`` and ``http:example.com``: each a scheme
    typed wrong, each repaired first, as the others are."""
    home = make_home(tmp_path)
    for typed in ("http;example.com/a", "http;//example.com/a", "http;:example.com/a",
                  "http:example.com/a"):  # fmt: skip
        code, answer = _suggest_in_process(capsys, home, typed)
        first = answer["suggestions"][0]
        assert code == 0 and (first["url"], first["step"]) == ("http://example.com/a", "scheme")


def _wpt_ipv6_cases() -> list[dict]:
    """The wpt-url cases of an http(s) address whose host is an IPv6 literal (the web's own
    tests of the URL standard, the repository's copy of the shared file)."""
    data = ROOT / "tests" / "fixtures" / "wpt-url" / "urltestdata.json"
    cases = json.loads(data.read_text("utf-8"))
    return [c for c in cases if isinstance(c, dict) and "failure" not in c
            and re.match(r"https?://\[", c["input"])]  # fmt: skip


def test_ipv6_literals_with_and_without_a_port_answer_as_a_browser_reads_them(tmp_path, capsys):
    """The port of ``http://[::1]:8080/a`` is after the ``]``: a refused connection there is
    offered no https on the same port (a refused port refuses https too), as for
    ``localhost:8080``; without a port, or with the scheme's default one (``:80``, which the
    wpt-url's href drops), it is; normalize gives the wpt-url's href."""
    home = make_home(tmp_path)

    def refused(url: str) -> list[str]:
        code = main(["suggest", url, "--error", "refused", "--home", str(home), "--json"])
        assert code == 0
        return [s["url"] for s in json.loads(capsys.readouterr().out)["suggestions"]]

    assert refused("http://[::1]:8080/a") == refused("http://localhost:8080/a") == []
    assert refused("http://[::1]/a") == ["https://[::1]/a"]
    assert refused("[::1]:8080/a") == []  # typed without a scheme
    cases = _wpt_ipv6_cases()
    assert len(cases) >= 5
    for case in cases:
        assert main(["normalize", case["input"], "--home", str(home), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["url"] == case["href"], case["input"]
        offered = refused(case["input"])
        # the scheme's default port is no port (the href drops ``:80``): https is offered
        typed = re.sub(r"\]:80$", "]", case["input"])
        assert offered == ([] if "]:" in case["href"] else [typed.replace("http:", "https:", 1) + ("/" if typed.count("/") == 2 else "")]), case["input"]  # fmt: skip
