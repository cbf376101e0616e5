"""``pagekeeper archive delete|undo|reclaim|stats``: the protocol's handlers, run through
the daemon when one runs (it is the archive's only writer) and in process otherwise, so
both paths answer the same (host/handlers/collection.py).

>>> from host.cli.entry import main
>>> main(["archive", "delete", "https://example.com/", "--home", "/tmp/pk-doc", "--json"])  # doctest: +SKIP
{"deleted": {"documents": 1, "versions": 2}, "freed_bytes": 48213}
"""

from __future__ import annotations

import functools
from pathlib import Path

from engine.archive.labels import parse_changes
from engine.errors import InvalidInput
from host.cli.backend import send
from host.cli.command import command
from host.cli.shown import local_time, size
from host.daemon.client import own_command


def call(ctx, kind: str, params: dict, write: bool = True, timeout: float = 120.0):
    """One protocol request through the command's backend: the running daemon, else the
    same handler in this process (host/cli/backend.py)."""
    return send(ctx, kind, params, timeout=timeout, write=write)


def run_delete(args, ctx) -> dict:
    args.render = functools.partial(render_delete, home=ctx.home)  # the undo names this home
    return call(ctx, "archive_delete", {"ref": args.ref, "undo": args.undo})


def render_delete(result: dict, home: Path | None = None) -> str:
    """What went, and how to bring it back (a command to run as printed, for this home) or
    the space it freed.

    >>> print(render_delete({"deleted": {"versions": 2, "documents": 1}, "freed_bytes": 5800}))
    deleted 2 version(s), 1 document(s); freed 5.7 KB
    """
    gone = result["deleted"]
    line = f"deleted {gone['versions']} version(s), {gone['documents']} document(s)"
    if result.get("undo"):
        undo = f"{own_command(home)} archive undo {result['undo']}"
        return f"{line}; undo until {local_time(result['expires_at'])}: {undo}"
    return f"{line}; freed {size(result['freed_bytes'])}"


def run_undo(args, ctx) -> dict:
    return call(ctx, "archive_undo", {"undo": args.undo_id})


def render_undo(result: dict) -> str:
    back = result["restored"]
    return f"restored {back['versions']} version(s), {back['documents']} document(s)"


def run_reclaim(args, ctx) -> dict:
    return call(ctx, "archive_reclaim", {})


def render_reclaim(result: dict) -> str:
    """What ``reclaim`` freed, in units, and from what.

    >>> print(render_reclaim({"expired": 1, "blobs": 3, "freed_bytes": 5800}))
    freed 5.7 KB: 1 expired deletion(s), 3 stored file(s)
    """
    return (
        f"freed {size(result['freed_bytes'])}: {result['expired']} expired deletion(s), "
        f"{result['blobs']} stored file(s)"
    )


def run_stats(args, ctx) -> dict:
    return call(ctx, "archive_stats", {}, write=False)


def render_stats(result: dict) -> str:
    """The figures in one line: the pages and their resources as captured, then as kept once
    (like with like: the same bytes before and after deduplication), then the files on disk,
    which also hold each version's rewritten copy and extracts, and are compressed: so they may
    be fewer bytes than those kept after dedup, and the line says why.

    >>> print(render_stats({"documents": 2, "versions": 3, "original_bytes": 56000,
    ...     "dedup_saved_bytes": 20000, "resource_bytes": 8000, "resource_unique_bytes": 5000,
    ...     "blob_bytes": 30000, "storage_bytes": 90000, "archive_bytes": 200000}))
    2 documents, 3 versions: 62 KB captured, 40 KB after dedup; 29 KB on disk, compressed, with copies and extracts (88 KB with the records; 195 KB in all, with the full-text index)

    An archive with no version reads as empty, with what it still takes on disk, if anything
    (records of deletions that can be undone, tags, alerts; the full-text index):

    >>> print(render_stats({"documents": 0, "versions": 0, "original_bytes": 0,
    ...     "blob_bytes": 0, "storage_bytes": 0, "archive_bytes": 0}))
    empty archive: no pages archived yet
    >>> print(render_stats({"documents": 0, "versions": 0, "original_bytes": 0,
    ...     "blob_bytes": 0, "storage_bytes": 2800, "index_bytes": 200000, "archive_bytes": 202800}))
    empty archive: no pages archived; its records and full-text index take 198 KB on disk
    """
    if not result["versions"]:
        return _empty_stats(result)
    pages = result["original_bytes"]
    kept_pages = pages - result.get("dedup_saved_bytes", 0)
    captured = pages + result.get("resource_bytes", 0)
    kept = kept_pages + result.get("resource_unique_bytes", 0)
    return (
        f"{result['documents']} documents, {result['versions']} versions: "
        f"{size(captured)} captured, {size(kept)} after dedup; "
        f"{size(result['blob_bytes'])} on disk, compressed, with copies and extracts "
        f"({size(result['storage_bytes'])} with the records; "
        f"{size(result['archive_bytes'])} in all, with the full-text index)"
    )


def _empty_stats(result: dict) -> str:
    """No version: what the archive still takes, by what takes it (the records are the store's
    files, their bytes ``storage_bytes``: no blob is left with no version)."""
    held = [name for name, field in _HELD if result.get(field)]
    if not held:
        return "empty archive: no pages archived yet"
    takes = "take" if len(held) > 1 else "takes"
    total = size(result["archive_bytes"])
    return f"empty archive: no pages archived; its {' and '.join(held)} {takes} {total} on disk"


# what an empty archive may still hold, by its field
_HELD = (
    ("records", "storage_bytes"),
    ("full-text index", "index_bytes"),
    ("captures still receiving resources", "pending_bytes"),
)


