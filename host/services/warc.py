"""WARC export and import of archived versions (warcio), for ReplayWeb.page and pywb.

Export writes, per version, a ``response`` record whose payload is the original
bytes exactly as registered, then one ``response`` record per stored resource of its
manifest (stylesheets, images, fonts, frames: their bytes as captured, so ReplayWeb.page
and pywb render the page complete; a resource already written by an earlier version of the
same export, same URL and bytes, is not written twice) (``WARC-Target-URI`` = the page's URL, ``WARC-Date`` =
the registration time, an HTTP/1.1 200 header block rebuilt from the stored
content type, charset and Last-Modified), followed by a ``metadata`` record
(``application/warc-fields``, ``WARC-Concurrent-To`` the response) whose one field
``pagekeeper`` holds PageKeeper's own fields as JSON:
registration ID, document key, title, version URL, similarity to the previous
version, and the document's tags and the version's note when it has them. A
``warcinfo`` record opens the file. Records are gzipped one by one
(WARC 1.1, annex D), which is what replay tools index.

An unchanged re-capture ("seen again", a version's revisit) is written as a WARC 1.1
``revisit`` record (section 6.7.2, profile identical-payload-digest: the same payload digest,
``WARC-Refers-To`` its version's response, the HTTP headers and no payload) when its version's
response is earlier in the same file; exported alone, it is a full ``response`` record.

Import reads any WARC (gzipped or not) and registers every HTML ``response``
record with status 200 as a version of its URL, dated by its ``WARC-Date``; with a
``put_blob`` it first stores every 200 response as a blob, and each page's manifest
names the ones it uses (its stylesheets, what they use, images, fonts, frames); the
other records are counted as skipped. A ``revisit`` record with the identical-payload-digest
profile whose digest names a response read before it registers that response's capture again
at the revisit's date (the registry then records it as "seen again"). A PageKeeper export imported into a
fresh archive gives the same URLs, times and original bytes, tags and notes.

>>> import io
>>> buf = io.BytesIO()
>>> w = WarcOptions().writer(buf)
>>> _ = write_version(w, VersionRecord("1", "http://a.example/", b"<p>hi", "2026-01-01T00:00:00Z"))
>>> [c.url for c, _ in read_captures(io.BytesIO(buf.getvalue()))]
['http://a.example/']
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import BinaryIO

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from engine import __version__
from engine.archive import labels
from engine.archive.model import Capture, iso
from engine.archive.resources import manifest_of
from engine.errors import InvalidInput, TooLarge
from engine.html.parse import decode_html
from engine.html.rewrite import css_urls, resource_urls
from host.daemon.security import strip_credentials
from host.services.singlefile import looks_like_singlefile, read_singlefile

HTML_TYPES = ("text/html", "application/xhtml+xml")
REVISIT_PROFILES = (  # identical payload digest: WARC 1.1 section 6.7.2, and WARC 1.0's name
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
    "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",
)


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
    resources: list = field(default_factory=list)  # stored manifest entries {url, type, blob}
    load: Callable | None = None  # blob hash -> bytes
    revisit_of: str | None = None  # the version whose content this capture shares


def payload_digest(body: bytes) -> str:
    """A payload's ``WARC-Payload-Digest`` as warcio writes it: SHA-1, base32.

    >>> payload_digest(b"")
    'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ'
    """
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")


@dataclass
class ImportSummary:
    """What an import did: registrations made and records skipped (with reasons)."""

    imported: int = 0
    skipped: int = 0
    resources: int = 0  # 200 responses kept as resource blobs
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
            "resources": self.resources,
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


def write_version(writer: WARCWriter, version: VersionRecord, refers=None) -> str:
    """A ``response`` record with the original bytes (a ``revisit`` record when ``refers``,
    ``(record ID, date)`` of its version's response, is given), then its ``metadata``
    record; the record ID of the first."""
    date = warc_date(version.registered_at)
    if refers is not None:
        response = _revisit_record(writer, version, date, *refers)
    else:
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
    return record_id


def _revisit_record(writer: WARCWriter, version: VersionRecord, date: str, target, when: str):
    """WARC 1.1 section 6.7.2: a revisit with the identical-payload-digest profile, naming
    the response it repeats; its block is the HTTP headers alone."""
    return writer.create_revisit_record(
        version.url,
        payload_digest(version.body),
        version.url,
        when,
        http_headers=http_headers(version),  # the original response's, as Heritrix writes them
        warc_headers_dict={"WARC-Date": date, "WARC-Refers-To": target},
    )


def write_resource(writer: WARCWriter, url: str, kind: str, body: bytes, date: str) -> None:
    """One resource of a version as its own ``response`` record (HTTP 200, its type)."""
    headers = StatusAndHeaders(
        "200 OK",
        [("Content-Type", kind or "application/octet-stream"), ("Content-Length", str(len(body)))],
        protocol="HTTP/1.1",
    )
    record = writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(body),
        length=len(body),
        http_headers=headers,
        warc_headers_dict={"WARC-Date": date},
    )
    writer.write_record(record)


def write_resources(
    writer: WARCWriter, version: VersionRecord, written: set[tuple[str, str]]
) -> int:
    """The version's stored resources not yet in this file; how many were written."""
    count, date = 0, warc_date(version.registered_at)
    for entry in version.resources:
        if (entry["url"], entry["blob"]) in written or version.load is None:
            continue
        written.add((entry["url"], entry["blob"]))
        write_resource(writer, entry["url"], entry["type"], version.load(entry["blob"]), date)
        count += 1
    return count


def export_versions(
    versions: Iterable[VersionRecord], out: BinaryIO, filename: str, options: WarcOptions
) -> int:
    """Write a whole WARC (warcinfo, then per version its page, resources and metadata);
    returns the record count."""
    writer = options.writer(out)
    write_info(writer, filename, "PageKeeper archive export")
    count, written, responses = 1, set[tuple[str, str]](), dict[str, tuple[str, str]]()
    for version in versions:
        refers = responses.get(version.revisit_of or "")
        record_id = write_version(writer, version, refers)
        if refers is None:
            responses[version.id] = (record_id, warc_date(version.registered_at))
            count += write_resources(writer, version, written)
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
    if record.rec_type == "revisit" and _profile(record) in REVISIT_PROFILES:
        return None
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
    for capture, when, _record_id in _read(stream, options, summary):
        yield capture, when


def pagekeeper_fields(record) -> tuple[str, dict] | None:
    """(the response's record ID, PageKeeper's fields) of a metadata record this module
    wrote (``pagekeeper: {json}`` in application/warc-fields), else None."""
    if record.rec_type != "metadata" or "warc-fields" not in (record.content_type or ""):
        return None
    target = record.rec_headers.get_header("WARC-Concurrent-To")
    for line in record.content_stream().read(1 << 20).decode("utf-8", "replace").splitlines():
        name, _, value = line.partition(":")
        if target and name.strip() == "pagekeeper":
            try:
                fields = json.loads(value)
            except ValueError:
                return None
            return (target, fields) if isinstance(fields, dict) else None
    return None


def _read(stream: BinaryIO, options: WarcOptions | None, summary, on_meta=None) -> Iterator:

    options = options or WarcOptions()
    summary = summary if summary is not None else ImportSummary()
    seen: dict[str, Capture] = {}  # payload digest -> the capture of that response
    try:
        for record in _warc_records(stream):
            reason = _skip_reason(record)
            if reason:
                summary.skip(reason)
                fields = pagekeeper_fields(record) if on_meta else None
                if fields:
                    on_meta(*fields)
                continue
            when = parse_time(record.rec_headers.get_header("WARC-Date"))
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            if record.rec_type == "revisit":
                again = _revisited(record, seen)
                if again is None:
                    summary.skip("revisit_of_unknown_payload")
                    continue
                yield again, when, record_id
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
            _remember(seen, record, body, capture)
            yield capture, when, record_id
    except ArchiveLoadFailed as exc:
        raise InvalidInput(f"not a WARC file: {exc}") from exc


def _profile(record) -> str:
    return (record.rec_headers.get_header("WARC-Profile") or "").strip()


def _remember(seen: dict, record, body: bytes, capture: Capture) -> None:
    """Keep a response's capture under its payload digests (the one it declares, and ours)."""
    declared = record.rec_headers.get_header("WARC-Payload-Digest")
    for digest in filter(None, (declared, payload_digest(body))):
        seen.setdefault(digest.strip(), capture)


def _revisited(record, seen: dict) -> Capture | None:
    """The capture an identical-payload-digest revisit repeats (its URL must be the same
    page's), or None when no response read before holds that payload."""
    found = seen.get((record.rec_headers.get_header("WARC-Payload-Digest") or "").strip())
    url = strip_credentials(record.rec_headers.get_header("WARC-Target-URI"))
    if found is None or found.url != url:
        return None
    return replace(found, resources=[])


def collect_resources(stream: BinaryIO, put_blob: Callable, options: WarcOptions) -> dict:
    """URL -> stored manifest entry of every 200 response of a WARC (the first capture of a
    URL), stored with ``put_blob``; stylesheets keep their text to follow what they use."""
    found: dict[str, dict] = {}
    try:
        for record in _warc_records(stream):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            url = record.rec_headers.get_header("WARC-Target-URI")
            if record.http_headers.get_statuscode() != "200" or url in found:
                continue
            body = record.content_stream().read(options.max_record_bytes + 1)
            if len(body) > options.max_record_bytes:
                continue  # too large to keep: the page lists it as not received
            mime = _content_type(record)[0]
            entry = {"url": url, "type": mime, "size": len(body), "status": "stored"}
            entry["blob"] = put_blob(body)
            if mime == "text/css":
                entry["css"] = body.decode("utf-8", "replace")
            found[url] = entry
    except ArchiveLoadFailed as exc:
        raise InvalidInput(f"not a WARC file: {exc}") from exc
    return found


def page_manifest(capture, found: dict) -> list[dict]:
    """The manifest of one imported page: what it uses that the WARC holds."""
    hint = f"text/html; charset={capture.charset}" if capture.charset else None
    html = decode_html(capture.html, hint).text
    queue = resource_urls(html, capture.url, frames=True)
    for url in queue:  # grows while stylesheets name more
        css = found.get(url, {}).get("css")
        queue.extend(u for u in css_urls(css, url) if u not in queue) if css else None
    return [{k: v for k, v in found[u].items() if k != "css"} for u in queue if u in found]


def import_captures(
    stream: BinaryIO,
    register: Callable,
    options: WarcOptions | None = None,
    put_blob: Callable | None = None,
    label: Callable | None = None,
) -> ImportSummary:
    """Register every capture of a WARC with ``register(capture, when) -> registration``;
    with ``put_blob`` (and a seekable stream) the pages come with their resources;
    ``label(reg_id, fields)`` gets the PageKeeper fields (tags, note) of each registered
    response from the metadata record that follows it."""
    options = options or WarcOptions()
    head = stream.read(4)
    stream.seek(0)
    if head == b"PK\x03\x04":  # a WACZ: the WARCs under archive/
        return _import_wacz(stream, register, options, put_blob)
    if looks_like_singlefile(stream.read(64)):
        return _import_singlefile(stream, register, options)
    stream.seek(0)
    summary, registered = ImportSummary(), dict[str, str]()
    found = collect_resources(stream, put_blob, options) if put_blob else {}
    stream.seek(0)
    summary.resources = len(found)

    def on_meta(record_id: str, fields: dict) -> None:
        if label is not None and record_id in registered:
            label(registered[record_id], fields)

    for capture, when, record_id in _read(stream, options, summary, on_meta):
        if found:
            capture.resources = page_manifest(capture, found)
        reg = register(capture, when)
        reg_id = getattr(reg, "id", None) or (reg.get("id") if isinstance(reg, dict) else None)
        summary.imported += 1
        if reg_id:
            summary.ids.append(reg_id)
            registered[record_id] = reg_id
    return summary


def version_record(store, reg_id: str) -> VersionRecord:
    """A stored version as it goes into a WARC: the original bytes and the record's facts."""

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
            **labels.exported(store, reg_id, doc["key"]),
        },
        resources=[e for e in manifest_of(store, doc) if e.get("blob")],
        load=store.get_blob,
        revisit_of=doc.get("revisit_of"),
    )


