"""`make run` (packaging/run.py) says that the browser started only when it did: Debian's real
Chromium, started as run.py starts it, either still runs a moment later or is reported with the
reason it printed."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from host.cli.entry import build_parser
from tests.chromium import CHROMIUM
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "packaging"))
import build_extension  # noqa: E402
import run  # noqa: E402

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")
NO_DISPLAY = {**os.environ, "DISPLAY": ":97", "WAYLAND_DISPLAY": ""}  # no X server there


def test_as_root_chromium_gets_no_sandbox(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert "--no-sandbox" in run.chromium_args(CHROMIUM, tmp_path, "http://127.0.0.1:1/")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "--no-sandbox" not in run.chromium_args(CHROMIUM, tmp_path, "http://127.0.0.1:1/")


@pytest.mark.skipif(os.geteuid() != 0, reason="Chromium refuses only root without --no-sandbox")
def test_root_without_no_sandbox_dies_and_says_why(tmp_path):
    args = [CHROMIUM, f"--user-data-dir={tmp_path / 'p'}", "--headless=new", "about:blank"]
    process, why = run.launch(args, tmp_path / "chromium.log", settle_s=15)
    assert process is None
    assert "exited at once" in why and "--no-sandbox" in why, why


def test_no_display_dies_and_says_why(tmp_path):
    args = run.chromium_args(CHROMIUM, tmp_path / "p", "about:blank")
    process, why = run.launch(args, tmp_path / "chromium.log", settle_s=15, env=NO_DISPLAY)
    assert process is None, "a browser without a display was reported as running"
    assert "exited at once" in why and len(why.splitlines()) > 1, why  # Chromium's own lines


def test_a_browser_that_runs_is_left_running(tmp_path):
    args = [*run.chromium_args(CHROMIUM, tmp_path / "p", "about:blank"), "--headless=new"]
    process, why = run.launch(args, tmp_path / "chromium.log", settle_s=3)
    try:
        assert why is None and process is not None and process.poll() is None
    finally:
        if process is not None:
            process.kill()
            process.wait(timeout=10)


def test_make_run_reports_a_failed_start(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":97")
    monkeypatch.setattr(run, "find_chromium", lambda: CHROMIUM)
    monkeypatch.setattr(run, "step", lambda *a: "")  # the native host install is not under test
    assert run.start_browser(tmp_path, "about:blank") is False
    out = capsys.readouterr().out
    assert "failed: it exited at once" in out and "started" not in out
    assert str(tmp_path / "logs" / "chromium.log") in out


def _answer(returncode: int, stdout: str, stderr: str = ""):
    return lambda *args: run.subprocess.CompletedProcess(args, returncode, stdout, stderr)


def test_make_run_says_ok_for_the_viewer_only_when_a_browser_opened(monkeypatch, capsys):
    """`pagekeeper open` exits 0 with ``"opened": false`` when no browser can start: make run
    must not print "ok" then, and must point at the address it prints."""
    monkeypatch.setattr(
        run, "pk", _answer(0, '{"url": "http://127.0.0.1:1/viewer/", "opened": false}\n')
    )
    assert run.open_viewer() is False
    out = capsys.readouterr().out
    assert ": ok" not in out and "Viewer address below" in out, out
    monkeypatch.setattr(
        run, "pk", _answer(0, '{"url": "http://127.0.0.1:1/viewer/", "opened": true}\n')
    )
    assert run.open_viewer() is True
    assert "in your browser: ok" in capsys.readouterr().out


def test_the_commands_make_run_suggests_exist(tmp_path):
    """The closing lines name the command where `make run` put it and commands it accepts."""
    assert (ROOT / run.COMMAND).is_file()
    assert (ROOT / run.COMMAND).parent.joinpath("activate").is_file()
    for _, argv in run.NEXT_STEPS:
        args = build_parser().parse_args([*argv, "--home", str(tmp_path)])
        assert args.run is not None, argv


def run_without_a_browser(monkeypatch, capsys, installed: str = "") -> str:
    """What ``make run`` prints with no browser to start, the CLI answering as a stopped
    daemon does and ``install`` saying ``installed`` (the extension build not run)."""
    answers = {"install": installed, "status": '{"running": false}', "open": '{"url": "u"}'}
    monkeypatch.setattr(run, "pk", lambda *a: _answer(0, answers.get(a[0], ""))(*a))
    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: None)  # the build
    monkeypatch.setattr(run, "start_browser", lambda *a: False)
    monkeypatch.setattr(run, "open_viewer", lambda: False)
    assert run.main() == 0
    return capsys.readouterr().out


def test_make_run_says_where_the_helper_went_and_how_to_load_each_extension(
    tmp_path, monkeypatch, capsys
):
    """Without a browser to start, ``make run`` prints the files ``install`` wrote (a user
    checks them with ``doctor``) and how to load the extension in both browsers it registered
    the helper with; each path it names is what the build writes."""
    wrote = "launcher: /h/bin/pagekeeper-native\nfirefox: /u/.mozilla/x.json"
    out = run_without_a_browser(monkeypatch, capsys, wrote)
    assert "\n  launcher: /h/bin/pagekeeper-native\n  firefox: /u/.mozilla/x.json\n" in out
    chromium = re.search(r"Chromium: chrome://extensions .* → (\S+)$", out, re.M).group(1)
    firefox = re.search(r"Firefox: +about:debugging\S* .* → (\S+)$", out, re.M).group(1)
    build = tmp_path / "dist"
    build_extension.main(["--out", str(build)])
    dist = ROOT / "dist"
    assert (build / Path(chromium).relative_to(dist) / "manifest.json").is_file()
    assert (build / Path(firefox).relative_to(dist)).is_file()


@pytest.mark.parametrize("home", [None, "my archive's home"])
def test_the_closing_commands_act_on_the_home_make_run_started(tmp_path, monkeypatch, capsys, home):
    """``PAGEKEEPER_HOME=… make run``: the closing lines, typed in a new shell (no
    ``$PAGEKEEPER_HOME``), act on that home, not the default one; without it, they name none."""
    if home is None:
        monkeypatch.delenv("PAGEKEEPER_HOME", raising=False)
    else:
        monkeypatch.setenv("PAGEKEEPER_HOME", str(tmp_path / home))
    out = run_without_a_browser(monkeypatch, capsys)
    lines = re.findall(rf"^(?:\w+:)? +({re.escape(run.COMMAND)} .*)$", out, re.M)
    assert len(lines) == len(run.NEXT_STEPS), out
    monkeypatch.delenv("PAGEKEEPER_HOME", raising=False)  # a new shell
    for line in lines:
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.home == (str(tmp_path / home) if home else None), line
