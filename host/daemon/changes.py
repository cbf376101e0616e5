"""Change notification for long-polls (``viewer_watch``): a sequence number and a wake-up.

The store thread calls :meth:`ChangeFeed.note` after every durable journal line
(``ArchiveStore.open(on_write=...)``, wired in host/daemon/app.py); the liveness sweep
calls it when its progress moves. ``note`` bumps :attr:`ChangeFeed.seq` at once
(under a lock, from any thread) and wakes the waiters on the event loop with
``loop.call_soon_threadsafe``: every waiter of the current generation shares one
``asyncio.Event``, so any number of viewers wake together. Nothing polls.

``CONNECTION_CLOSED`` is set by host/daemon/server.py per websocket, so a watch whose
connection went away ends at once instead of at its timeout.

>>> feed = ChangeFeed(); feed.note(); feed.seq
1
>>> asyncio.run(feed.wait(since=1, timeout=0.01))
False
>>> asyncio.run(feed.wait(since=0, timeout=5))
True
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading

CONNECTION_CLOSED: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "pagekeeper_connection_closed", default=None
)


class ChangeFeed:
    """The daemon's change sequence number and the waiters woken when it moves."""

    def __init__(self) -> None:
        self.seq = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._stamp: tuple[int, asyncio.Future] | None = None

    def note(self) -> None:
        """Something changed (call from any thread; never raises)."""
        with self._lock:
            self.seq += 1
            loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the daemon stopped
                loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        event, self._event = self._event, None
        if event is not None:
            event.set()

    async def wait(self, since: int, timeout: float, *stops: asyncio.Event) -> bool:
        """Wait while ``seq == since`` (a ``since`` from another daemon life differs at once),
        at most ``timeout`` seconds or until one of ``stops`` is set; True if it moved."""
        loop = asyncio.get_running_loop()
        with self._lock:  # bound before seq is read: a note() racing us sees the loop
            self._loop = loop
        deadline = loop.time() + timeout
        while self.seq == since and not any(stop.is_set() for stop in stops):
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            if self._event is None:
                self._event = asyncio.Event()
            waits = [asyncio.ensure_future(e.wait()) for e in (self._event, *stops)]
            try:
                await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()
        return self.seq != since

    async def stamp(self, app, compute) -> dict:
        """``compute()`` on the store thread with ``seq`` read first (so the stamp holds every
        change up to it); watchers asking at the same ``seq`` share one computation."""
        held = self._stamp
        if held is None or held[0] != self.seq:
            # Submitted now, not in a task started later: requests that came after this
            # one on the store thread (a view loading its data) run after the stamp.
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(app.executor, self._compute, compute)
            held = self._stamp = (self.seq, future)
        try:
            return dict(await asyncio.shield(held[1]))
        except Exception:
            if self._stamp is held:  # a failed stamp is not kept for the next watcher
                self._stamp = None
            raise

    def _compute(self, compute) -> dict:
        seq = self.seq
        return {**compute(), "seq": seq}
