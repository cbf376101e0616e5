"""The installer: one data table, real files in tmp dirs, the launcher really runs the host."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import struct
import subprocess
from pathlib import Path

import pytest

from engine.errors import InvalidInput
from host.daemon.app import Config, bundled_extension_ids
from host.daemon.client import own_command
from host.daemon.security import ensure_token
from host.home import default_home
from host.native import installer
from host.native.installer import (
    BROWSERS,
    HOST_NAME,
    InstallOptions,
    launcher_text,
    manifest,
    manifest_dir,
)
from tests.host.daemon_fixtures import ROOT, SHARED_CACHE, pk, stop_daemon

EXT_ID = bundled_extension_ids()[0]  # host/data/extension-id.txt


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
    assert (
        text.startswith("@echo off") and "-m host.native.relay %*" in text and str(tmp_path) in text
    )


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
    assert not report["daemon"]["running"] and report["ok"]
    assert code == 0  # a stopped daemon is no fault: PageKeeper works without it
    assert report["daemon"]["note"].endswith(f"{own_command(home)} serve --detach")

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


def browsers_run_before(fake_home: Path, *browsers: str) -> None:
    """The files a browser writes in its user data folder on first start (installer.SIGNS)."""
    for browser in browsers:
        for sign in installer.SIGNS[browser]["linux"]:
            if sign.startswith("~/"):
                path = fake_home / sign[2:]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("{}")


def test_user_install_writes_every_browser_under_home(home, tmp_path, monkeypatch):
    fake_home = tmp_path / "user"
    browsers_run_before(fake_home, *BROWSERS)
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


# -- every browser x OS from the one table, in-process (the table decides every location) --


class FakeWinreg:
    """Records what the installer does to the Windows registry: (root, key) -> default value."""

    HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE, REG_SZ = "HKCU", "HKLM", 1

    def __init__(self) -> None:
        self.keys: dict[tuple[str, str], str | None] = {}

    @contextlib.contextmanager
    def CreateKey(self, root, path):  # noqa: N802 (winreg's names)
        self.keys.setdefault((root, path), None)
        yield (root, path)

    def SetValueEx(self, key, name, reserved, kind, value):  # noqa: N802
        assert (name, reserved, kind) == ("", 0, self.REG_SZ)
        self.keys[key] = value

    @contextlib.contextmanager
    def OpenKey(self, root, path):  # noqa: N802
        if (root, path) not in self.keys:
            raise FileNotFoundError(path)
        yield (root, path)

    def QueryValueEx(self, key, name):  # noqa: N802
        return self.keys[key], self.REG_SZ

    def DeleteKey(self, root, path):  # noqa: N802
        if (root, path) not in self.keys:
            raise FileNotFoundError(path)
        del self.keys[(root, path)]


@pytest.fixture
def registry(monkeypatch):
    fake = FakeWinreg()
    monkeypatch.setattr(
        installer,
        "_registry",
        lambda system: (fake, fake.HKEY_LOCAL_MACHINE if system else fake.HKEY_CURRENT_USER),
    )
    return fake


def config():

    return Config()


@pytest.fixture
def shared(tmp_path, monkeypatch):
    """``--system``'s shared folder (normally beside the program), in tmp."""
    folder = tmp_path / "shared"
    monkeypatch.setattr(installer, "shared_dir", lambda: folder)
    return folder


