"""The suggester's learned state and warm index cache on disk, for the CLI.

The daemon keeps its learned state in the archive store (host/services/navigation.py:
every suggestion taken or rejected on the error page is saved there at once).
The one-shot CLI reads that state read-only, so ``pagekeeper suggest`` ranks a
correction the user took in the browser first too; without an archive it reads
``<home>/learning.json`` when that exists (written by :func:`save_learning`). The
dictionary index (built in ~2 s for the bundled 100k, ~25 s for 1M) is cached as bytes
under the config's ``cache_dir`` (default ``<home>/cache/``), keyed by the SHA-1 of its
source, so the next start loads it in milliseconds; the daemon and the CLI share it.
Every write is host/home.py's ``atomic_write``: a crash leaves the old file or the new one,
never half of it.

>>> import tempfile, pathlib
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> save_learning(home, {"version": 1, "visited": {"a.com": 2}})
>>> load_learning(home)["visited"]
{'a.com': 2}
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from engine.archive.storage import JournalStorage
from engine.errors import InvalidInput, PageKeeperError, StorageError
from engine.urls.dictionary import MAGIC as INDEX_FORMAT
from engine.urls.dictionary import DomainDictionary
from host.home import Home, atomic_write

DOMAINS = "domains.txt.gz"
STATE_NAME = "suggest"  # the learned state's name in the store's key/value area
log = logging.getLogger("pagekeeper.learning")


def load_learning(home: Path) -> dict | None:
    """The daemon's learned state (from the archive store), else ``learning.json``, else None."""
    state = store_learning(home)
    if state is not None:
        return state
    path = Home(Path(home)).learning
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StorageError(f"cannot read {path}: {exc}") from None


def store_learning(home: Path) -> dict | None:
    """The state the daemon saved under ``store.save_state("suggest", …)``, read-only.

    Only the small ``state`` table is read (the journal storage loads tables
    lazily), not the archive's version index: a one-shot ``suggest`` stays fast
    on a large archive, and a running daemon (the writer) is not disturbed.
    """
    directory = Home(Path(home)).db
    if not directory.is_dir():
        return None
    storage = JournalStorage(directory, readonly=True)
    try:
        for doc in storage.table("state").values():
            if doc.get("name") == STATE_NAME:
                return doc.get("data")
    finally:
        storage.close()
    return None


def save_learning(home: Path, state: dict) -> None:
    """Persist the learning state atomically."""
    try:
        atomic_write(Home(Path(home)).learning, json.dumps(state, sort_keys=True).encode())
    except OSError as exc:
        raise StorageError(f"cannot write {Home(Path(home)).learning}: {exc}") from None


def cache_path(home: Path, source: bytes, cache_dir: str | None = None) -> Path:
    """Where the index built from ``source`` is cached: ``cache_dir``, else ``<home>/cache``.
    The name is keyed by the source and the index format, so builds of another format
    (an older or newer PageKeeper sharing the folder) keep their own file instead of
    rebuilding each other's.

    >>> cache_path(Path("/h"), b"x").parent, cache_path(Path("/h"), b"x", "/c").parent
    (PosixPath('/h/cache'), PosixPath('/c'))
    """
    digest = hashlib.sha1(INDEX_FORMAT + source).hexdigest()[:20]
    return Home(Path(home)).dictionary_index(cache_dir, digest)


def read_cache(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_cache(path: Path, data: bytes) -> bool:
    """Best effort: a read-only home only costs the next start a rebuild."""
    try:
        atomic_write(path, data)
        return True
    except OSError:
        return False


def read_dictionary_file(path: str) -> bytes:
    """The raw bytes of a ``rank,domain`` CSV given with ``--dictionary``."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read dictionary {path}: {exc.strerror or exc}") from None


def cached_dictionary(
    home: Path,
    source: bytes,
    build: Callable[[], DomainDictionary],
    cache_dir: str | None = None,
) -> DomainDictionary:
    """The dictionary from the cache if present and sound, else built and cached."""
    path = cache_path(home, source, cache_dir)
    cached = read_cache(path)
    if cached is not None:
        try:
            return DomainDictionary.from_bytes(cached)
        except (PageKeeperError, ValueError):  # damaged, or an older format: rebuilt below
            log.warning("rebuilding the unreadable dictionary cache %s", path)
    dictionary = build()
    write_cache(path, dictionary.to_bytes())
    return dictionary


def bundled_source() -> bytes:
    """The bundled top-100k domains (gzip), the source of the cached index."""
    return resources.files("engine.data").joinpath(DOMAINS).read_bytes()


def bundled_cache_path(home: Path, cache_dir: str | None = None) -> Path:
    """Where the bundled dictionary's index is cached (the daemon and the CLI share it)."""
    return cache_path(home, bundled_source(), cache_dir)


def bundled_dictionary(
    home: Path, cache_dir: str | None = None, progress: Callable[[int], None] | None = None
) -> DomainDictionary:
    """The bundled top-100k through the warm cache (0.01 s instead of ~3 s): for the daemon too.
    A build tells ``progress`` of its work as it goes (DomainDictionary.from_domains)."""
    source = bundled_source()

    def build() -> DomainDictionary:
        domains = gzip.decompress(source).decode().split("\n")
        return DomainDictionary.from_domains(domains, progress)

    return cached_dictionary(home, source, build, cache_dir)