def _import_wacz(
    stream: BinaryIO, register: Callable, options: WarcOptions, put_blob
) -> ImportSummary:
    """Import each WARC of a WACZ (``archive/*.warc[.gz]``) and add up the summaries."""
    total = ImportSummary()
    try:
        zipped = zipfile.ZipFile(stream)
    except zipfile.BadZipFile as exc:
        raise InvalidInput(f"not a WACZ file: {exc}") from exc
    names = [n for n in zipped.namelist() if n.startswith("archive/") and ".warc" in n]
    if not names:
        raise InvalidInput("the WACZ holds no WARC under archive/")
    for name in names:
        with zipped.open(name) as member:
            data = member.read(options.max_import_bytes + 1)
        if len(data) > options.max_import_bytes:
            raise TooLarge(f"{name} in the WACZ is larger than {options.max_import_bytes} bytes")
        part = import_captures(io.BytesIO(data), register, options, put_blob)
        total.imported += part.imported
        total.resources += part.resources
        total.ids += part.ids
        for reason, count in part.reasons.items():
            total.skipped += count
            total.reasons[reason] = total.reasons.get(reason, 0) + count
    return total


def _import_singlefile(stream: BinaryIO, register: Callable, options: WarcOptions) -> ImportSummary:
    """Register one SingleFile page (host/services/singlefile.py); its data: URIs become blobs."""
    stream.seek(0)
    data = stream.read(options.max_import_bytes + 1)
    if len(data) > options.max_import_bytes:
        raise TooLarge(f"the file is larger than {options.max_import_bytes} bytes")
    capture, when = read_singlefile(data)
    summary = ImportSummary(resources=len(capture.resources))
    reg = register(capture, when)
    summary.imported = 1
    summary.ids.append(getattr(reg, "id", None) or reg.get("id"))
    return summary