@pytest.mark.parametrize("system", [False, True], ids=["HKCU", "HKLM"])
def test_windows_registry_keys_for_every_browser(tmp_path, registry, shared, system, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the default home, in tmp
    home = default_home() if system else tmp_path / "home"  # --system serves the default one
    ensure_token(home)
    options = InstallOptions(system=system)
    done = installer.install(home, options, config(), platform="win32")
    root = "HKLM" if system else "HKCU"
    assert {i["browser"] for i in done["installed"]} == set(BROWSERS)
    assert done["launcher"].endswith("pagekeeper-native.cmd")
    launcher = Path(done["launcher"]).read_text()
    assert (shared in Path(done["launcher"]).parents) == system
    assert ("PAGEKEEPER_HOME" in launcher) == (not system)  # HKLM: every user's own home
    for browser, per_os in BROWSERS.items():
        key = (root, f"{per_os['win32'][int(system)]}\\{HOST_NAME}")
        path = Path(registry.keys[key])  # the key's default value names the manifest
        data = json.loads(path.read_text())
        assert data["path"] == done["launcher"] and (shared if system else home) in path.parents
        field = "allowed_extensions" if browser == "firefox" else "allowed_origins"
        assert data[field] == (
            ["pagekeeper@pagekeeper.app"]
            if browser == "firefox"
            else [f"chrome-extension://{EXT_ID}/"]
        )
    assert len(registry.keys) == len(BROWSERS)

    report = installer.doctor(home, options, platform="win32")
    assert all(m["present"] and m["ok"] for m in report["manifests"]), report["manifests"]
    del registry.keys[(root, f"{BROWSERS['edge']['win32'][0]}\\{HOST_NAME}")]
    report = installer.doctor(home, options, platform="win32")
    edge = next(m for m in report["manifests"] if m["browser"] == "edge")
    assert not edge["present"] and edge["registry_value"] is None  # file there, key gone

    gone = installer.uninstall(home, options, platform="win32")
    assert len(gone["removed"]) == len(BROWSERS) and registry.keys == {}


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_user_install_doctor_uninstall_for_every_browser(tmp_path, monkeypatch, platform):
    fake_home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(fake_home))
    home = tmp_path / "home"
    ensure_token(home)
    done = installer.install(home, InstallOptions(), config(), platform=platform)
    for entry in done["installed"]:
        user_dir = BROWSERS[entry["browser"]][platform][0]
        expected = Path(os.path.expanduser(user_dir)) / f"{HOST_NAME}.json"
        assert entry["manifest"] == str(expected) and expected.is_file()
        assert fake_home in expected.parents
    report = installer.doctor(home, InstallOptions(), platform=platform)
    assert [m["browser"] for m in report["manifests"]] == list(BROWSERS)
    assert all(m["ok"] for m in report["manifests"]) and report["token_readable"]
    assert report["ok"] and not report["daemon"]["running"]  # a stopped daemon is no fault
    gone = installer.uninstall(home, InstallOptions(), platform=platform)
    assert len(gone["removed"]) == len(BROWSERS)
    assert not any(Path(i["manifest"]).exists() for i in done["installed"])


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_system_scope_uses_the_tables_system_column(platform):
    for browser, per_os in BROWSERS.items():
        system = manifest_dir(browser, InstallOptions(system=True), platform)
        assert system == per_os[platform][1] and not system.startswith("~")
        if platform != "win32":
            assert system.startswith("/")


def test_browser_choice_and_profile_dir(tmp_path):
    assert installer.choose_browsers("all") == tuple(BROWSERS)
    assert installer.choose_browsers("edge") == ("edge",)
    assert "firefox" not in installer.choose_browsers("all", tmp_path)  # Chromium-family idea
    with pytest.raises(InvalidInput):
        installer.choose_browsers("opera")
    options = InstallOptions(("brave",), profile_dir=tmp_path / "p")
    assert manifest_dir("brave", options, "win32") == str(tmp_path / "p" / "NativeMessagingHosts")


def test_extension_id_comes_from_the_public_key_and_is_the_default():
    """The manifest's public ``key`` fixes the Chromium ID; the installer allows that ID."""

    spec = importlib.util.spec_from_file_location(
        "build_extension", ROOT / "packaging" / "build_extension.py"
    )
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert build.extension_id(build.public_key()) == EXT_ID
    assert config().all_extension_ids()[0] == EXT_ID