def run_tag(args, ctx) -> dict:
    if not args.changes:
        raise InvalidInput("give tags to add (+tag) or remove (-tag)")
    added, removed = parse_changes(args.changes)
    return call(ctx, "archive_tag", {"ref": args.ref, "add": added, "remove": removed})


def render_tag(result: dict) -> str:
    return f"{result['url']}: {', '.join(result['tags']) or 'no tags'}"


def run_note(args, ctx) -> dict:
    return call(ctx, "archive_note", {"ref": args.ref, "text": args.text})


def render_note(result: dict) -> str:
    return f"{result['id']}: {result['note'] or 'note removed'}"


def run_tags(args, ctx) -> dict:
    return call(ctx, "archive_tags", {}, write=False)


def render_tags(result: dict) -> str:
    return "\n".join(f"{t['documents']:>5}  {t['tag']}" for t in result["tags"]) or "no tags"


def run_alerts(args, ctx) -> dict:
    changes = {}
    if args.default:
        changes["default"] = args.default
    for flag_name, on in (("on", True), ("off", False), ("follow", None)):
        if getattr(args, flag_name):
            changes |= {"ref": getattr(args, flag_name), "on": on}
    if changes:
        return call(ctx, "alerts_set", changes)
    return call(ctx, "alerts_list", {"since": 0} if args.all else {}, write=False)


def render_alerts(result: dict) -> str:
    """The alerts one a line; none: since when (the viewer's last visit), or none at all.

    >>> render_alerts({"seen_at": None, "default": "tagged", "alerts": []})
    'no changes recorded yet (alerts by default: tagged)'
    """
    if "alerts" not in result:
        return (
            f"alerts: {'on' if result.get('alerts') else 'off'} for {result['key']} (default {result['default']})"
            if "key" in result
            else f"alerts by default: {result['default']}"
        )
    if not result["alerts"]:
        since = f"since {local_time(result['seen_at'])}" if result["seen_at"] else "recorded yet"
        return f"no changes {since} (alerts by default: {result['default']})"
    return "\n".join(
        f"{local_time(a['at'])}  {a['kind']:<8} {a['url']}  {a['title'][:50]}"
        for a in result["alerts"]
    )


def _parse_optional(self, arg_string):
    """``archive tag URL +a -b``: a ``-word`` that is not one of the command's options is a
    tag to remove, not an unknown option (``--json``, ``--home`` still work anywhere)."""
    if (
        arg_string[:1] == "-"
        and arg_string[:2] != "--"
        and arg_string not in self._option_string_actions
    ):
        return None
    return super(type(self), self)._parse_optional(arg_string)


def _labels_parsers(cmds, common) -> None:
    held = cmds._parser_class  # the CLI's typed-error parser; argparse has no per-parser hook
    cmds._parser_class = type("ChangesParser", (held,), {"_parse_optional": _parse_optional})
    try:
        tag = command(
            cmds, "tag", run_tag, common, "add (+tag) and remove (-tag) a document's tags"
        )
    finally:
        cmds._parser_class = held
    tag.add_argument("ref", metavar="ID|URL", help="a URL, or an ID or version URL of any version")
    tag.add_argument(
        "changes", nargs="*", metavar="+TAG|-TAG", help="+tag adds a tag, -tag removes one"
    )
    tag.set_defaults(render=render_tag)
    note = command(cmds, "note", run_note, common, 'set a version\'s note ("" removes it)')
    note.add_argument(
        "ref", metavar="ID|URL", help="an ID or version URL; a URL: its newest version"
    )
    note.add_argument("text", help='the note ("" removes it)')
    note.set_defaults(render=render_note)
    tags = command(cmds, "tags", run_tags, common, "every tag in use, with its document count")
    tags.set_defaults(render=render_tags)
    alerts = command(cmds, "alerts", run_alerts, common, "pages that changed or went away lately")
    alerts.add_argument(
        "--all", action="store_true", help="every alert kept, not only since the last visit"
    )
    alerts.add_argument(
        "--default", choices=("tagged", "all", "off"), help="which pages alert by default"
    )
    alerts.add_argument("--on", metavar="ID|URL", help="alert on this page's changes")
    alerts.add_argument("--off", metavar="ID|URL", help="never alert on this page")
    alerts.add_argument("--follow", metavar="ID|URL", help="this page follows the default again")
    alerts.set_defaults(render=render_alerts)


def add_parsers(cmds, common) -> None:
    """Add delete, undo, reclaim, stats, tag, note and tags under ``archive``."""
    _labels_parsers(cmds, common)
    delete = command(
        cmds, "delete", run_delete, common, "delete a version (ID) or a document (URL)"
    )
    delete.add_argument(
        "ref",
        metavar="ID|URL",
        help="registration ID, version URL, or a URL (its whole document); deleting a version "
        "deletes its 'seen again' re-captures with it, deleting one of those only that capture",
    )
    delete.add_argument(
        "--undo",
        action="store_true",
        help="keep it undoable for 10 minutes (pagekeeper archive undo); space is freed after",
    )
    delete.set_defaults(render=render_delete)
    undo = command(cmds, "undo", run_undo, common, "undo a deletion made with --undo")
    undo.add_argument("undo_id", metavar="UNDO", help="the undo number the deletion printed")
    undo.set_defaults(render=render_undo)
    reclaim = command(
        cmds, "reclaim", run_reclaim, common, "free the space of expired deletions now"
    )
    reclaim.set_defaults(render=render_reclaim)
    stats = command(cmds, "stats", run_stats, common, "documents, versions and disk space")
    stats.set_defaults(render=render_stats)
