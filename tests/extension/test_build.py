"""`make extension`: two loadable folders and two store zips from one source tree, the Chromium
manifest carrying the public key whose ID the installer allows, and no private key anywhere."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
import zipfile

from tests.extension.conftest import EXTENSION_ID, ROOT, build_extension


def test_build_writes_both_families_and_zips(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build_extension.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert EXTENSION_ID in done.stdout
    chromium = json.loads((tmp_path / "extension-chromium" / "manifest.json").read_text())
    firefox = json.loads((tmp_path / "extension-firefox" / "manifest.json").read_text())
    assert chromium["manifest_version"] == firefox["manifest_version"] == 3
    assert chromium["background"] == {
        "service_worker": "background/service-worker.js",
        "type": "module",
    }
    assert firefox["background"]["scripts"] == ["background/service-worker.js"]
    assert firefox["browser_specific_settings"]["gecko"]["id"]
    assert "key" not in firefox and "nativeMessaging" in chromium["permissions"]
    for family, manifest in (("chromium", chromium), ("firefox", firefox)):
        folder = tmp_path / f"extension-{family}"
        referenced = [manifest["background"].get("service_worker"), *manifest["icons"].values(),
                      manifest["action"]["default_popup"], manifest["options_ui"]["page"]]  # fmt: skip
        for path in filter(None, referenced):
            assert (folder / path).is_file(), f"{family}: {path} missing"
        with zipfile.ZipFile(tmp_path / f"pagekeeper-{family}.zip") as z:
            names = z.namelist()
            assert "manifest.json" in names and "error/error.html" in names
            assert "key" not in json.loads(z.read("manifest.json"))  # the stores assign their own


def test_the_key_gives_the_committed_id():
    key = build_extension.public_key()
    der = base64.b64decode(key)
    digest = hashlib.sha256(der).hexdigest()[:32]
    assert "".join("abcdefghijklmnop"[int(c, 16)] for c in digest) == EXTENSION_ID
    assert build_extension.manifest("chromium", with_key=True)["key"] == key
    assert re.fullmatch(r"[a-p]{32}", EXTENSION_ID)


def test_no_private_key_is_committed():
    tracked = subprocess.run(
        ["git", "ls-files", "packaging", "extension"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    for name in tracked:
        path = ROOT / name
        if path.is_file() and path.suffix not in {".png"}:
            assert "PRIVATE KEY" not in path.read_text(errors="replace"), name


def test_pages_load_their_scripts_from_files():
    """MV3's extension-page CSP forbids inline scripts (browser-testing.md, pitfall 5)."""
    for page in (ROOT / "extension").rglob("*.html"):
        html = page.read_text()
        for script in re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S):
            assert not script.strip(), f"inline script in {page}"
        for src in re.findall(r'<script[^>]*src="([^"]+)"', html):
            assert (page.parent / src).resolve().is_file(), f"{page}: {src}"


def extension_sources() -> dict[str, str]:
    """Every extension/*.js by its path, with // and /* */ comments removed."""
    comments = re.compile(r"/\*.*?\*/|(?<![:'\"])//[^\n]*", re.S)
    folder = ROOT / "extension"
    return {
        p.relative_to(folder).as_posix(): comments.sub("", p.read_text())
        for p in sorted(folder.rglob("*.js"))
    }


def test_architecture_rules_of_the_issue():
    """One file owns the native port; one wrapper over chrome.*/browser.*; every listener at the
    top level of the service worker; one {type: handler} router; one folder per page."""
    sources = extension_sources()
    globals_ = re.compile(r"(?<![\w.$'\"/])(chrome|browser)\.\w|\bglobalThis\.(chrome|browser)\b")
    # capture/page.js is a content script: a classic script, which cannot import the wrapper; it
    # reads chrome.dom (Chromium's closed shadow roots) only.
    users = [n for n, s in sources.items() if globals_.search(s)]
    assert users == ["capture/page.js", "lib/browser.js"]
    assert set(globals_.findall(sources["capture/page.js"])) == {("", "chrome")}
    assert [n for n, s in sources.items() if "connectNative" in s] == ["background/native.js"]
    listeners = {n: s.count(".addListener(") for n, s in sources.items() if ".addListener(" in s}
    # native.js adds only its own port's two listeners (onMessage, onDisconnect of the port)
    assert set(listeners) == {"background/service-worker.js", "background/native.js"}
    assert (
        re.findall(r"(\w+)\.on\w+\.addListener", sources["background/native.js"]) == ["opened"] * 2
    )
    worker = sources["background/service-worker.js"]
    # One exception: the optional bookmarks permission's API exists only once granted, so its
    # listener is added by watchBookmarks(), called in the first turn and again from
    # permissions.onAdded (a grant while the worker runs).
    watch = re.search(r"\nfunction watchBookmarks\(\) \{\n(.*?)\n\}", worker, re.S)
    assert watch and "\nwatchBookmarks();\n" in worker
    assert watch.group(1).count(".addListener(") == 1
    for line in worker.replace(watch.group(1), "").splitlines():
        if ".addListener(" in line:
            assert not line.startswith((" ", "\t")), f"listener not at the top level: {line}"
    assert worker.count("onMessage.addListener(") == 1
    assert sum(s.count("export const HANDLERS") for s in sources.values()) == 1
    pages = sorted(
        p.relative_to(ROOT / "extension").as_posix() for p in (ROOT / "extension").rglob("*.html")
    )
    assert pages == ["error/error.html", "options/options.html", "popup/popup.html"]
    for page in pages:
        folder = page.split("/")[0]
        assert (ROOT / "extension" / folder / f"{folder}.js").is_file()
