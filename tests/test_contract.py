"""Acceptance checks: the CLI contracts of issues 2-6, through the real installed CLI.

Every test runs ``pagekeeper`` as a subprocess with a fresh ``--home``; anything that
fetches talks to a local ``http.server`` on 127.0.0.1; every daemon is stopped in a finalizer.
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, static_site
from tests.dictionary_cache import SHARED_CACHE
from tests.slowdown import scaled

CLI = Path(sys.executable).with_name("pagekeeper")
PAGES = ROOT / "tests" / "fixtures" / "pages"
PAGE_A, PAGE_B = "228917f19c2a4451.html.gz", "2cf4b812a7cd7f64.html.gz"
PARTS = (
    "href",
    "protocol",
    "username",
    "password",
    "host",
    "hostname",
    "port",
    "pathname",
    "search",
    "hash",
)


def run(
    home: Path, *args: str, stdin: str | None = None, timeout: float = 30
) -> subprocess.CompletedProcess:
    """``pagekeeper --home HOME ARGS``; e.g. ``run(h, "normalize", "http://A/")``. ``timeout``
    is a hang guard for an idle machine, scaled by how loaded it is now (tests/slowdown.py):
    a crawl took over 30 s at load 20 on two cores."""
    cmd = [str(CLI), "--home", str(home), *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=scaled(timeout))


def ok_json(proc: subprocess.CompletedProcess):
    """The stdout of a successful run, as JSON."""
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def jsonl(proc: subprocess.CompletedProcess) -> list[dict]:
    """Each non-empty stdout line as JSON."""
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def page_html(name: str) -> bytes:
    """A real saved page from tests/fixtures/pages, decompressed."""
    return gzip.decompress((PAGES / name).read_bytes())


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh home that reads the shared dictionary index instead of building its own."""
    h = tmp_path / "home"
    h.mkdir()
    (h / "config.json").write_text(json.dumps({"cache_dir": str(SHARED_CACHE)}))
    return h


