"""WARC and WACZ export carry every stored resource as its own response record; import
brings them back; the WACZ validates with py-wacz and its CDXJ index points at records."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import zipfile

from warcio.archiveiterator import ArchiveIterator

from engine.archive import provider, registry
from engine.archive.model import Capture
from engine.archive.resources import manifest_of
from engine.archive.store import ArchiveStore
from tests.host.daemon_fixtures import pk

PAGE = "https://site.test/index.html"
HTML = (
    '<html><head><link rel=stylesheet href="s.css"></head><body><img src="logo.png"></body></html>'
)
CSS = b"body{background:url(bg.png)}"
LOGO = b"\x89PNG\r\n\x1a\n" + bytes(range(200))
BG = b"GIF89a" + bytes(50)


def resources() -> list[dict]:
    items = [
        ("https://site.test/s.css", "text/css", CSS),
        ("https://site.test/logo.png", "image/png", LOGO),
        ("https://site.test/bg.png", "image/gif", BG),
    ]
    return [
        {"url": u, "type": t, "size": len(d), "status": "pending", "data": d} for u, t, d in items
    ]


def archive_two_versions(home) -> list[str]:
    store = ArchiveStore.open(home)
    ids = [
        registry.register(store, Capture(PAGE, HTML, resources=resources())).id for _ in range(2)
    ]
    store.close()
    return ids


def responses(data: bytes) -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {}
    for record in ArchiveIterator(io.BytesIO(data)):
        if record.rec_type == "response":
            url = record.rec_headers.get_header("WARC-Target-URI")
            found.setdefault(url, []).append(record.content_stream().read())
    return found


def test_warc_export_writes_each_resource_once_and_import_brings_them_back(tmp_path):
    home = tmp_path / "a"
    archive_two_versions(home)
    out = tmp_path / "x.warc.gz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    found = responses(out.read_bytes())
    assert found["https://site.test/s.css"] == [CSS]  # the second version's is the same: once
    assert found["https://site.test/logo.png"] == [LOGO]
    assert found["https://site.test/bg.png"] == [BG]
    assert len(found[PAGE]) == 2
    fresh = tmp_path / "b"
    result = json.loads(pk(fresh, "archive", "import", str(out), "--json").stdout)
    assert result["imported"] == 2 and result["resources"] == 4  # three resources and the page
    store = ArchiveStore.open(fresh, readonly=True)
    manifest = {e["url"]: e for e in manifest_of(store, store.version(store.ids[0]))}
    assert store.get_blob(manifest["https://site.test/bg.png"]["blob"]) == BG  # via the CSS
    assert store.get_blob(manifest["https://site.test/logo.png"]["blob"]) == LOGO


def test_wacz_export_validates_and_its_index_points_at_the_records(tmp_path):
    home = tmp_path / "a"
    archive_two_versions(home)
    out = tmp_path / "x.wacz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    done = subprocess.run(
        [sys.executable, "-m", "wacz", "validate", "-f", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0 and "is valid" in done.stdout, done.stdout + done.stderr
    with zipfile.ZipFile(out) as zipped:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in zipped.infolist())
        warc = zipped.read("archive/data.warc.gz")
        lines = zipped.read("indexes/index.cdxj").decode().splitlines()
        pages = [json.loads(line) for line in zipped.read("pages/pages.jsonl").splitlines()]
    assert lines == sorted(lines) and len(lines) == 5  # two pages, three resources
    for line in lines:
        fields = json.loads(line.split(" ", 2)[2])
        record = next(
            ArchiveIterator(
                io.BytesIO(warc[fields["offset"] : fields["offset"] + fields["length"]])
            )
        )
        assert record.rec_headers.get_header("WARC-Target-URI") == fields["url"]
    assert pages[0]["format"] == "json-pages-1.0" and [p["url"] for p in pages[1:]] == [PAGE, PAGE]
    broken = tmp_path / "broken.wacz"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data + b"x" if info.filename == "pages/pages.jsonl" else data)
    done = subprocess.run(
        [sys.executable, "-m", "wacz", "validate", "-f", str(broken)],
        capture_output=True,
        text=True,
    )
    assert "is valid" not in done.stdout  # the validator does check the hashes


def test_wacz_import_brings_pages_and_resources(tmp_path):
    home = tmp_path / "a"
    archive_two_versions(home)
    out = tmp_path / "x.wacz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    fresh = tmp_path / "b"
    result = json.loads(pk(fresh, "archive", "import", str(out), "--json").stdout)
    assert result["imported"] == 2
    store = ArchiveStore.open(fresh, readonly=True)
    stored = [
        e for e in manifest_of(store, store.version(store.ids[-1])) if e["status"] == "stored"
    ]
    assert len(stored) == 3


def singlefile_page(url: str, text: str) -> bytes:
    """A page in SingleFile's layout: its save comment, every resource inlined."""
    logo = base64.b64encode(LOGO).decode()
    font = base64.b64encode(b"wOF2 font bytes").decode()
    return (
        f"<!DOCTYPE html> <html lang=en><!--\n Page saved with SingleFile \n url: {url} \n"
        " saved date: Tue Nov 24 2026 10:00:00 GMT+0000 (Coordinated Universal Time)\n-->"
        f"<head><style>@font-face{{font-family:f;src:url(data:font/woff2;base64,{font})}}</style>"
        f'</head><body><img src="data:image/png;base64,{logo}"><p>{text}</p></body></html>'
    ).encode()


def test_singlefile_import_turns_data_uris_into_shared_blobs(tmp_path):
    home = tmp_path / "a"
    for n, url in enumerate(("https://site.test/one", "https://site.test/two")):
        path = tmp_path / f"{n}.html"
        path.write_bytes(singlefile_page(url, f"page {n}"))
        result = json.loads(pk(home, "archive", "import", str(path), "--json").stdout)
        assert result["imported"] == 1 and result["resources"] == 2
    store = ArchiveStore.open(home, readonly=True)
    docs = [store.version(i) for i in store.ids]
    assert [d["url"] for d in docs] == ["https://site.test/one", "https://site.test/two"]
    logos = [e for d in docs for e in manifest_of(store, d) if e["type"] == "image/png"]
    assert len(logos) == 2 and logos[0]["blob"] == logos[1]["blob"]  # stored once
    assert store.get_blob(logos[0]["blob"]) == LOGO
    copy = provider.get(store, store.ids[0]).body.decode()
    assert "base64" not in copy and f"/v/{store.ids[0]}/r/" in copy
    assert docs[0]["ts"] == 1795514400.0  # the saved date of the comment
