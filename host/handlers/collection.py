"""Keeping the archive tidy: archive_delete, archive_undo, archive_trash, archive_reclaim;
organizing it: archive_tag, archive_note, archive_tags; alerts_list, alerts_seen, alerts_set.

Thin, like the other handler modules: parameters in, one engine call
(engine/archive/trash.py) on the store thread, its value out. The CLI calls these
same handlers, through the daemon when one runs and directly otherwise
(host/cli/commands/collection.py), so there is one implementation either way.

>>> sorted(HANDLERS)
['alerts_list', 'alerts_seen', 'alerts_set', 'archive_delete', 'archive_note', 'archive_reclaim', 'archive_tag', 'archive_tags', 'archive_trash', 'archive_undo']
"""

from __future__ import annotations

from engine.archive import alerts, labels, trash
from engine.archive.model import iso
from engine.errors import InvalidInput
from host.handlers import flag, text
from host.services import fulltext

REF_MAX = 8192


def archive_delete(params: dict, app) -> dict:
    """Delete a version (ID, version URL) or a whole document (URL).

    ``undo`` (default true) keeps it undoable for 10 minutes (``archive_undo``) and frees
    its space after; ``undo: false`` frees it now. ``{"deleted": {"documents",
    "versions"}, "freed_bytes", "undo"?, "expires_at"?}``
    """

    ref = text(params, "ref", max_length=REF_MAX)
    options = trash.DeleteOptions(document=flag(params, "document"))
    ids = trash.targets(app.store, ref, options.document)  # typed errors before any change
    fulltext.index_of(app.store.home).forget(app.store, ids)  # while their text is still stored
    if flag(params, "undo", True):
        return trash.delete(app.store, ref, options)
    return trash.delete_now(app.store, ref, options)


def archive_undo(params: dict, app) -> dict:
    """Undo a deletion by the ``undo`` its reply gave: ``{"restored": {...}}``."""

    return trash.restore(app.store, text(params, "undo", max_length=40))


def archive_trash(params: dict, app) -> dict:
    """Deletions that can still be undone: ``{"pending": [{"undo", "url", "title",
    "deleted_at", "expires_at", "deleted"}]}``, newest first."""

    return {"pending": trash.pending(app.store)}


def _strings(params: dict, name: str) -> list[str]:
    value = params.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"parameter {name!r} must be a list of strings")
    return value


def archive_tag(params: dict, app) -> dict:
    """Add and remove tags of a document (``ref``: a URL, an ID or a version URL of any of
    its versions): ``{"key", "url", "tags"}``. A tag with control characters, empty, or
    over 64 characters: ``invalid_input``; nothing archived under ``ref``: ``not_found``."""

    ids = trash.targets(app.store, text(params, "ref", max_length=REF_MAX), document=True)
    added = [labels.clean_tag(t) for t in _strings(params, "add")]
    removed = [labels.clean_tag(t) for t in _strings(params, "remove")]
    key = app.store.raw("versions")[ids[0]]["key"]
    tags = labels.set_tags(app.store, key, added, removed)
    return {"key": key, "url": app.store.raw("versions")[ids[-1]]["url"], "tags": tags}


def archive_note(params: dict, app) -> dict:
    """Set the note of a version (``ref``: its ID or version URL; a URL means the newest
    version); empty ``text`` removes it: ``{"id", "url", "note"}``."""

    ids = trash.targets(app.store, text(params, "ref", max_length=REF_MAX))
    reg_id = max(ids, key=app.store.capture_order)
    note = labels.set_note(app.store, reg_id, text(params, "text", max_length=labels.NOTE_MAX * 4))
    return {"id": reg_id, "url": app.store.version(reg_id)["url"], "note": note}


def archive_tags(params: dict, app) -> dict:
    """Every tag in use with its document count: ``{"tags": [{"tag", "documents"}]}``."""

    return {"tags": labels.all_tags(app.store)}


def alerts_list(params: dict, app) -> dict:
    """Changes and disappearances since the viewer's last visit (or since ``since``, POSIX
    seconds): ``{"seen_at", "default", "alerts": [{key, id, url, title, kind, at, detail}]}``."""

    since = params.get("since")
    if since is not None and (isinstance(since, bool) or not isinstance(since, int | float)):
        raise InvalidInput("parameter 'since' must be a number (POSIX seconds)")
    return alerts.since_last_visit(app.store, since)


def alerts_seen(params: dict, app) -> dict:
    """Mark the alerts seen (the viewer was visited): ``{"seen_at"}``."""

    return {"seen_at": iso(alerts.mark_seen(app.store))}


def alerts_set(params: dict, app) -> dict:
    """Who is alerted: ``default`` (tagged|all|off) for the archive, and/or ``ref`` with ``on``
    (true, false, or null: follow the default) for one document."""

    if "default" in params:
        alerts.set_default(app.store, text(params, "default", max_length=16))
    if "ref" in params:
        on = params.get("on")
        if on is not None and not isinstance(on, bool):
            raise InvalidInput("parameter 'on' must be true, false or null")
        ids = trash.targets(app.store, text(params, "ref", max_length=REF_MAX), document=True)
        key = app.store.raw("versions")[ids[0]]["key"]
        alerts.set_document(app.store, key, on)
        return {
            "key": key,
            "alerts": alerts.wanted(app.store, key),
            "default": alerts.default_mode(app.store),
        }
    return {"default": alerts.default_mode(app.store)}


def archive_reclaim(params: dict, app) -> dict:
    """Expire finished undo windows and remove blob files nothing references:
    ``{"expired", "blobs", "freed_bytes"}`` (the daemon also does this every minute); the
    full-text index then drops what deleted versions left in its file."""

    done = trash.purge(app.store)
    index = fulltext.index_of(app.store.home)
    index.delete_dead(index.collect_dead())
    index.purge()
    return done


HANDLERS = {
    "archive_delete": archive_delete,
    "archive_undo": archive_undo,
    "archive_trash": archive_trash,
    "archive_tag": archive_tag,
    "archive_note": archive_note,
    "archive_tags": archive_tags,
    "alerts_list": alerts_list,
    "alerts_seen": alerts_seen,
    "alerts_set": alerts_set,
    "archive_reclaim": archive_reclaim,
}
