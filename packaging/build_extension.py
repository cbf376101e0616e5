"""`make extension`: build the unpacked extensions and the store zips from extension/.

One source tree, one manifest per browser family, generated here from one table:

- dist/extension-chromium/  Manifest V3 with a service worker and the fixed public ``key`` (so the
  extension ID, and the ``allowed_origins`` the installer writes, never change);
- dist/extension-firefox/   Manifest V3 with ``background.scripts`` (Firefox has no extension service
  workers) and ``browser_specific_settings.gecko.id``;
- dist/pagekeeper-chromium.zip, dist/pagekeeper-firefox.zip  for the stores (no ``key``: the
  Chrome Web Store assigns its own).

    $ python packaging/build_extension.py --out /tmp/build
    /tmp/build/extension-chromium
    /tmp/build/extension-firefox
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "extension"
KEY_FILE = ROOT / "packaging" / "extension-key.pub"
ID_FILE = ROOT / "host" / "data" / "extension-id.txt"  # the one copy; the host reads it too
GECKO_ID = "pagekeeper@pagekeeper.app"  # host/daemon/app.py Config.firefox_ids
VERSION = "0.1.0"
# Files in extension/ that are sources of the build, not part of the extension.
SKIP = {"manifest.json"}

COMMON = {
    "manifest_version": 3,
    "name": "PageKeeper",
    "short_name": "PageKeeper",
    "version": VERSION,
    "description": "Repairs broken links and keeps your own versioned archive of the pages you care "
    "about. Everything stays on your computer.",
    "icons": {size: f"icons/icon-{size}.png" for size in ("16", "32", "48", "128")},
    "action": {
        "default_title": "PageKeeper",
        "default_popup": "popup/popup.html",
        "default_icon": {size: f"icons/icon-{size}.png" for size in ("16", "32")},
    },
    "options_ui": {"page": "options/options.html", "open_in_tab": True},
    "permissions": [
        "nativeMessaging",
        "webNavigation",
        "webRequest",
        "tabs",
        "storage",
        "scripting",
        "activeTab",
        "contextMenus",
        "alarms",  # the periodic look for alerts (changed or gone pages the user keeps)
        "notifications",  # … and showing them
    ],
    # Asked for only when the user turns on "archive pages I bookmark" or imports their bookmarks.
    "optional_permissions": ["bookmarks"],
    # webRequest (404/410 of main frames) and scripting (capture on demand, auto-archive) need
    # access to every web page; nothing is injected until the user archives a page, or, with
    # the liveness option on, visits a page that has archived versions (its rendered HTML is
    # read for the check, extension/background/liveness.js).
    "host_permissions": ["http://*/*", "https://*/*"],
    "commands": {
        "archive-page": {
            "suggested_key": {"default": "Alt+Shift+K"},
            "description": "Archive this page",
        }
    },
    "content_security_policy": {"extension_pages": "script-src 'self'; object-src 'self'"},
}

FAMILIES = {
    "chromium": {
        "background": {"service_worker": "background/service-worker.js", "type": "module"},
        "minimum_chrome_version": "116",
    },
    "firefox": {
        "background": {"scripts": ["background/service-worker.js"], "type": "module"},
        "browser_specific_settings": {"gecko": {"id": GECKO_ID, "strict_min_version": "115.0"}},
    },
}


def public_key() -> str:
    """The base64 DER public key that fixes the Chromium extension ID."""
    return "".join(KEY_FILE.read_text().split())


def extension_id(key_b64: str) -> str:
    """Chromium's ID for a key: SHA-256 of the DER, first 32 hex digits, 0-f mapped to a-p.

    >>> len(extension_id(public_key()))
    32
    """
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def manifest(family: str, *, with_key: bool) -> dict:
    """The manifest of one browser family (``with_key`` only for the unpacked Chromium build)."""
    result = {**COMMON, **FAMILIES[family]}
    if family == "chromium" and with_key:
        result["key"] = public_key()
    return result


def copy_sources(target: Path) -> None:
    """Copy extension/ into a fresh `target` (everything but build sources)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(SOURCE, target, ignore=lambda _d, names: [n for n in names if n in SKIP])


def write_zip(folder: Path, zip_path: Path, manifest_data: dict) -> None:
    """Zip `folder` with `manifest_data` as its manifest (files sorted, so builds are stable)."""
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest_data, indent=2) + "\n")
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name != "manifest.json":
                archive.write(path, path.relative_to(folder).as_posix())


def build(out: Path) -> dict[str, Path]:
    """Build both families under `out`; returns the unpacked folders and zips by name."""
    out.mkdir(parents=True, exist_ok=True)
    built: dict[str, Path] = {}
    for family in FAMILIES:
        folder = out / f"extension-{family}"
        copy_sources(folder)
        data = manifest(family, with_key=True)
        (folder / "manifest.json").write_text(json.dumps(data, indent=2) + "\n")
        zip_path = out / f"pagekeeper-{family}.zip"
        write_zip(folder, zip_path, manifest(family, with_key=False))
        built[family], built[f"{family}-zip"] = folder, zip_path
    return built


def check_id() -> str:
    """The ID derived from the committed key; it must match host/data/extension-id.txt."""
    derived = extension_id(public_key())
    recorded = ID_FILE.read_text().strip()
    if derived != recorded:
        raise SystemExit(f"extension-id.txt says {recorded}, the key gives {derived}")
    return derived


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (dist/)")
    args = parser.parse_args(argv)
    ext_id = check_id()
    built = build(args.out)
    for name, path in built.items():
        print(f"{name:16} {path}")
    print(f"chromium ID      {ext_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
