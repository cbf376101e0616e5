"""WARC export and import of archived versions (warcio), for ReplayWeb.page and pywb.

Export writes, per version, a ``response`` record whose payload is the original
bytes exactly as registered (``WARC-Target-URI`` = the page's URL, ``WARC-Date`` =
the registration time, an HTTP/1.1 200 header block rebuilt from the stored
content type, charset and Last-Modified), followed by a ``metadata`` record
(``application/warc-fields``, ``WARC-Concurrent-To`` the response) whose one field
``pagekeeper`` holds PageKeeper's own fields as JSON:
registration ID, document key, title, version URL, similarity to the previous
version. A ``warcinfo`` record opens the file. Records are gzipped one by one
(WARC 1.1, annex D), which is what replay tools index.

Import reads any WARC (gzipped or not) and registers every HTML ``response``
record with status 200 as a version of its URL, dated by its ``WARC-Date``;
everything else is counted as skipped. A PageKeeper export imported into a
fresh archive gives the same URLs, times and original bytes.

>>> import io
>>> buf = io.BytesIO()
>>> w = WarcOptions().writer(buf)
>>> write_version(w, VersionRecord("1", "http://a.example/", b"<p>hi", "2026-01-01T00:00:00Z"))
>>> [c.url for c, _ in read_captures(io.BytesIO(buf.getvalue()))]
['http://a.example/']
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from engine import __version__
from engine.errors import InvalidInput, TooLarge

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class WarcOptions:
    """How to write: gzip per record (replay tools expect it) and a size cap for imports."""

    gzip: bool = True
    max_import_bytes: int = 512 * 1024 * 1024
    max_record_bytes: int = 50 * 1024 * 1024

    def writer(self, out: BinaryIO) -> WARCWriter:
        return WARCWriter(out, gzip=self.gzip, warc_version="WARC/1.1")


@dataclass
class VersionRecord:
    """One archived version as it goes into a WARC (the original bytes, never the rewritten)."""

    id: str
    url: str
    body: bytes
    registered_at: str
    content_type: str = "text/html"
    charset: str | None = None
    last_modified: str | None = None
    meta: dict = field(default_factory=dict)


@dataclass
class ImportSummary:
    """What an import did: registrations made and records skipped (with reasons)."""

    imported: int = 0
    skipped: int = 0
    ids: list[str] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped += 1
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    def to_dict(self) -> dict:
        return {
            "imported": self.imported,
            "skipped": self.skipped,
            "ids": self.ids,
            "reasons": self.reasons,
        }


def warc_date(iso_text: str) -> str:
    """ISO time as WARC-Date (UTC, seconds; microseconds when present).

    >>> warc_date("2026-11-21T17:00:00Z")
    '2026-11-21T17:00:00Z'
    >>> warc_date("2026-11-21T17:00:00.250000+00:00")
    '2026-11-21T17:00:00.250000Z'
    """
    when = parse_time(iso_text)
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if when.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    return when.strftime(fmt)


def parse_time(text: str) -> datetime:
    """An ISO-8601 / WARC-Date string as an aware UTC datetime.

    >>> parse_time("2020-01-02T03:04:05Z").isoformat()
    '2020-01-02T03:04:05+00:00'
    """
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (AttributeError, ValueError) as exc:
        raise InvalidInput(f"not a date: {text!r}") from exc
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def http_headers(version: VersionRecord) -> StatusAndHeaders:
    """The HTTP/1.1 200 header block replay tools need, rebuilt from stored fields."""
    kind = version.content_type or "application/octet-stream"
    if version.charset and "charset=" not in kind:
        kind = f"{kind}; charset={version.charset}"
    headers = [("Content-Type", kind), ("Content-Length", str(len(version.body)))]
    if version.last_modified:
        headers.append(("Last-Modified", version.last_modified))
    return StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")


def write_info(writer: WARCWriter, filename: str, description: str) -> None:
    """The opening ``warcinfo`` record."""
    info = {
        "software": f"PageKeeper/{__version__} (warcio)",
        "format": "WARC File Format 1.1",
        "description": description,
    }
    writer.write_record(writer.create_warcinfo_record(filename, info))


def write_version(writer: WARCWriter, version: VersionRecord) -> None:
    """A ``response`` record with the original bytes, then its ``metadata`` record."""
    date = warc_date(version.registered_at)
    response = writer.create_warc_record(
        version.url,
        "response",
        payload=io.BytesIO(version.body),
        length=len(version.body),
        http_headers=http_headers(version),
        warc_headers_dict={"WARC-Date": date},
    )
    writer.write_record(response)
    # WARC 1.1 section 6.6: metadata as application/warc-fields, one field here holding
    # PageKeeper's fields as one line of JSON. pywb and cdxj-indexer skip warc-fields
    # metadata; with application/json it was indexed under the page's URL and time, and
    # pywb replayed this record instead of the page.
    meta = json.dumps({"id": version.id, **version.meta}, ensure_ascii=False)
    record_id = response.rec_headers.get_header("WARC-Record-ID")
    metadata = writer.create_warc_record(
        version.url,
        "metadata",
        payload=io.BytesIO(f"pagekeeper: {meta}\r\n".encode()),
        warc_content_type="application/warc-fields",
        warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": record_id},
    )
    writer.write_record(metadata)


def export_versions(
    versions: Iterable[VersionRecord], out: BinaryIO, filename: str, options: WarcOptions
) -> int:
    """Write a whole WARC (warcinfo + 2 records per version); returns the record count."""
    writer = options.writer(out)
    write_info(writer, filename, "PageKeeper archive export")
    count = 1
    for version in versions:
        write_version(writer, version)
        count += 2
    return count


def _content_type(record) -> tuple[str, str | None]:
    """(mime type, charset) of a response record's HTTP Content-Type."""
    raw = record.http_headers.get_header("Content-Type") or ""
    mime, _, rest = raw.partition(";")
    charset = None
    for part in rest.split(";"):
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"' ")
    return mime.strip().lower(), charset


