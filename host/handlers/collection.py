"""Keeping the archive tidy: archive_delete, archive_undo, archive_trash, archive_reclaim.

Thin, like the other handler modules: parameters in, one engine call
(engine/archive/trash.py) on the store thread, its value out. The CLI calls these
same handlers, through the daemon when one runs and directly otherwise
(host/commands/collection.py), so there is one implementation either way.

>>> sorted(HANDLERS)
['archive_delete', 'archive_reclaim', 'archive_trash', 'archive_undo']
"""

from __future__ import annotations

from host.handlers import flag, text

REF_MAX = 8192


def archive_delete(params: dict, app) -> dict:
    """Delete a version (ID, version URL) or a whole document (URL).

    ``undo`` (default true) keeps it undoable for 10 minutes (``archive_undo``) and frees
    its space after; ``undo: false`` frees it now. ``{"deleted": {"documents",
    "versions"}, "freed_bytes", "undo"?, "expires_at"?}``
    """
    from engine.archive import trash

    ref = text(params, "ref", max_length=REF_MAX)
    options = trash.DeleteOptions(document=flag(params, "document"))
    if flag(params, "undo", True):
        return trash.delete(app.store, ref, options)
    return trash.delete_now(app.store, ref, options)


def archive_undo(params: dict, app) -> dict:
    """Undo a deletion by the ``undo`` its reply gave: ``{"restored": {...}}``."""
    from engine.archive import trash

    return trash.restore(app.store, text(params, "undo", max_length=40))


def archive_trash(params: dict, app) -> dict:
    """Deletions that can still be undone: ``{"pending": [{"undo", "url", "title",
    "deleted_at", "expires_at", "deleted"}]}``, newest first."""
    from engine.archive import trash

    return {"pending": trash.pending(app.store)}


def archive_reclaim(params: dict, app) -> dict:
    """Expire finished undo windows and remove blob files nothing references:
    ``{"expired", "blobs", "freed_bytes"}`` (the daemon also does this every minute)."""
    from engine.archive import trash

    return trash.purge(app.store)


HANDLERS = {
    "archive_delete": archive_delete,
    "archive_undo": archive_undo,
    "archive_trash": archive_trash,
    "archive_reclaim": archive_reclaim,
}
