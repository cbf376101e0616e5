"""The installer: one data table, real files in tmp dirs, the launcher really runs the host."""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path

import pytest

from host.installer import (
    BROWSERS,
    HOST_NAME,
    InstallOptions,
    launcher_text,
    manifest,
    manifest_dir,
)
from tests.host.daemon_fixtures import ROOT, pk

EXT_ID = (ROOT / "packaging" / "extension-id.txt").read_text().split()[0]


def test_table_covers_every_browser_and_os():
    for browser, per_os in BROWSERS.items():
        assert set(per_os) == {"linux", "darwin", "win32"}, browser
        for user, system in per_os.values():
            assert user and system


@pytest.mark.parametrize(
    ("browser", "platform", "expected"),
    [
        ("chrome", "linux", "~/.config/google-chrome/NativeMessagingHosts"),
        ("chromium", "linux", "~/.config/chromium/NativeMessagingHosts"),
        ("firefox", "linux", "~/.mozilla/native-messaging-hosts"),
        ("edge", "darwin", "~/Library/Application Support/Microsoft Edge/NativeMessagingHosts"),
        ("chrome", "win32", "Software\\Google\\Chrome\\NativeMessagingHosts"),
    ],
)
def test_user_locations(browser, platform, expected):
    assert manifest_dir(browser, InstallOptions(), platform) == os.path.expanduser(expected)


def test_system_and_profile_locations(tmp_path):
    assert (
        manifest_dir("chromium", InstallOptions(system=True), "linux")
        == "/etc/chromium/native-messaging-hosts"
    )
    assert manifest_dir("chrome", InstallOptions(profile_dir=tmp_path), "linux") == str(
        tmp_path / "NativeMessagingHosts"
    )


def test_manifest_shapes():
    chrome = manifest("chrome", Path("/x/launcher"), [EXT_ID], ["a@b"])
    assert chrome["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]  # trailing slash required
    assert (
        chrome["type"] == "stdio"
        and chrome["name"] == HOST_NAME
        and chrome["path"] == "/x/launcher"
    )
    firefox = manifest("firefox", Path("/x/launcher"), [EXT_ID], ["pagekeeper@pagekeeper.app"])
    assert (
        firefox["allowed_extensions"] == ["pagekeeper@pagekeeper.app"]
        and "allowed_origins" not in firefox
    )


def test_windows_launcher_is_a_cmd_file(tmp_path):
    text = launcher_text(tmp_path, "win32")
    assert text.startswith("@echo off") and "-m host.native %*" in text and str(tmp_path) in text


def doctor(home, profile) -> tuple[int, dict]:
    """``pagekeeper doctor`` for Chromium in ``profile``: (exit status, JSON report)."""
    done = pk(
        home,
        "doctor",
        "--browser",
        "chromium",
        "--profile-dir",
        str(profile),
        "--json",
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def test_install_doctor_uninstall_with_a_profile_dir(home, tmp_path):
    profile = tmp_path / "profile"
    done = json.loads(
        pk(home, "install", "--browser", "chromium", "--profile-dir", str(profile), "--json").stdout
    )
    path = profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    assert done["installed"] == [{"browser": "chromium", "manifest": str(path)}]
    data = json.loads(path.read_text())
    launcher = Path(data["path"])
    assert launcher.is_absolute() and os.access(launcher, os.X_OK)
    assert data["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]
    code, report = doctor(home, profile)
    assert report["manifests"][0]["ok"] and report["token_readable"]
    assert not report["daemon"]["running"] and not report["ok"]
    assert code == 1  # problems found: the exit status says so too

    # The launcher really is a native host: what Chromium would run, with what Chromium passes.
    proc = subprocess.Popen(
        [str(launcher), f"chrome-extension://{EXT_ID}/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    body = json.dumps({"id": 1, "type": "ping"}).encode()
    proc.stdin.write(struct.pack("=I", len(body)) + body)
    proc.stdin.flush()
    (length,) = struct.unpack("=I", proc.stdout.read(4))
    assert json.loads(proc.stdout.read(length))["result"]["protocol"] == 1
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0

    code, report = doctor(home, profile)
    assert code == 0 and report["ok"] and report["daemon"]["ping"]["protocol"] == 1
    gone = json.loads(
        pk(
            home, "uninstall", "--browser", "chromium", "--profile-dir", str(profile), "--json"
        ).stdout
    )
    assert gone["removed"] == [{"browser": "chromium", "manifest": str(path)}] and not path.exists()


def test_doctor_flags_a_manifest_pointing_nowhere(home, tmp_path):
    profile = tmp_path / "p"
    pk(home, "install", "--browser", "chromium", "--profile-dir", str(profile))
    path = profile / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "path": str(tmp_path / "missing")}))
    code, report = doctor(home, profile)
    assert code == 1
    assert (
        report["manifests"][0]["ok"] is False
        and "not an executable" in report["manifests"][0]["problem"]
    )


def test_user_install_writes_every_browser_under_home(home, tmp_path, monkeypatch):
    fake_home = tmp_path / "user"
    env = {**os.environ, "HOME": str(fake_home)}
    done = subprocess.run(
        [
            *__import__("tests.host.daemon_fixtures", fromlist=["CLI"]).CLI,
            "install",
            "--json",
            "--home",
            str(home),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    written = {i["browser"]: Path(i["manifest"]) for i in json.loads(done.stdout)["installed"]}
    assert set(written) == set(BROWSERS)
    for browser, path in written.items():
        assert fake_home in path.parents and path.is_file(), browser
    assert json.loads(written["firefox"].read_text())["allowed_extensions"] == [
        "pagekeeper@pagekeeper.app"
    ]