def _skip_reason(record) -> str | None:
    """Why a record does not become a version, or None when it does."""
    if record.rec_type != "response":
        return record.rec_type or "unknown"
    if record.http_headers is None:
        return "no_http_headers"
    status = record.http_headers.get_statuscode()
    if status != "200":
        return f"status_{status}"
    if _content_type(record)[0] not in HTML_TYPES:
        return "not_html"
    return None


def _warc_records(stream: BinaryIO) -> Iterator:
    """The records of a WARC; anything else (ARC, text, nothing at all) is InvalidInput."""
    seen = False
    for record in ArchiveIterator(stream, check_digests=False):
        if record.format != "warc":
            raise InvalidInput(f"not a WARC file (read a {record.format} record)")
        seen = True
        yield record
    if not seen:
        raise InvalidInput("the file holds no WARC records")


def read_captures(stream: BinaryIO, options: WarcOptions | None = None, summary=None) -> Iterator:
    """Yield ``(Capture, registered_at)`` for each HTML 200 response in a WARC stream.

    Malformed input raises InvalidInput; records above the cap raise TooLarge.
    """
    from engine.archive.model import Capture
    from host.daemon.security import strip_credentials

    options = options or WarcOptions()
    summary = summary if summary is not None else ImportSummary()
    try:
        for record in _warc_records(stream):
            reason = _skip_reason(record)
            if reason:
                summary.skip(reason)
                continue
            body = record.content_stream().read(options.max_record_bytes + 1)
            if len(body) > options.max_record_bytes:
                raise TooLarge(f"a WARC record is larger than {options.max_record_bytes} bytes")
            mime, charset = _content_type(record)
            capture = Capture(
                url=strip_credentials(record.rec_headers.get_header("WARC-Target-URI")),
                html=body,
                content_type=mime,
                charset=charset,
                last_modified=record.http_headers.get_header("Last-Modified"),
                source="file",
            )
            yield capture, parse_time(record.rec_headers.get_header("WARC-Date"))
    except ArchiveLoadFailed as exc:
        raise InvalidInput(f"not a WARC file: {exc}") from exc


def import_captures(
    stream: BinaryIO, register: Callable, options: WarcOptions | None = None
) -> ImportSummary:
    """Register every capture of a WARC with ``register(capture, when) -> registration``."""
    summary = ImportSummary()
    for capture, when in read_captures(stream, options, summary):
        reg = register(capture, when)
        reg_id = getattr(reg, "id", None) or (reg.get("id") if isinstance(reg, dict) else None)
        summary.imported += 1
        if reg_id:
            summary.ids.append(reg_id)
    return summary


def version_record(store, reg_id: str) -> VersionRecord:
    """A stored version as it goes into a WARC: the original bytes and the record's facts."""
    from engine.archive.model import iso

    doc = store.version(reg_id)
    return VersionRecord(
        id=reg_id,
        url=doc["url"],
        body=store.get_blob(doc["orig"]),
        registered_at=iso(doc["ts"]),
        content_type=doc.get("content_type") or "text/html",
        charset=doc.get("charset"),
        last_modified=doc.get("last_modified"),
        meta={
            "key": doc["key"],
            "title": doc.get("title") or "",
            "final_url": doc.get("final_url"),
            "similarity_to_previous": doc.get("prev_similarity"),
        },
    )
