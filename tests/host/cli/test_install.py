"""``pagekeeper doctor`` (host/cli/commands/install.py): a missing manifest names the command
that writes it, and following that advice (with the same scope) makes the manifest ok; a
mistyped --profile-dir is a typed error."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
from importlib.machinery import ExtensionFileLoader
from pathlib import Path
from types import ModuleType

from host.cli.commands.install import _daemon_line, render_doctor, render_install
from host.cli.entry import main
from host.compiled import described, running
from tests.host.daemon_fixtures import make_home


def test_doctor_names_the_fix_for_a_missing_manifest_and_the_fix_works(
    capsys, tmp_path, monkeypatch
):
    """The fix is named as a command to run as printed: this PageKeeper, the home and the
    scope doctor checked (a bare ``pagekeeper install`` writes another home's launcher into
    the default browser folders, and doctor would still find the manifest missing)."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # a fix that misses writes only there
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["doctor", *scope]) == 1
    said = capsys.readouterr().out
    fix = re.search(r"chromium: missing; (.+) writes it \(", said).group(1)
    assert f"token: missing; {fix} writes it" in said, said
    program, *args = shlex.split(fix)
    assert Path(program).is_absolute() and os.access(program, os.X_OK)
    assert main(args) == 0  # followed as printed
    capsys.readouterr()
    assert main(["doctor", *scope]) == 0  # no daemon runs in this home: no fault
    assert "chromium: ok" in capsys.readouterr().out


