"""host/services/warc.py on real pages: export, read back with warcio, import into a fresh archive."""

from __future__ import annotations

import gzip
import io
import json
from datetime import UTC, datetime

import pytest
from cdxj_indexer.main import write_cdx_index
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders

from engine.archive import provider, registry
from engine.archive.model import RegisterOptions
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput
from host.services.warc import (
    VersionRecord,
    WarcOptions,
    export_versions,
    import_captures,
    read_captures,
    warc_date,
)
from tests.host.viewer.conftest import ARTICLE, CHIP, page_bytes, provenance


def records_of(data: bytes) -> list:
    out = []
    for rec in ArchiveIterator(io.BytesIO(data)):
        body = rec.content_stream().read()
        out.append((rec.rec_type, rec.rec_headers, rec.http_headers, body))
    return out


def sample_versions() -> list[VersionRecord]:
    info = provenance()
    return [
        VersionRecord(
            f"2026030109300000000{i}",
            info[name]["url"],
            page_bytes(name),
            f"2026-03-0{i + 1}T09:30:00Z",
            charset="utf-8",
            last_modified="Tue, 03 Mar 2026 10:00:00 GMT" if i == 0 else None,
            meta={"title": f"page {i}"},
        )
        for i, name in enumerate((ARTICLE, *CHIP))
    ]


def test_export_is_read_back_by_warcio_with_original_bytes():
    out = io.BytesIO()
    versions = sample_versions()
    count = export_versions(versions, out, "x.warc.gz", WarcOptions())
    recs = records_of(out.getvalue())
    assert count == len(recs) == 1 + 2 * len(versions)
    assert recs[0][0] == "warcinfo"
    responses = [r for r in recs if r[0] == "response"]
    for version, (_, head, http, body) in zip(versions, responses, strict=True):
        assert body == version.body
        assert head.get_header("WARC-Target-URI") == version.url
        assert head.get_header("WARC-Date") == version.registered_at
        assert http.get_statuscode() == "200"
        assert http.get_header("Content-Type") == "text/html; charset=utf-8"
    assert responses[0][2].get_header("Last-Modified") == "Tue, 03 Mar 2026 10:00:00 GMT"


def test_metadata_record_points_at_its_response():
    out = io.BytesIO()
    export_versions(sample_versions()[:1], out, "x.warc.gz", WarcOptions())
    _, (_, resp_head, _, _), (kind, meta_head, _, body) = records_of(out.getvalue())
    assert kind == "metadata"
    assert meta_head.get_header("WARC-Concurrent-To") == resp_head.get_header("WARC-Record-ID")
    assert meta_head.get_header("Content-Type") == "application/warc-fields"
    name, value = body.decode("utf-8").rstrip("\r\n").split(": ", 1)
    assert name == "pagekeeper"
    assert json.loads(value) == {"id": "20260301093000000000", "title": "page 0"}


def test_every_record_is_its_own_gzip_member():
    """Replay tools (pywb, ReplayWeb.page) index per-record gzip members."""
    out = io.BytesIO()
    export_versions(sample_versions(), out, "x.warc.gz", WarcOptions())
    data = out.getvalue()
    offsets = [rec.offset for rec in _iter_with_offsets(data)]
    assert len(offsets) == 7
    for start in offsets:
        assert gzip.decompress(data[start:]).startswith(b"WARC/1.1\r\n")


def _iter_with_offsets(data: bytes):
    it = ArchiveIterator(io.BytesIO(data))
    for rec in it:
        rec.offset = it.get_record_offset()
        yield rec


def test_replay_index_finds_every_response(tmp_path):
    """pywb and ReplayWeb.page find a capture through a CDXJ index (URL key, time, mime,
    status, offset, length); webrecorder's own cdxj-indexer builds one from our export,
    and each (offset, length) is one gzip member holding that response."""

    versions = sample_versions()
    warc = tmp_path / "x.warc.gz"
    with warc.open("wb") as out:
        export_versions(versions, out, warc.name, WarcOptions())
    index = io.StringIO()
    write_cdx_index(index, str(warc), {})
    lines = [line.split(" ", 2) for line in index.getvalue().splitlines()]
    responses = [json.loads(fields) for _, _, fields in lines]
    # Only the responses: a metadata record indexed under the page's URL and time is what
    # pywb replayed instead of the page (checked by hand with pywb 2.10 before the fix).
    assert [e["url"] for e in responses] == [v.url for v in versions]
    assert all(e["status"] == "200" and e["mime"] == "text/html" for e in responses)
    assert [stamp for _, stamp, _ in lines if stamp][0].startswith("2026030")
    data = warc.read_bytes()
    for entry, version in zip(responses, versions, strict=True):
        start, length = int(entry["offset"]), int(entry["length"])
        record = next(ArchiveIterator(io.BytesIO(data[start : start + length])))
        assert record.rec_type == "response" and record.content_stream().read() == version.body


def test_import_into_a_fresh_archive_keeps_urls_dates_and_bytes(tmp_path):

    out = io.BytesIO()
    versions = sample_versions()
    export_versions(versions, out, "x.warc.gz", WarcOptions())
    with ArchiveStore.open(tmp_path) as store:

        def register(capture, when):
            return registry.register(store, capture, RegisterOptions(now=when))

        summary = import_captures(io.BytesIO(out.getvalue()), register)
        assert summary.imported == 3
        assert summary.skipped == 4  # warcinfo + 3 metadata
        for version, reg_id in zip(versions, summary.ids, strict=True):
            got = provider.get(store, reg_id, original=True)
            assert got.body == version.body
            assert got.record["url"] == version.url
            assert warc_date(provider.describe(store, reg_id, "http://x")["registered_at"]) == (
                version.registered_at
            )


def test_non_html_and_errors_are_skipped_with_reasons():

    out = io.BytesIO()
    writer = WarcOptions().writer(out)
    for status, kind in (("404 Not Found", "text/html"), ("200 OK", "image/png")):
        http = StatusAndHeaders(status, [("Content-Type", kind)], protocol="HTTP/1.1")
        rec = writer.create_warc_record(
            "http://a.example/x", "response", payload=io.BytesIO(b"x"), http_headers=http
        )
        writer.write_record(rec)
    summary = import_captures(io.BytesIO(out.getvalue()), lambda c, w: pytest.fail("registered"))
    assert summary.to_dict()["reasons"] == {"status_404": 1, "not_html": 1}


@pytest.mark.parametrize("data", [b"", b"hello, not a warc", gzip.compress(b"junk", mtime=0)])
def test_not_a_warc_is_invalid_input(data):
    with pytest.raises(InvalidInput):
        list(read_captures(io.BytesIO(data)))


def test_warc_date_is_utc():
    assert warc_date("2026-03-01T10:30:00+01:00") == "2026-03-01T09:30:00Z"
    assert datetime(2026, 3, 1, tzinfo=UTC).year == 2026