@pytest.fixture
def html_files(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    a.write_bytes(page_html(PAGE_A))
    b.write_bytes(page_html(PAGE_B))
    return a, b


@pytest.fixture
def site(tmp_path: Path):
    """A local site: /a (real page A) links to /b (real page B); /gone is a 404."""
    root = tmp_path / "site"
    root.mkdir()
    link = b'<p><a href="/b.html">next</a> <a href="/c.html">c</a></p>'
    (root / "a.html").write_bytes(page_html(PAGE_A).replace(b"</body>", link + b"</body>", 1))
    (root / "b.html").write_bytes(page_html(PAGE_B))
    (root / "c.html").write_bytes(
        b"<html><head><title>C</title></head><body><p>third page</p></body></html>"
    )
    # a hub with only local links, so a crawl without --same-site never waits on outside DNS
    hub = b"<html><head><title>Hub</title></head><body><p>hub</p>" + link + b"</body></html>"
    (root / "hub.html").write_bytes(hub)

    with static_site(root) as url:
        yield url


@pytest.fixture
def daemon(home: Path):
    """A daemon for ``home`` on a port the OS picks (``port: 0``; daemon.json tells which): a
    port found free here first can be taken by another test before the daemon binds it.
    Always stopped afterwards."""
    config = json.loads((home / "config.json").read_text())
    (home / "config.json").write_text(json.dumps({**config, "port": 0}))
    proc = run(home, "serve", "--detach", timeout=30)
    yield json.loads((home / "daemon.json").read_text())["port"], proc
    run(home, "stop", timeout=30)


def add_page(home: Path, url: str, path: Path) -> dict:
    return ok_json(run(home, "--json", "archive", "add", url, "--html", str(path), "--no-fetch"))


# ---------------------------------------------------------------- issue 2: normalize, parse


def test_normalize_args_one_line_each_in_order(home):
    proc = run(home, "normalize", "HTTP://Example.COM:80/a/./b/../c", "http://b.example/x?b=2&a=1")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert len(lines) == 2
    assert lines[0].startswith("http://example.com/a/c")


def test_normalize_stdin_lines(home):
    proc = run(home, "normalize", stdin="HTTP://A.example/\nhttp://b.example:80/\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["http://a.example/", "http://b.example/"]


def test_normalize_json_invalid_line_does_not_stop_batch(home):
    lines = ["http://ok.example/", "http://[::1/", "", "http://ok2.example/"]
    out = jsonl(run(home, "normalize", "--json", stdin="\n".join(lines) + "\n"))
    assert [o["input"] for o in out] == lines
    assert out[0]["url"] == "http://ok.example/" and "error" not in out[0]
    assert out[1]["url"] is None and set(out[1]["error"]) >= {"code", "message"}
    assert out[2]["url"] is None and out[2]["error"]["code"]
    assert out[3]["url"] == "http://ok2.example/"


@pytest.mark.parametrize("profile", ["safe", "archive", "aggressive"])
def test_normalize_list_rules_per_profile(home, profile):
    rules = ok_json(run(home, "normalize", "--list-rules", "--profile", profile))
    assert isinstance(rules, dict) and rules
    assert all(isinstance(v, bool) for v in rules.values())


def test_normalize_profiles_differ_and_rules_toggle(home):
    safe = ok_json(run(home, "normalize", "--list-rules", "--profile", "safe"))
    aggr = ok_json(run(home, "normalize", "--list-rules", "--profile", "aggressive"))
    assert safe != aggr
    rule = next(r for r, on in aggr.items() if on and not safe[r])
    on = ok_json(run(home, "normalize", "--list-rules", "--profile", "safe", f"--rules=+{rule}"))
    assert on[rule] is True
    off = ok_json(
        run(home, "normalize", "--list-rules", "--profile", "aggressive", f"--rules=-{rule}")
    )
    assert off[rule] is False


def test_normalize_profile_changes_output(home):
    url = "http://www.example.com/a?utm_source=x&b=1#frag"
    safe = run(home, "normalize", "--profile", "safe", url).stdout.strip()
    aggr = run(home, "normalize", "--profile", "aggressive", url).stdout.strip()
    assert safe and aggr and safe != aggr


def test_parse_batch_whatwg_components_and_failure(home):
    rows = [
        {"input": "https://user:pw@Example.com:8080/p/../q?x=1#h", "base": None},
        {"input": "../x", "base": "http://a.example/b/c/d"},
        {"input": "http://[::1", "base": None},
        {"input": "rel", "base": None},
        {"input": "http://ok.example/", "base": None},
    ]
    out = jsonl(run(home, "parse", "--batch", stdin="".join(json.dumps(r) + "\n" for r in rows)))
    assert len(out) == len(rows)
    assert set(out[0]) >= set(PARTS)
    assert out[0]["hostname"] == "example.com" and out[0]["port"] == "8080"
    assert out[0]["pathname"] == "/q" and out[0]["username"] == "user"
    assert out[1]["href"] == "http://a.example/b/x"
    assert out[2] == {"failure": True} or out[2].get("failure") is True
    assert out[3].get("failure") is True
    assert out[4]["href"] == "http://ok.example/"


def test_parse_batch_garbage_line_goes_on(home):
    stdin = '{"input": "http://a.example/", "base": null}\nnot json\n{"input": "http://b.example/", "base": null}\n'
    proc = run(home, "parse", "--batch", stdin=stdin)
    out = jsonl(proc)
    assert len(out) == 3
    assert out[0]["href"] == "http://a.example/" and out[2]["href"] == "http://b.example/"
    assert "href" not in out[1]


# ---------------------------------------------------------------- issue 3: suggest


def test_suggest_url_json_fields(home):
    out = ok_json(run(home, "--json", "suggest", "http://gooogle.com/", "--error", "dns"))
    suggestions = out["suggestions"] if isinstance(out, dict) else out
    assert suggestions
    assert all(set(s) >= {"url", "score", "step", "reason"} for s in suggestions)
    assert any("google.com" in s["url"] for s in suggestions[:3])


def test_suggest_limit_and_referrer(home):
    out = ok_json(
        run(
            home,
            "--json",
            "suggest",
            "http://wikipedai.org/",
            "--limit",
            "1",
            "--referrer",
            "http://a.example/",
        )
    )
    suggestions = out["suggestions"] if isinstance(out, dict) else out
    assert len(suggestions) == 1


def test_suggest_batch_same_order_errors_per_line_timings(home):
    rows = [
        json.dumps({"url": "http://gooogle.com/", "error": "dns"}),
        json.dumps({"url": "not a url at all \u0000"}),
        "{broken json",
        json.dumps({"url": "http://wikipedai.org/", "referrer": "http://a.example/"}),
    ]
    out = jsonl(run(home, "suggest", "--batch", "--timings", stdin="\n".join(rows) + "\n"))
    assert len(out) == 4
    assert out[0]["url"] == "http://gooogle.com/" and isinstance(out[0]["suggestions"], list)
    assert set(out[0]["suggestions"][0]) >= {"url", "score", "step", "reason"}
    assert isinstance(out[0]["elapsed_ms"], (int, float))
    assert set(out[1]["error"]) >= {"code", "message"} and "url" in out[1]
    assert set(out[2]["error"]) >= {"code", "message"}
    assert out[3]["url"] == "http://wikipedai.org/" and "suggestions" in out[3]


def test_suggest_dictionary_replaces_bundled(home, tmp_path):
    csv = tmp_path / "dict.csv"
    csv.write_text("1,zyxwvutsrq.com\n2,abcdefghij.org\n")
    out = ok_json(
        run(home, "--json", "suggest", "http://zyxwvutsrqq.com/", "--dictionary", str(csv))
    )
    suggestions = out["suggestions"] if isinstance(out, dict) else out
    assert any("zyxwvutsrq.com" in s["url"] for s in suggestions)
    out = ok_json(run(home, "--json", "suggest", "http://gooogle.com/", "--dictionary", str(csv)))
    suggestions = out["suggestions"] if isinstance(out, dict) else out
    # The segments step's word list (wordfreq words, "google" among them) is not the domain
    # dictionary: only the steps that look domains up must stay inside the replacement.
    known_steps = [s for s in suggestions if s["step"] != "segments"]
    assert not any("google." in s["url"] for s in known_steps), known_steps


# ---------------------------------------------------------------- issue 4: archive, similarity


def test_archive_add_fields(home, html_files):
    out = add_page(home, "http://example.test/a", html_files[0])
    assert set(out) >= {"id", "url", "key", "version_url", "registered_at", "similar"}
    assert out["url"] == "http://example.test/a"
    assert f"/v/{out['id']}/" in out["version_url"] and isinstance(out["similar"], list)


def test_archive_add_fetches_live(home, site):
    out = ok_json(run(home, "--json", "archive", "add", f"{site}/b.html"))
    assert out["id"] and out["url"].startswith(site)


def test_archive_versions_similar_get(home, html_files, tmp_path):
    a, b = html_files
    first = add_page(home, "http://example.test/a", a)
    second = add_page(home, "http://example.test/a", b)
    add_page(home, "http://example.test/other", a)
    versions = ok_json(run(home, "--json", "archive", "versions", "http://example.test/a"))
    ids = {v["id"] for v in (versions["versions"] if isinstance(versions, dict) else versions)}
    assert ids == {first["id"], second["id"]}
    similar = ok_json(run(home, "--json", "archive", "similar", first["id"]))
    assert isinstance(similar, (list, dict))
    out_file = tmp_path / "orig.html"
    proc = run(home, "archive", "get", first["id"], "--original", "-o", str(out_file))
    assert proc.returncode == 0, proc.stderr
    assert out_file.read_bytes() == a.read_bytes()
    rewritten = run(home, "archive", "get", first["id"])
    assert rewritten.returncode == 0 and rewritten.stdout


def test_archive_get_unknown_id_not_found(home):
    proc = run(home, "--json", "archive", "get", "20990101000000000000")
    assert proc.returncode == 3
    assert "not_found" in proc.stdout + proc.stderr
    proc = run(home, "--json", "archive", "get", "nosuchid")  # no ID at all
    assert proc.returncode == 2
    assert "invalid_url" in proc.stdout + proc.stderr


def test_archive_open_live_and_stored(home, site, html_files):
    add_page(home, f"{site}/a.html", html_files[0])
    live = ok_json(run(home, "--json", "archive", "open", f"{site}/a.html"))
    assert live["action"] == "live"
    gone = add_page(home, f"{site}/nothere.html", html_files[0])
    stored = ok_json(run(home, "--json", "archive", "open", gone["id"]))
    assert stored["action"] == "stored"


def test_archive_search_pattern_case_sort_text(home, html_files):
    a, b = html_files
    add_page(home, "http://Example.test/Alpha", a)
    add_page(home, "http://example.test/beta", b)
    found = ok_json(run(home, "--json", "archive", "search", "*alpha*"))
    assert [r["url"] for r in found] == ["http://Example.test/Alpha"]
    strict = ok_json(run(home, "--json", "archive", "search", "*alpha*", "--case-sensitive"))
    assert strict == []
    by_url = ok_json(run(home, "--json", "archive", "search", "*example*", "--sort", "url"))
    assert len(by_url) == 2
    by_time = ok_json(run(home, "--json", "archive", "search", "*example*", "--sort", "time"))
    assert {r["url"] for r in by_time} == {r["url"] for r in by_url}
    word = ok_json(run(home, "--json", "archive", "search", "*", "--text", "Waldorfschule"))
    assert [r["url"] for r in word] == ["http://Example.test/Alpha"]


def test_archive_crawl_depth_same_site_max_pages(home, site):
    out = ok_json(
        run(home, "--json", "archive", "crawl", f"{site}/a.html", "--depth", "1", "--same-site")
    )
    listed = ok_json(run(home, "--json", "archive", "search", "*"))
    urls = {r["url"] for r in listed}
    assert {f"{site}/a.html", f"{site}/b.html", f"{site}/c.html"} <= urls, out
    home2 = home.parent / "home2"
    home2.mkdir()
    ok_json(
        run(
            home2,
            "--json",
            "archive",
            "crawl",
            f"{site}/hub.html",
            "--depth",
            "1",
            "--max-pages",
            "2",
        )
    )
    assert len(ok_json(run(home2, "--json", "archive", "search", "*"))) == 2


def test_archive_schedule_and_dust(home, html_files):
    add_page(home, "http://example.test/a?utm_source=x", html_files[0])
    add_page(home, "http://example.test/a?utm_source=y", html_files[0])
    sched = ok_json(
        run(home, "--json", "archive", "schedule", "http://example.test/a", "--every", "daily")
    )
    assert sched["every"] == "daily"
    dust = ok_json(run(home, "--json", "archive", "dust"))
    assert isinstance(dust, dict)


def test_similarity_fields(home, html_files):
    a, b = html_files
    same = ok_json(run(home, "--json", "similarity", str(a), str(a)))
    diff = ok_json(run(home, "--json", "similarity", str(a), str(b)))
    assert set(same) >= {"similarity", "content_similarity"}
    assert same["similarity"] == pytest.approx(1.0)
    assert diff["similarity"] < same["similarity"]
    assert 0.0 <= diff["content_similarity"] < 1.0


# ---------------------------------------------------------------- issue 5: extract, liveness, check


def test_extract_file_json_fields(home, html_files):
    out = ok_json(
        run(home, "extract", str(html_files[0]), "--url", "http://example.test/a", "--json")
    )
    assert set(out) >= {"title", "body", "summary", "keywords"}
    assert "Waldorfschule" in out["title"] and len(out["body"]) > 200
    assert all(isinstance(w, str) and isinstance(x, (int, float)) for w, x in out["keywords"])


def test_extract_batch_gz_and_typed_error(home, tmp_path):
    bad = tmp_path / "bad.html.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    rows = [
        {"id": "a", "path": str(PAGES / PAGE_A), "url": "http://example.test/a"},
        {"id": "bad", "path": str(bad)},
        {"id": "missing", "path": str(tmp_path / "nope.html")},
        {"id": "b", "path": str(PAGES / PAGE_B)},
    ]
    out = jsonl(run(home, "extract", "--batch", stdin="".join(json.dumps(r) + "\n" for r in rows)))
    assert [o["id"] for o in out] == ["a", "bad", "missing", "b"]
    assert set(out[0]) >= {"title", "body", "summary", "keywords"} and out[0]["body"]
    assert set(out[1]["error"]) >= {"code", "message"}
    assert set(out[2]["error"]) >= {"code", "message"}
    assert out[3]["body"]


def test_liveness_offline_present_and_gone(home, html_files):
    a, b = html_files
    same = ok_json(run(home, "liveness", "--stored", str(a), "--live", str(a), "--json"))
    assert set(same) >= {"present", "state", "match"}
    assert same["present"] is True and same["state"] == "present"
    other = ok_json(run(home, "liveness", "--stored", str(a), "--live", str(b), "--json"))
    assert other["present"] is False and other["state"] in {"changed", "gone"}
    assert other["match"] < same["match"]


def test_liveness_batch_gz_ids_and_errors(home, tmp_path):
    rows = [
        {"id": "1", "stored": str(PAGES / PAGE_A), "live": str(PAGES / PAGE_A)},
        {"id": "2", "stored": str(tmp_path / "missing.html"), "live": str(PAGES / PAGE_A)},
        {"id": "3", "stored": str(PAGES / PAGE_A), "live": str(PAGES / PAGE_B)},
    ]
    out = jsonl(run(home, "liveness", "--batch", stdin="".join(json.dumps(r) + "\n" for r in rows)))
    assert [o["id"] for o in out] == ["1", "2", "3"]
    assert out[0]["state"] == "present" and out[0]["present"] is True
    assert set(out[1]["error"]) >= {"code", "message"}
    assert out[2]["present"] is False and "match" in out[2]


def test_check_url_id_and_all(home, site, html_files):
    live = add_page(home, f"{site}/a.html", html_files[0])
    add_page(home, f"{site}/gone.html", html_files[1])
    by_id = ok_json(run(home, "--json", "check", live["id"]))
    results = by_id.get("results", [by_id])
    assert results[0]["state"] == "present"
    by_url = ok_json(run(home, "--json", "check", f"{site}/gone.html"))
    assert by_url.get("results", [by_url])[0]["state"] == "gone"
    summary = ok_json(run(home, "--json", "check", "--all"))
    assert summary["present"] == 1 and summary["gone"] == 1


# ---------------------------------------------------------------- issue 6: daemon, native, installer


def test_serve_status_stop(home, daemon):
    port, started = daemon
    assert started.returncode == 0, started.stderr
    status = ok_json(run(home, "status", "--json"))
    assert set(status) >= {"running", "pid", "port", "url", "home"}
    assert status["running"] is True and status["port"] == port
    assert status["url"] == f"http://127.0.0.1:{port}"
    assert Path(status["home"]).resolve() == home.resolve()
    again = run(home, "serve", "--port", str(port), "--detach")
    assert again.returncode == 0
    assert run(home, "stop").returncode == 0
    assert ok_json(run(home, "status", "--json"))["running"] is False


def test_status_honours_env_home(home, daemon):

    env = {**os.environ, "PAGEKEEPER_HOME": str(home)}
    proc = subprocess.run(
        [str(CLI), "status", "--json"], capture_output=True, text=True, env=env, timeout=scaled(30)
    )
    assert json.loads(proc.stdout)["port"] == daemon[0]


def frame(obj: dict) -> bytes:
    data = json.dumps(obj).encode()
    return struct.pack("=I", len(data)) + data


def read_frames(data: bytes) -> list[dict]:
    out = []
    while len(data) >= 4:
        (n,) = struct.unpack("=I", data[:4])
        out.append(json.loads(data[4 : 4 + n]))
        data = data[4 + n :]
    return out


def test_native_ping_and_get_token(home, daemon):
    msgs = [{"id": 1, "type": "ping", "params": {}}, {"id": 2, "type": "get_token", "params": {}}]
    stdin = b"".join(frame(m) for m in msgs)
    proc = subprocess.run(
        [str(CLI), "--home", str(home), "native", "chrome-extension://x/"],
        input=stdin,
        capture_output=True,
        timeout=scaled(30),
    )
    replies = {r["id"]: r for r in read_frames(proc.stdout)}
    assert replies[1]["ok"] is True and set(replies[1]["result"]) >= {"version", "protocol"}
    assert replies[2]["ok"] is True
    assert replies[2]["result"]["token"] == (home / "token").read_text().strip()


def test_native_bad_frame_typed_error_then_ping(home, daemon):
    bad = b"{not json"
    stdin = struct.pack("=I", len(bad)) + bad + frame({"id": 9, "type": "ping", "params": {}})
    proc = subprocess.run(
        [str(CLI), "--home", str(home), "native"],
        input=stdin,
        capture_output=True,
        timeout=scaled(30),
    )
    replies = read_frames(proc.stdout)
    assert len(replies) == 2
    assert replies[0]["ok"] is False and set(replies[0]["error"]) >= {"code", "message"}
    assert replies[1]["id"] == 9 and replies[1]["ok"] is True


def test_install_doctor_uninstall_profile_dir(home, tmp_path):
    prof = tmp_path / "profile"
    inst = run(home, "--json", "install", "--browser", "chromium", "--profile-dir", str(prof))
    assert inst.returncode == 0, inst.stderr
    manifests = list((prof / "NativeMessagingHosts").glob("*.json"))
    assert len(manifests) == 1
    manifest = json.loads(manifests[0].read_text())
    assert Path(manifest["path"]).is_file()
    assert all(
        o.startswith("chrome-extension://") and o.endswith("/") for o in manifest["allowed_origins"]
    )
    doctor = ok_json_any(
        run(home, "--json", "doctor", "--browser", "chromium", "--profile-dir", str(prof))
    )
    assert any(m.get("present") for m in doctor["manifests"])
    un = run(home, "--json", "uninstall", "--browser", "chromium", "--profile-dir", str(prof))
    assert un.returncode == 0, un.stderr
    assert not list((prof / "NativeMessagingHosts").glob("*.json"))


def ok_json_any(proc: subprocess.CompletedProcess):
    """stdout as JSON whatever the exit (doctor exits non-zero when a check fails)."""
    return json.loads(proc.stdout)