def test_doctor_json_names_the_install_its_text_names_and_it_fixes_what_was_checked(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # a fix that misses writes only there
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["doctor", *scope, "--json"]) == 1
    fix = json.loads(capsys.readouterr().out)["install_command"]
    assert main(["doctor", *scope]) == 1
    assert f"chromium: missing; {fix} writes it" in capsys.readouterr().out
    assert main(shlex.split(fix)[1:]) == 0  # followed as printed
    capsys.readouterr()
    assert main(["doctor", *scope, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["install_command"] == fix


def test_doctor_exits_0_with_the_daemon_stopped_and_1_only_for_a_fault(capsys, tmp_path):
    """A stopped daemon is information (PageKeeper works without it): exit 0 and a line that
    says how to start it. A fault exits 1: no manifest, an archive that cannot be read."""
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["doctor", *scope]) == 1  # no manifest
    assert "problems found" in capsys.readouterr().out
    assert main(["install", *scope]) == 0
    capsys.readouterr()
    assert main(["doctor", *scope]) == 0
    said = capsys.readouterr().out
    assert said.startswith("all good")
    # The command it names runs as typed, in any folder, with no venv activated.
    program, *args = shlex.split(re.search(r"to start it now: (.+)", said).group(1))
    assert args == ["--home", str(home), "serve", "--detach"] and Path(program).is_absolute()
    assert os.access(program, os.X_OK)
    assert main(["doctor", *scope, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["daemon"]["running"] is False and report["archive"]["ok"]
    (home / "db").mkdir(exist_ok=True)
    (home / "db" / "MANIFEST").write_text("not json")  # a damaged archive
    assert main(["doctor", *scope, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and "corrupt manifest" in report["archive"]["problem"]
    assert main(["doctor", *scope]) == 1
    assert "archive: cannot be read: corrupt manifest" in capsys.readouterr().out


def test_doctor_help_states_the_exit_status_of_every_finding(capsys):
    with contextlib.suppress(SystemExit):
        main(["doctor", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    for finding in (
        "0 nothing wrong; a stopped daemon is no fault",
        "no manifest installed",
        "the token file missing",
        "a daemon that runs but does not answer",
        "an archive that cannot be read",
        "2 a usage error, or a config.json",
    ):
        assert finding in said, finding


def test_each_scope_option_says_what_it_does(capsys):
    for command, verb in (("install", "install into"), ("uninstall", "remove it from")):
        with contextlib.suppress(SystemExit):  # argparse's --help exits
            main([command, "--help"])
        assert f"to {verb}" in " ".join(capsys.readouterr().out.split()), command


def test_install_into_a_mistyped_profile_dir_is_a_typed_error_and_writes_nothing(capsys, tmp_path):
    """A profile dir whose folder does not exist is a typo: invalid_input (exit 2), no folder
    made; a new profile dir inside an existing folder is still installed into (a browser makes
    its --user-data-dir at its first start), and a file is no profile dir."""
    home = make_home(tmp_path)
    typo = tmp_path / "no-such-folder" / "profile"
    scope = ["--browser", "chromium", "--home", str(home), "--json"]
    assert main(["install", *scope, "--profile-dir", str(typo)]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "invalid_input" and "does not exist" in error["message"]
    assert not typo.parent.exists()
    afile = tmp_path / "a-file"
    afile.write_text("")
    assert main(["install", *scope, "--profile-dir", str(afile)]) == 2
    assert "not a folder" in json.loads(capsys.readouterr().out)["error"]["message"]
    fresh = tmp_path / "fresh-profile"
    assert main(["install", *scope, "--profile-dir", str(fresh)]) == 0
    assert (fresh / "NativeMessagingHosts").is_dir()


def test_a_launcher_that_cannot_run_names_the_fix_and_the_fix_works(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # a fix that misses writes only there
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["install", *scope]) == 0
    (home / "bin" / "pagekeeper-native").chmod(0o644)
    capsys.readouterr()
    assert main(["doctor", *scope]) == 1
    said = capsys.readouterr().out
    fix = re.search(r"is not an executable file \(run (.+) again\)", said).group(1)
    assert main(shlex.split(fix)[1:]) == 0  # followed as printed
    capsys.readouterr()
    assert main(["doctor", *scope]) == 0


def test_doctor_names_the_home_each_manifest_serves_and_flags_another_homes(
    capsys, tmp_path, monkeypatch
):
    """The default browser folders hold one manifest, whose launcher serves one home. Doctor
    for another home says which home it serves and calls it a fault (the browser's helper
    would read and write that home's archive); its fix, run as printed in a shell, makes the
    manifest serve the home doctor checked."""
    user = tmp_path / "user"
    monkeypatch.setenv("HOME", str(user))  # the default browser folders are under it
    monkeypatch.delenv("PAGEKEEPER_HOME", raising=False)
    first, other = (
        make_home(tmp_path / "first one"),
        make_home(tmp_path / "other"),
    )  # a space: quoted
    scope = ["--browser", "chromium"]
    assert main(["install", *scope, "--home", str(first)]) == 0
    capsys.readouterr()
    assert main(["doctor", *scope, "--home", str(first), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["manifests"][0]["serves"] == str(first)
    assert main(["doctor", *scope, "--home", str(other), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    checked = report["manifests"][0]
    assert (checked["ok"], checked["serves"]) == (False, str(first)), checked
    assert str(first) in checked["problem"] and report["install_command"] in checked["problem"]
    assert main(["doctor", *scope, "--home", str(other)]) == 1
    said = capsys.readouterr().out
    assert f"  serves the home {first}" in said and "serves another home" in said, said
    fix = re.search(r"home's archive; (.+) makes it serve this one", said).group(1)
    env = {**os.environ, "HOME": str(user)}
    done = subprocess.run(fix, shell=True, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert main(["doctor", *scope, "--home", str(other), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["manifests"][0]["serves"] == str(other)


def test_doctor_counts_the_archives_versions_and_names_each_areas_build(capsys, tmp_path):
    """The archive line counts what the store holds (none before the first capture), in the
    JSON and the text alike; ``suggestions`` and ``extraction`` are the builds this very
    process runs, each on its own last line, in the order of the areas."""
    home, profile = make_home(tmp_path), tmp_path / "profile"
    scope = ["--browser", "chromium", "--profile-dir", str(profile), "--home", str(home)]
    assert main(["install", *scope]) == 0
    capsys.readouterr()
    page = tmp_path / "page.html"
    for count in (0, 1, 2):
        if count:
            page.write_text(f"<title>x</title><p>a page to keep, number {count}</p>")
            added = ["archive", "add", f"http://a.example/{count}", "--html", str(page)]
            assert main([*added, "--home", str(home)]) == 0
            capsys.readouterr()
        assert main(["doctor", *scope, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["archive"] == {"ok": True, "versions": count}
        assert report["suggestions"] == running("suggestions")
        assert report["extraction"] == running("extraction")
        assert main(["doctor", *scope]) == 0
        said = capsys.readouterr().out
        assert f"archive: ok ({count} version{'' if count == 1 else 's'})" in said
        assert said.rstrip().endswith(
            f"\nsuggestions: {described(running('suggestions'))}"
            f"\nextraction: {described(running('extraction'))}"
        )


def test_doctor_tells_the_extractions_build_by_the_extractor(capsys, tmp_path, monkeypatch):
    """``extraction`` is the build of the module that extracts, not the suggester's: a
    compiled extractor beside pure suggestions is named compiled, in the JSON and the text."""
    extractor = ModuleType("engine.html.extract")
    extractor.__loader__ = ExtensionFileLoader("engine.html.extract", "extract.so")
    monkeypatch.setitem(sys.modules, "engine.html.extract", extractor)
    scope = ["--browser", "chromium", "--profile-dir", str(tmp_path / "p"), "--home", str(tmp_path)]
    main(["doctor", *scope, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["extraction"] == {"build": "compiled", "why": ""}
    assert report["suggestions"]["build"] == "pure"
    main(["doctor", *scope])
    assert capsys.readouterr().out.rstrip().endswith("\nextraction: compiled (mypyc)")


def test_browsers_not_installed_here_are_listed_after_the_manifests_checked():
    report = {
        "ok": True,
        "manifests": [{"browser": "chromium", "present": True, "ok": True, "manifest": "m"}],
        "missing": ["chrome", "edge"],
        "token_readable": True,
        "daemon": {"running": False, "note": "stopped"},
    }
    lines = render_doctor(report).splitlines()
    assert lines[1:3] == ["chromium: ok (m)", "not installed here (skipped): chrome, edge"]
    assert "skipped" not in render_doctor({**report, "missing": []})
    installed = {"launcher": "l", "installed": [{"browser": "chromium", "manifest": "m"}]}
    assert render_install({**installed, "missing": ["edge"]}).splitlines() == [
        "launcher: l",
        "chromium: m",
        "not installed here (skipped): edge",
    ]


def test_doctor_text_lists_what_a_manifest_allows_and_a_readable_token():
    """Under each manifest, the extension IDs it allows, all of them, `, `-joined; a manifest
    that allows none has no such line; a readable token says so, a missing one names the
    install that writes it."""
    manifest = {"browser": "chromium", "present": True, "ok": True, "manifest": "m",
                "allowed": ["chrome-extension://a/", "chrome-extension://b/"]}  # fmt: skip
    report = {"ok": True, "manifests": [manifest], "token_readable": True,
              "install_command": "pk install", "daemon": {"running": False, "note": "stopped"}}  # fmt: skip
    lines = render_doctor(report).splitlines()
    assert lines[1:4] == [
        "chromium: ok (m)",
        "  allows chrome-extension://a/, chrome-extension://b/",
        "token: readable",
    ]
    bare = render_doctor({**report, "manifests": [{**manifest, "allowed": []}]}).splitlines()
    assert bare[1:3] == ["chromium: ok (m)", "token: readable"]
    unreadable = render_doctor({**report, "token_readable": False}).splitlines()
    assert unreadable[3].startswith("token: ") and "pk install" in unreadable[3]


def test_the_daemon_line_says_where_it_runs_or_what_is_wrong():
    assert _daemon_line({"running": True, "url": "http://127.0.0.1:9"}) == (
        "daemon: running at http://127.0.0.1:9"
    )
    assert _daemon_line({"running": False, "problem": "refused"}) == (
        "daemon: not answering: refused"
    )
    assert _daemon_line({"running": False, "note": "stopped; start it"}) == (
        "daemon: stopped; start it"
    )
    assert _daemon_line({"running": False}) == "daemon: stopped"
