"""WARC and WACZ export carry every stored resource as its own response record; import
brings them back; the WACZ validates with py-wacz and its CDXJ index points at records."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import zipfile
from datetime import UTC, datetime

from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter

from engine.archive import labels, provider, registry
from engine.archive.model import Capture, RegisterOptions
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
    """Two versions of the page (the second one paragraph longer), the same resources."""
    store = ArchiveStore.open(home)
    pages = (HTML, HTML.replace("</body>", "<p>2</p></body>"))
    ids = [registry.register(store, Capture(PAGE, h, resources=resources())).id for h in pages]
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


def exported_valid_wacz(home, tmp_path):
    """``archive export -o x.wacz`` of ``home``, checked valid by py-wacz; its path."""
    out = tmp_path / "x.wacz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    done = subprocess.run(
        [sys.executable, "-m", "wacz", "validate", "-f", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0 and "is valid" in done.stdout, done.stdout + done.stderr
    return out


def test_wacz_export_validates_and_its_index_points_at_the_records(tmp_path):
    home = tmp_path / "a"
    archive_two_versions(home)
    out = exported_valid_wacz(home, tmp_path)
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


# -- "seen again": WARC revisit records ----------------------------------------------------

PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"


def archive_with_a_revisit(home) -> list[str]:
    """A version, its unchanged re-capture a minute later, then a changed version."""
    store = ArchiveStore.open(home)
    pages = (HTML, HTML, HTML.replace("</body>", "<p>2</p></body>"))
    ids = []
    for minute, html in enumerate(pages):
        options = RegisterOptions(now=datetime(2026, 3, 1, 10, minute, tzinfo=UTC))
        capture = Capture(PAGE, html, resources=resources())
        ids.append(registry.register(store, capture, options).id)
    assert store.revisit_of(ids[1]) == ids[0] and store.revisit_of(ids[2]) is None
    store.close()
    return ids


def page_records(data: bytes) -> list:
    """(type, WARC headers) of the page's response and revisit records, in file order."""
    return [
        (r.rec_type, dict(r.rec_headers.headers))
        for r in ArchiveIterator(io.BytesIO(data))
        if r.rec_type in ("response", "revisit")
        and r.rec_headers.get_header("WARC-Target-URI") == PAGE
    ]


def test_a_revisit_is_exported_as_a_revisit_record_and_imported_as_one(tmp_path):
    home = tmp_path / "a"
    ids = archive_with_a_revisit(home)
    out = tmp_path / "x.warc.gz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    records = page_records(out.read_bytes())
    assert [kind for kind, _ in records] == ["response", "revisit", "response"]
    (_, first), (_, revisit) = records[0], records[1]
    assert revisit["WARC-Profile"] == PROFILE  # WARC 1.1 section 6.7.2
    assert revisit["WARC-Payload-Digest"] == first["WARC-Payload-Digest"]
    assert revisit["WARC-Refers-To"] == first["WARC-Record-ID"]
    assert revisit["WARC-Refers-To-Target-URI"] == PAGE
    assert revisit["WARC-Refers-To-Date"] == first["WARC-Date"] == "2026-03-01T10:00:00Z"
    assert revisit["WARC-Date"] == "2026-03-01T10:01:00Z"
    fresh = tmp_path / "b"
    result = json.loads(pk(fresh, "archive", "import", str(out), "--json").stdout)
    assert result["imported"] == 3
    listed = json.loads(pk(fresh, "archive", "versions", PAGE, "--json").stdout)
    times = [v["registered_at"][11:16] for v in listed]
    assert times == ["10:02", "10:01", "10:00"]
    assert listed[1]["revisit_of"] == listed[2]["id"] and listed[0]["revisit_of"] is None
    with ArchiveStore.open(fresh, readonly=True) as store:
        again, first_id = listed[1]["id"], listed[2]["id"]
        original = provider.get(store, again, original=True).body
        assert original == provider.get(store, first_id, original=True).body == HTML.encode()
        assert manifest_of(store, store.version(again)) == manifest_of(
            store, store.version(first_id)
        )
    assert ids  # the source archive's IDs are not carried: the importer gives new ones


