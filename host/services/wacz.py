"""WACZ export (Web Archive Collection Zipped 1.1.1, https://specs.webrecorder.net/wacz/1.1.1/):
one ZIP holding the WARC, a CDXJ index of its records, the page list and a datapackage.

Layout (every entry stored uncompressed, as the spec asks, so a reader can seek into it)::

    archive/data.warc.gz     the same WARC ``archive export`` writes (pages, resources, metadata)
    indexes/index.cdxj       one line per response record: SURT key, 14-digit time, JSON
                             {url, mime, status, digest, length, offset, filename}, sorted
    pages/pages.jsonl        a header line, then {id, url, ts, title} per archived version
    datapackage.json         every file above with its sha256 and size (Frictionless Data)

>>> surt("https://www.Example.com:443/a/b?z=1&a=2")
'com,example)/a/b?a=2&z=1'
>>> surt("http://e.com:8080/")
'com,e:8080)/'
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator

from engine import __version__
from host.services.warc import WarcOptions, export_versions, warc_date

WARC_NAME = "data.warc.gz"
DEFAULT_PORTS = {"http": 80, "https": 443}


def surt(url: str) -> str:
    """The Sort-friendly URI Reordering Transform CDXJ keys use: host labels reversed
    (a leading ``www`` dropped), default port dropped, query keys sorted, lower case."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().rstrip(".")
    labels = host.split(".")
    if labels[0] == "www" and len(labels) > 2:
        labels = labels[1:]
    key = ",".join(reversed(labels))
    if parts.port and parts.port != DEFAULT_PORTS.get(parts.scheme):
        key += f":{parts.port}"
    query = "&".join(sorted(parts.query.split("&"))) if parts.query else ""
    return f"{key}){parts.path or '/'}{'?' + query if query else ''}".lower()


def _timestamp(date: str) -> str:
    """WARC-Date -> the 14-digit CDX time.

    >>> _timestamp("2026-11-21T17:00:00.250000Z")
    '20261121170000'
    """
    return date.replace("-", "").replace(":", "").replace("T", "")[:14]


def cdxj_lines(warc: bytes, filename: str = WARC_NAME) -> list[str]:
    """The sorted CDXJ index of a WARC's response and revisit records."""
    lines = []
    records = ArchiveIterator(io.BytesIO(warc))
    for record in records:
        if record.rec_type not in ("response", "revisit") or record.http_headers is None:
            continue
        url = record.rec_headers.get_header("WARC-Target-URI")
        date = record.rec_headers.get_header("WARC-Date")
        mime = (record.http_headers.get_header("Content-Type") or "").split(";")[0]
        fields = {
            "url": url,
            # a revisit is indexed as pywb's cdx-indexer does: mime warc/revisit, its digest
            "mime": "warc/revisit" if record.rec_type == "revisit" else mime,
            "status": record.http_headers.get_statuscode(),
            "digest": record.rec_headers.get_header("WARC-Payload-Digest"),
            "filename": filename,
        }
        record.content_stream().read()  # to the record's end, so its length is known
        records.read_to_end()
        fields["offset"] = records.get_record_offset()
        fields["length"] = records.get_record_length()
        lines.append(f"{surt(url)} {_timestamp(date)} {json.dumps(fields)}")
    return sorted(lines)


def pages_jsonl(versions: list) -> bytes:
    """The page list: a header, then one line per archived version."""
    rows = [{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}]
    for version in versions:
        rows.append(
            {
                "id": version.id,
                "url": version.url,
                "ts": warc_date(version.registered_at),
                "title": version.meta.get("title") or version.url,
            }
        )
    return "".join(json.dumps(row) + "\n" for row in rows).encode("utf-8")


def _described(path: str, data: bytes) -> dict:
    return {
        "name": Path(path).name,
        "path": path,
        "hash": "sha256:" + hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }


def write_wacz(out, versions, title: str = "PageKeeper archive export") -> int:
    """Write a WACZ of ``versions`` (VersionRecords) to the binary stream ``out``; returns
    the WARC's record count. The WARC is built in memory: exports are one user's pages."""
    versions = list(versions)
    warc = io.BytesIO()
    count = export_versions(versions, warc, WARC_NAME, WarcOptions())
    files = {
        f"archive/{WARC_NAME}": warc.getvalue(),
        "indexes/index.cdxj": "".join(f"{line}\n" for line in cdxj_lines(warc.getvalue())).encode(),
        "pages/pages.jsonl": pages_jsonl(versions),
    }
    package = {
        "profile": "data-package",
        "wacz_version": "1.1.1",
        "title": title,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "software": f"PageKeeper/{__version__}",
        "resources": [_described(path, data) for path, data in files.items()],
    }
    files["datapackage.json"] = json.dumps(package, indent=2).encode("utf-8")
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as zipped:
        for path, data in files.items():
            zipped.writestr(path, data)
    return count