def test_doctor_flags_a_manifest_that_does_not_allow_our_extension(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home = tmp_path / "home"
    ensure_token(home)
    options = InstallOptions(("chrome", "firefox"))
    done = installer.install(home, options, config(), platform="linux")
    for entry in done["installed"]:  # an install made for other extension IDs
        path = Path(entry["manifest"])
        data = json.loads(path.read_text())
        field = "allowed_extensions" if entry["browser"] == "firefox" else "allowed_origins"
        path.write_text(json.dumps({**data, field: ["chrome-extension://someoneelse/"]}))
    report = installer.doctor(home, options, platform="linux")
    for line in report["manifests"]:
        assert line["ok"] is False and "does not allow" in line["problem"], line
    assert EXT_ID in report["manifests"][0]["problem"]
    assert "pagekeeper@pagekeeper.app" in report["manifests"][1]["problem"]


def test_system_install_serves_each_user_their_own_home(tmp_path, shared, monkeypatch):
    """``--system`` on Linux: the manifest in the system folder points at a shared launcher that
    sets no home, so another user's browser reaches that user's own data dir and daemon."""
    system_dir = tmp_path / "etc" / "chromium" / "native-messaging-hosts"
    user_dir = BROWSERS["chromium"]["linux"][0]
    monkeypatch.setitem(
        BROWSERS, "chromium", {**BROWSERS["chromium"], "linux": (user_dir, str(system_dir))}
    )
    admin_home = tmp_path / "admin-home"
    ensure_token(admin_home)
    options = InstallOptions(("chromium",), system=True)
    done = installer.install(admin_home, options, config(), platform="linux")
    path = system_dir / f"{HOST_NAME}.json"
    assert done["installed"] == [{"browser": "chromium", "manifest": str(path)}]
    launcher = Path(json.loads(path.read_text())["path"])
    assert launcher.parent == shared and "PAGEKEEPER_HOME" not in launcher.read_text()

    xdg = tmp_path / "other-user" / "share"  # another user: platformdirs' data dir is theirs
    their_home = xdg / "pagekeeper"
    their_home.mkdir(parents=True)
    (their_home / "config.json").write_text(json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE)}))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "other-user")}
    env["XDG_DATA_HOME"] = str(xdg)
    proc = subprocess.Popen(
        [str(launcher), f"chrome-extension://{EXT_ID}/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    try:
        body = json.dumps({"id": 1, "type": "ping"}).encode()
        proc.stdin.write(struct.pack("=I", len(body)) + body)
        proc.stdin.flush()
        (length,) = struct.unpack("=I", proc.stdout.read(4))
        assert json.loads(proc.stdout.read(length))["ok"]
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert (their_home / "daemon.json").exists()  # that user's daemon, in that user's home
        assert not (admin_home / "daemon.json").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        stop_daemon(their_home)
    report = installer.doctor(admin_home, options, platform="linux")
    line = report["manifests"][0]  # admin_home is not the admin's default home: not served
    assert not line["ok"] and "a --system install" in line["problem"], line
    assert installer.uninstall(admin_home, options, platform="linux")["removed"]
    assert not path.exists()


def test_all_installs_and_checks_only_the_browsers_found(home, tmp_path):
    """`--browser all` writes manifests only for browsers found here (on PATH, at their program
    path, or by the files of their user data folder) and names the others; a manifest an
    earlier install left for a missing browser neither counts as the browser nor as ok."""
    absent = [
        p for p in installer.SIGNS["chrome"]["linux"] if p.startswith("/") and Path(p).exists()
    ]
    if absent:
        pytest.skip(f"Google Chrome is installed on this machine ({absent[0]})")
    fake_home, programs = tmp_path / "user", tmp_path / "bin"
    browsers_run_before(fake_home, "brave")
    programs.mkdir()
    (programs / "microsoft-edge").write_text("#!/bin/sh\n")
    (programs / "microsoft-edge").chmod(0o755)
    stale = fake_home / ".config" / "google-chrome" / "NativeMessagingHosts" / f"{HOST_NAME}.json"
    stale.parent.mkdir(parents=True)
    stale.write_text(json.dumps(manifest("chrome", Path("/bin/true"), [EXT_ID], [])))
    env = {**os.environ, "HOME": str(fake_home), "PATH": str(programs)}
    cli = [*__import__("tests.host.daemon_fixtures", fromlist=["CLI"]).CLI, "--home", str(home)]

    def run(*args):
        done = subprocess.run([*cli, *args], capture_output=True, text=True, env=env, cwd=ROOT)
        return done

    done = run("install", "--browser", "all", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    installed = {i["browser"] for i in report["installed"]}
    assert {"brave", "edge"} <= installed and "chrome" in report["missing"]
    assert installed.isdisjoint(report["missing"]) and installed | set(report["missing"]) == set(
        BROWSERS
    )
    text = run("install", "--browser", "all").stdout
    assert "not installed here (skipped): " in text and "chrome" in text.splitlines()[-1]
    doctor = json.loads(run("doctor", "--browser", "all", "--json").stdout)
    checked = {m["browser"] for m in doctor["manifests"]}
    assert checked == installed and "chrome" in doctor["missing"]
    assert all(m["ok"] for m in doctor["manifests"])
    named = json.loads(run("install", "--browser", "chrome", "--json").stdout)  # asked by name
    assert [i["browser"] for i in named["installed"]] == ["chrome"] and named["missing"] == []


@pytest.fixture
def launcher(tmp_path) -> Path:
    """An executable launcher, as install writes one."""
    path = tmp_path / "pagekeeper-native"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def _manifest_file(tmp_path: Path, launcher: Path, **changed) -> Path:
    """Chromium's manifest for our host, as install writes it, with ``changed`` fields."""
    data = {**manifest("chromium", launcher, [EXT_ID], []), **changed}
    path = tmp_path / f"{HOST_NAME}.json"
    path.write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return path


def test_a_good_manifest_file_is_present_and_ok_without_a_registry_off_windows(tmp_path, launcher):
    path = _manifest_file(tmp_path, launcher)
    line = installer.check_manifest("chromium", path)
    assert line["present"] and line["ok"] and line["problem"] is None
    assert line["manifest"] == str(path) and line["path"] == str(launcher)
    assert line["browser"] == "chromium" and line["allowed"] == [f"chrome-extension://{EXT_ID}/"]
    assert "registry_value" not in line  # off Windows no registry key is read or needed


def test_firefox_allows_add_on_ids_and_a_manifest_for_another_host_is_not_ok(tmp_path, launcher):
    path = tmp_path / f"{HOST_NAME}.json"
    path.write_text(json.dumps(manifest("firefox", launcher, [EXT_ID], ["ours@example.org"])))
    line = installer.check_manifest("firefox", path, expected=["ours@example.org"])
    assert line["ok"] and line["allowed"] == ["ours@example.org"]  # not Chrome's origins
    path.write_text(json.dumps({**json.loads(path.read_text()), "name": "other.host"}))
    line = installer.check_manifest("firefox", path)
    assert line["ok"] is False and line["problem"] == f"name is 'other.host', not {HOST_NAME}"


def test_on_windows_a_manifest_is_present_only_where_its_registry_key_points(tmp_path, launcher):
    path = _manifest_file(tmp_path, launcher)
    line = installer.check_manifest("chromium", path, True, str(path))
    assert line["present"] and line["ok"] and line["registry_value"] == str(path)
    elsewhere = installer.check_manifest("chromium", path, True, str(tmp_path / "other.json"))
    assert not elsewhere["present"] and elsewhere["registry_value"] == str(tmp_path / "other.json")
    assert not installer.check_manifest("chromium", path, True, None)["present"]


def test_a_manifest_that_is_not_json_is_present_and_not_ok(tmp_path):
    path = tmp_path / f"{HOST_NAME}.json"
    path.write_text('{"name": ')
    line = installer.check_manifest("chromium", path)
    assert line["present"] and line["ok"] is False
    assert line["problem"].startswith("unreadable manifest: ") and line["manifest"] == str(path)


def test_a_manifest_without_a_path_is_not_ok(tmp_path, launcher):
    line = installer.check_manifest("chromium", _manifest_file(tmp_path, launcher, path=None))
    assert line["ok"] is False and "is not an executable file" in line["problem"]


def test_a_manifest_problem_names_the_install_to_run_again(tmp_path, launcher):
    """doctor names the install that writes what it checked (its home, browser, profile
    folder); a caller that gives none gets the plain command."""
    path = _manifest_file(tmp_path, launcher, path=str(tmp_path / "missing"))
    again = "pagekeeper --home /h install --browser chromium"
    assert installer.check_manifest("chromium", path, again=again)["problem"] == (
        f"path {str(tmp_path / 'missing')!r} is not an executable file (run {again} again)"
    )
    assert installer.check_manifest("chromium", path)["problem"].endswith(
        "(run pagekeeper install again)"
    )
    other = _manifest_file(tmp_path, launcher, allowed_origins=["chrome-extension://x/"])
    line = installer.check_manifest("chromium", other, expected=[f"chrome-extension://{EXT_ID}/"])
    assert (
        line["problem"]
        == f"does not allow chrome-extension://{EXT_ID}/ (run pagekeeper install again)"
    )


def test_the_install_doctor_names_has_the_scope_it_checked(tmp_path):
    """The home, one browser (none: every browser, install's default), the system scope and a
    profile folder (quoted for a shell) that doctor checked; the default home goes unnamed."""
    home, profile = tmp_path / "my home", tmp_path / "a profile"
    said = installer.install_command(home, InstallOptions(("firefox",), True, profile))
    program = own_command(home)
    assert said == f"{program} install --browser firefox --system --profile-dir '{profile}'"
    assert installer.install_command(home, InstallOptions()) == f"{program} install"
    two = installer.install_command(home, InstallOptions(("chrome", "firefox")))
    assert two == f"{program} install"  # two browsers: install's default writes both
    assert " --home " not in installer.install_command(default_home(), InstallOptions())


def test_a_stopped_or_paused_daemon_names_the_start_for_its_home(tmp_path):
    home = tmp_path / "home"
    start = f"to start it now: {own_command(home)} serve --detach"
    assert installer.daemon_stopped(home).endswith(start)
    paused = installer.daemon_paused(home)
    assert paused.startswith("stopped until the next login") and paused.endswith(start)


# -- which home a launcher serves (doctor's manifest-home check), in process ---------------


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_a_launcher_names_the_home_it_sets_however_the_path_is_spelled(tmp_path, platform):
    home = tmp_path / "my 'quoted' home=BOX"  # a name ending in a letter the quote is not
    made = tmp_path / "launcher"
    made.write_text(launcher_text(home, platform), newline="")
    assert installer.launcher_home(made) == (home, True)


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_a_system_launcher_serves_each_users_default_home_without_naming_it(
    tmp_path, platform, monkeypatch
):
    monkeypatch.setenv("PAGEKEEPER_HOME", str(tmp_path / "whoever runs it"))
    made = tmp_path / "launcher"
    made.write_text(launcher_text(None, platform), newline="")
    assert installer.launcher_home(made) == (default_home(), False)


def test_the_binarys_system_launcher_is_ours_too(tmp_path, monkeypatch):
    """``make dist``'s binary writes a launcher that runs ``pagekeeper native``, with no
    module name in it: its own comment says whose it is."""
    monkeypatch.setattr(installer.sys, "frozen", True, raising=False)
    made = tmp_path / "launcher"
    made.write_text(launcher_text(None, "linux"))
    assert "host.native.relay" not in made.read_text()
    assert installer.launcher_home(made) == (default_home(), False)


@pytest.mark.parametrize(
    "content",
    [b"#!/bin/sh\nexec /usr/bin/other-host\n", b"PAGEKEEPER_HOME=\nexport X\n", b"\xff\xfe\x00"],
)
def test_a_file_that_is_not_our_launcher_serves_no_home_that_can_be_told(tmp_path, content):
    made = tmp_path / "launcher"
    made.write_bytes(content)
    assert installer.launcher_home(made) == (None, False)
    assert installer.launcher_home(tmp_path / "missing") == (None, False)
    assert installer.launcher_home(tmp_path) == (None, False)  # a folder


def test_a_home_is_the_same_home_however_it_is_reached(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "link").symlink_to(home)
    monkeypatch.setenv("HOME", str(tmp_path))
    for spelled in (home, tmp_path / "link", tmp_path / "x" / ".." / "home", Path("~/home")):
        assert installer._same_home(spelled, home), spelled
    assert not installer._same_home(tmp_path / "home2", home)
    assert not installer._same_home(tmp_path, home)  # a parent is another home


def test_a_manifest_whose_launcher_serves_another_home_is_a_fault_naming_both(tmp_path):
    """The browser's helper would read and write the other home's archive; the line names
    the home it serves and the install that makes it serve this one."""
    first, other = tmp_path / "first", tmp_path / "other"
    launcher = tmp_path / "pagekeeper-native"
    launcher.write_text(launcher_text(first))
    launcher.chmod(0o755)
    path = _manifest_file(tmp_path, launcher)
    mine = installer.check_manifest("chromium", path, home=first)
    assert (mine["ok"], mine["serves"], mine["problem"]) == (True, str(first), None)
    again = "pagekeeper --home other install"
    line = installer.check_manifest("chromium", path, again=again, home=other)
    assert (line["ok"], line["serves"]) == (False, str(first))
    assert line["problem"] == (
        f"serves another home ({first}), not {other}: the browser's helper uses that"
        f" home's archive; {again} makes it serve this one instead"
    )
    # no home asked about: nothing to compare, nothing flagged
    assert installer.check_manifest("chromium", path)["ok"] is True


@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_a_system_launcher_serves_the_default_home_and_is_flagged_for_any_other(
    tmp_path, platform, monkeypatch
):
    """``--system``'s launcher names no home: it serves the default home of whoever runs the
    browser. Checked for that home it is fine; for another, the browser's helper would use
    the default home's archive: a fault, whose fix is this home's per-user install (a
    browser reads a user's manifest before the system's: Chromium's and Firefox's lookup)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    launcher = tmp_path / "pagekeeper-native"
    launcher.write_text(launcher_text(None, platform), newline="")
    launcher.chmod(0o755)
    path = _manifest_file(tmp_path, launcher)
    line = installer.check_manifest("chromium", path, home=default_home())
    assert (line["ok"], line["serves"], line["problem"]) == (True, str(default_home()), None)
    other = tmp_path / "not the default"
    own = "pagekeeper --home other install --browser chromium"
    line = installer.check_manifest("chromium", path, again="… --system", home=other, own=own)
    assert (line["ok"], line["serves"]) == (False, str(default_home()))
    assert line["problem"] == (
        f"serves each user's default home ({default_home()}: a --system install), not {other}:"
        f" the browser's helper uses that home's archive; {own} (for this user) makes it"
        " serve this one instead"
    )


def test_doctor_names_the_per_user_install_as_the_fix_of_a_system_manifest(
    tmp_path, shared, monkeypatch
):
    """doctor --system for a home that is not the default: flagged, and the install it names
    is the per-user one for this home (the same browser, no ``--system``)."""
    system_dir = tmp_path / "etc" / "chromium" / "native-messaging-hosts"
    user_dir = tmp_path / "user" / "chromium"
    monkeypatch.setitem(BROWSERS, "chromium", {**BROWSERS["chromium"], "linux": (str(user_dir), str(system_dir))})  # fmt: skip
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    home = tmp_path / "home"
    ensure_token(home)
    options = InstallOptions(("chromium",), system=True)
    installer.install(home, options, config(), platform="linux")
    report = installer.doctor(home, options, platform="linux")
    own = installer.install_command(home, InstallOptions(("chromium",)))
    assert report["ok"] is False and "--system" not in own
    assert report["manifests"][0]["problem"].endswith(
        f"{own} (for this user) makes it serve this one instead"
    )
    installer.install(home, InstallOptions(("chromium",)), config(), platform="linux")
    report = installer.doctor(home, InstallOptions(("chromium",)), platform="linux")
    assert report["ok"] is True and report["manifests"][0]["serves"] == str(home)


def test_the_binarys_windows_system_launcher_is_ours_and_serves_the_default_home(
    tmp_path, monkeypatch
):
    """``make dist``'s binary on Windows writes ``"…\\pagekeeper.exe" native %*`` with no
    home and no module name: its ``rem`` line says whose it is; one written before that line
    (the binary's own command alone) is recognised as well; another program's is not."""
    monkeypatch.setattr(installer.sys, "frozen", True, raising=False)
    monkeypatch.setattr(
        installer.sys, "executable", "C:\\Program Files\\PageKeeper\\pagekeeper.exe"
    )
    made = tmp_path / "pagekeeper-native.cmd"
    made.write_text(launcher_text(None, "win32"), newline="")
    text = made.read_bytes().decode()
    assert "host.native.relay" not in text and text.startswith("@echo off\r\nrem PageKeeper")
    assert installer.launcher_home(made) == (default_home(), False)
    before = '@echo off\r\n"C:\\Tools\\pagekeeper.exe" native %*\r\n'  # no "PageKeeper" in it
    made.write_text(before, newline="")
    assert installer.launcher_home(made) == (default_home(), False)
    made.write_text('@echo off\r\n"C:\\Tools\\otherhost.exe" native %*\r\n', newline="")
    assert installer.launcher_home(made) == (None, False)


# -- doctor's daemon check, in process -------------------------------------------------------


def test_doctor_reports_a_running_daemon_by_its_address_and_its_answer(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    asked = []
    running = {"url": "http://127.0.0.1:9", "port": 9}  # this home's daemon, no other's
    monkeypatch.setattr(installer.client, "running", lambda h: running if h == home else None)
    monkeypatch.setattr(
        installer.client, "call", lambda h, kind, timeout: asked.append((h, kind)) or {"pong": 1}
    )
    assert installer.daemon_state(home) == {
        "running": True,
        "url": "http://127.0.0.1:9",
        "ping": {"pong": 1},
    }
    assert asked == [(home, "ping")]


def test_a_daemon_that_runs_and_does_not_answer_is_a_fault(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setattr(installer.client, "running", lambda h: {"url": "http://127.0.0.1:9"})

    def silent(h, kind, timeout):
        raise OSError("connection refused")

    monkeypatch.setattr(installer.client, "call", silent)
    assert installer.daemon_state(home) == {"running": False, "problem": "connection refused"}
    options = InstallOptions(("chromium",), profile_dir=tmp_path / "profile")
    installer.install(home, options, platform="linux")
    ensure_token(home)
    report = installer.doctor(home, options, platform="linux")
    assert report["manifests"][0]["ok"] and report["token_readable"]
    assert report["ok"] is False and report["daemon"]["problem"] == "connection refused"


def test_a_stopped_daemon_is_no_fault_and_a_paused_one_says_until_when(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setattr(installer.client, "running", lambda h: None)
    monkeypatch.setattr(installer, "paused", lambda h: None)
    assert installer.daemon_state(home) == {
        "running": False,
        "note": installer.daemon_stopped(home),
    }
    monkeypatch.setattr(installer, "paused", lambda h: {"boot": "x"} if h == home else None)
    assert installer.daemon_state(home) == {
        "running": False,
        "note": installer.daemon_paused(home),
    }
    options = InstallOptions(("chromium",), profile_dir=tmp_path / "profile")
    installer.install(home, options, platform="linux")
    ensure_token(home)
    report = installer.doctor(home, options, platform="linux")
    assert report["ok"] is True and report["home"] == str(home)
    assert report["missing"] == [] and report["daemon"]["running"] is False


def test_a_launcher_that_cannot_run_serves_no_home_and_its_fault_is_that(tmp_path):
    """A launcher the browser cannot run serves nothing, whichever home it names: the fault
    shown is the one to fix first."""
    launcher = tmp_path / "pagekeeper-native"
    launcher.write_text(launcher_text(tmp_path / "first"))
    launcher.chmod(0o644)
    line = installer.check_manifest(
        "chromium", _manifest_file(tmp_path, launcher), home=tmp_path / "other"
    )
    assert (line["ok"], line["serves"]) == (False, None)
    assert "is not an executable file" in line["problem"]


def test_a_manifest_that_allows_nothing_does_not_allow_our_extension(tmp_path, launcher):
    path = _manifest_file(tmp_path, launcher, allowed_origins=None)  # the key left out
    line = installer.check_manifest("chromium", path, expected=[f"chrome-extension://{EXT_ID}/"])
    assert (line["ok"], line["allowed"]) == (False, [])
    assert line["problem"].startswith(f"does not allow chrome-extension://{EXT_ID}/")


def test_browser_all_checks_only_the_browsers_found_on_the_platform_checked(tmp_path, monkeypatch):
    """``--browser all``: the browsers found (on the platform asked about) are checked, the
    others listed as not installed here; a profile folder, or one browser named, checks
    what was asked for, found or not."""
    asked: list[tuple[str, str | None]] = []

    def found(browser, platform=None):
        asked.append((browser, platform))
        return browser in ("chromium", "firefox")

    monkeypatch.setattr(installer, "browser_present", found)
    every = tuple(BROWSERS)
    options = InstallOptions(every, present_only=True)
    present, missing = installer.present_and_missing(options, "darwin")
    assert present == ("chromium", "firefox")
    assert missing == [b for b in every if b not in present]
    assert {p for _, p in asked} == {"darwin"} and [b for b, _ in asked] == list(every)
    profile = InstallOptions(every, present_only=True, profile_dir=tmp_path)
    assert installer.present_and_missing(profile, "darwin") == (every, [])
    assert installer.present_and_missing(InstallOptions(("chrome",)), "darwin") == (("chrome",), [])
    home = tmp_path / "home"
    report = installer.doctor(home, InstallOptions(every, present_only=True), platform="linux")
    assert [m["browser"] for m in report["manifests"]] == ["chromium", "firefox"]
    assert report["missing"] == missing


def test_doctor_of_browser_all_asks_which_browsers_are_found_on_the_platform_it_checks(
    tmp_path, monkeypatch
):
    """doctor for another platform than this machine's (its manifests' places are that
    platform's) checks the browsers found THERE: a browser found only on this machine is not
    checked, and one found only there is."""
    here = installer.platform_key(None)

    def found(browser, platform=None):
        on = installer.platform_key(platform)
        return browser == ("firefox" if on == here else "chromium")

    monkeypatch.setattr(installer, "browser_present", found)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    every = tuple(BROWSERS)
    report = installer.doctor(
        tmp_path / "home", InstallOptions(every, present_only=True), platform="darwin"
    )
    assert [m["browser"] for m in report["manifests"]] == ["chromium"]
    assert report["missing"] == [b for b in every if b != "chromium"]


def test_a_source_installs_windows_launcher_written_before_the_mark_is_ours(tmp_path):
    """A ``--system`` launcher of a source install written before the launchers carried their
    ``rem`` line names no home and no "PageKeeper": its module, ``host.native.relay``, says
    whose it is (each user's default home)."""
    made = tmp_path / "pagekeeper-native.cmd"
    made.write_text(
        '@echo off\r\n"C:\\Python311\\python.exe" -m host.native.relay %*\r\n', newline=""
    )
    assert installer.launcher_home(made) == (default_home(), False)


def test_the_launchers_each_run_the_native_host_and_nothing_else(monkeypatch):
    """Every line of a launcher is run by its shell: a ``--system`` cmd launcher is the mark
    and the command alone; the binary's runs its ``native`` command."""
    monkeypatch.setattr(installer.sys, "executable", "C:\\Python311\\python.exe")
    assert launcher_text(None, "win32") == (
        f"@echo off\r\nrem {installer.LAUNCHER_MARK}\r\n"
        '"C:\\Python311\\python.exe" -m host.native.relay %*\r\n'
    )
    monkeypatch.setattr(installer.sys, "frozen", True, raising=False)
    monkeypatch.setattr(installer.sys, "executable", "/opt/pagekeeper/pagekeeper")
    assert launcher_text(None, "linux") == (
        f'#!/bin/sh\n# {installer.LAUNCHER_MARK}\nexec /opt/pagekeeper/pagekeeper native "$@"\n'
    )