def test_a_revisit_exported_without_its_version_is_a_full_response(tmp_path):
    home = tmp_path / "a"
    ids = archive_with_a_revisit(home)
    out = tmp_path / "one.warc.gz"
    pk(home, "archive", "export", "--id", ids[1], "-o", str(out), "--json")
    records = page_records(out.read_bytes())
    assert [kind for kind, _ in records] == ["response"]
    assert responses(out.read_bytes())[PAGE] == [HTML.encode()]


def edited_revisit_export(tmp_path, edit):
    """Export an archive with a revisit as WARC, pass each record through ``edit`` (the
    record to write, or None to drop it), and import the result; the import's JSON."""
    home = tmp_path / "a"
    archive_with_a_revisit(home)
    out = tmp_path / "x.warc.gz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    edited = io.BytesIO()
    writer = WARCWriter(edited, gzip=True)
    for record in ArchiveIterator(io.BytesIO(out.read_bytes())):
        if (kept := edit(record)) is not None:
            writer.write_record(kept)
    changed = tmp_path / "edited.warc.gz"
    changed.write_bytes(edited.getvalue())
    return json.loads(pk(tmp_path / "b", "archive", "import", str(changed), "--json").stdout)


def test_a_revisit_of_a_payload_the_file_lacks_is_skipped(tmp_path):
    def drop_page_responses(record):  # the revisit then names nothing in the file
        is_page = record.rec_headers.get_header("WARC-Target-URI") == PAGE
        return None if record.rec_type == "response" and is_page else record

    result = edited_revisit_export(tmp_path, drop_page_responses)
    assert result["imported"] == 0 and result["reasons"]["revisit_of_unknown_payload"] == 1


def test_a_wacz_with_a_revisit_validates_and_indexes_it(tmp_path):
    home = tmp_path / "a"
    archive_with_a_revisit(home)
    out = exported_valid_wacz(home, tmp_path)
    with zipfile.ZipFile(out) as zipped:
        index = zipped.read("indexes/index.cdxj").decode().splitlines()
        pages = zipped.read("pages/pages.jsonl").decode().splitlines()
    revisits = [json.loads(line.split(" ", 2)[2]) for line in index if "warc/revisit" in line]
    assert [r["url"] for r in revisits] == [PAGE] and revisits[0]["digest"].startswith("sha1:")
    assert len(pages) == 1 + 3  # the header and every capture
    fresh = tmp_path / "b"
    result = json.loads(pk(fresh, "archive", "import", str(out), "--json").stdout)
    with ArchiveStore.open(fresh, readonly=True) as store:
        assert result["imported"] == 3 and store.revisit_count() == 1


def test_a_revisit_naming_another_urls_payload_is_skipped(tmp_path):
    """Identical payload digests of two URLs are not one page: such a revisit registers nothing."""

    def move_revisit(record):
        if record.rec_type == "revisit":
            record.rec_headers.replace_header("WARC-Target-URI", "https://site.test/other.html")
        return record

    result = edited_revisit_export(tmp_path, move_revisit)
    assert result["imported"] == 2 and result["reasons"]["revisit_of_unknown_payload"] == 1


def test_a_revisits_note_goes_out_and_comes_back_with_it(tmp_path):
    home = tmp_path / "a"
    ids = archive_with_a_revisit(home)
    with ArchiveStore.open(home) as store:
        labels.set_note(store, ids[1], "the same page, an hour later")
    out = tmp_path / "x.warc.gz"
    pk(home, "archive", "export", "-o", str(out), "--json")
    fresh = tmp_path / "b"
    pk(fresh, "archive", "import", str(out), "--json")
    listed = json.loads(pk(fresh, "archive", "versions", PAGE, "--json").stdout)
    assert [(v["revisit_of"] is not None, v["note"]) for v in listed] == [
        (False, ""),
        (True, "the same page, an hour later"),
        (False, ""),
    ]
