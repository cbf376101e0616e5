"""``pagekeeper archive export | import``: the archive to and from WARC files (warcio).

Export reads the store read-only (it never blocks the daemon) and streams every version of
the matching documents into a gzipped WARC, written to ``FILE.part`` and renamed when complete,
so a failed export never leaves a half file under the final name. There is no version cap:
the viewer's download goes through one protocol message and is capped, this is not.
Import registers each HTML response of a WARC at its capture time: the protocol's
``import_warc`` through the command's backend (the daemon when one runs, else the same
handler in this process).

>>> default_name(3, "20261121-120000")
'pagekeeper-20261121-120000-3.warc.gz'
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from pathlib import Path

from engine.archive import provider
from engine.errors import InvalidInput, StorageError
from host.cli.backend import reading, send
from host.cli.command import command
from host.cli.files import output_path, read_input
from host.home import atomic_file
from host.services.wacz import write_wacz
from host.services.warc import WarcOptions, export_versions, version_record

IMPORT_TIMEOUT = 600.0  # seconds the daemon may take to register a large WARC


def add_parsers(cmds, common) -> None:
    """Add ``archive export`` and ``archive import``."""
    out = command(cmds, "export", run_export, common, "write versions to a WARC (or WACZ) file")
    out.add_argument("pattern", nargs="?", default="*", help="URL wildcard (* ?) of documents")
    out.add_argument("--text", metavar="QUERY", help="only documents whose text holds QUERY")
    out.add_argument("--case-sensitive", action="store_true", help="the pattern's letters as typed")
    out.add_argument("--id", action="append", metavar="ID", help="one version (repeatable)")
    out.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="default: pagekeeper-<time>-<n>.warc.gz; "
        "a name ending in .wacz writes WACZ (WARC + CDXJ index + pages.jsonl + datapackage.json)",
    )
    out.set_defaults(render=render_export)
    into = command(
        cmds, "import", run_import, common, "register the pages of a WARC, WACZ or SingleFile page"
    )
    into.add_argument(
        "file", metavar="FILE", help="a .warc/.warc.gz, .wacz, or SingleFile .html (detected)"
    )
    into.set_defaults(render=render_import)


def default_name(count: int, stamp: str | None = None) -> str:
    """The export's file name when none is given."""
    stamp = stamp or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"pagekeeper-{stamp}-{count}.warc.gz"


def export_ids(store, args) -> list[str]:
    """Versions to export: the ``--id`` ones, else every capture of each matching document
    (each version followed by its revisits, which then go in as revisit records)."""
    if args.id:
        return [provider.resolve_id(store, ref) for ref in args.id]
    rows = provider.search(store, args.pattern, args.case_sensitive, "url", args.text)
    return [reg_id for row in rows for reg_id in store.captures_of_key(row["key"])]


def run_export(args, ctx) -> dict:
    chosen = output_path(args.output) if args.output else None
    with reading(ctx.home) as store:
        ids = export_ids(store, args)
        if not ids:
            raise InvalidInput("no archived version matches; nothing to export")
        path = chosen or Path(default_name(len(ids))).absolute()
        records = _write_warc(path, (version_record(store, i) for i in ids))
    return {
        "file": str(path),
        "versions": len(ids),
        "records": records,
        "bytes": path.stat().st_size,
    }


def _write_warc(path: Path, versions) -> int:
    """Stream the WARC (a WACZ when the name ends in ``.wacz``: host/services/wacz.py)
    under a temporary name, then rename: complete or absent."""
    try:
        with atomic_file(path) as out:
            if path.name.lower().endswith(".wacz"):
                return write_wacz(out, versions)
            return export_versions(versions, out, path.name, WarcOptions())
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def run_import(args, ctx) -> dict:
    data = read_input(args.file, WarcOptions().max_import_bytes)  # a folder: invalid_input
    params = {"filename": Path(args.file).name, "content_b64": base64.b64encode(data).decode()}
    return send(ctx, "import_warc", params, timeout=IMPORT_TIMEOUT)


def render_export(result: dict) -> str:
    return f"wrote {result['versions']} versions ({result['bytes']:,} bytes) to {result['file']}"


def render_import(result: dict) -> str:
    reasons = ", ".join(f"{k}: {v}" for k, v in sorted(result["reasons"].items()))
    skipped = f", skipped {result['skipped']} ({reasons})" if result["skipped"] else ""
    return f"imported {result['imported']} captures from {result['filename']}{skipped}"
