"""What the suggester learns from its user (the URL-rewriting method: "store the result of every
rewrite for statistics and self-learning"). Plain, JSON-serialisable data; the
host persists it (``<home>/learning.json`` for the CLI, the daemon's App for
the extension).

* ``outcomes``: typed domain → suggested domain → {"shown", "taken", "rejected", "retried"}.
  A taken correction ranks first next time; a rejected one is demoted. ``retried`` counts the
  times the user pressed "Try again" on the failed address while the suggestion was offered:
  weak evidence against it (the site may only have been down), weighed by the ranking's
  ``retry_weight``, never as a rejection.
* ``visited``: the user's own domains (reported by the extension) with counts.
* ``archived``: hosts the user archived pages from.
* ``paths``: host → recently seen paths (for "nearest known URL on this site").

>>> state = LearningState()
>>> state.record("gogle.com", "google.com", taken=True)
>>> LearningState.from_dict(state.to_dict()).taken("gogle.com", "google.com")
1
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.errors import InvalidInput

VERSION = 1
MAX_PATHS_PER_HOST = 200
MAX_HOSTS = 20000


@dataclass
class LearningState:
    """The user's corrections, visits and archived hosts (see module doc)."""

    outcomes: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    visited: dict[str, int] = field(default_factory=dict)
    archived: dict[str, int] = field(default_factory=dict)
    paths: dict[str, list[str]] = field(default_factory=dict)

    def _counts(self, typed: str, suggested: str) -> dict[str, int]:
        per = self.outcomes.setdefault(typed, {})
        return per.setdefault(suggested, {"shown": 0, "taken": 0, "rejected": 0, "retried": 0})

    def shown(self, typed: str, suggested: Iterable[str]) -> None:
        """Count that these suggestions were shown for ``typed``."""
        for domain in suggested:
            self._counts(typed, domain)["shown"] += 1

    def record(self, typed: str, suggested: str, taken: bool, retried: bool = False) -> None:
        """Count that the user took (or explicitly rejected) a suggestion; ``retried``: passed
        over it by trying the typed address again (``taken`` is then ignored)."""
        kind = "retried" if retried else "taken" if taken else "rejected"
        self._counts(typed, suggested)[kind] += 1

    def taken(self, typed: str, suggested: str) -> int:
        return self.outcomes.get(typed, {}).get(suggested, {}).get("taken", 0)

    def rejected(self, typed: str, suggested: str) -> int:
        return self.outcomes.get(typed, {}).get(suggested, {}).get("rejected", 0)

    def corrections(self, typed: str) -> dict[str, dict[str, int]]:
        """Every recorded suggestion for ``typed`` with its counts."""
        return self.outcomes.get(typed, {})

    def visit(self, host: str, count: int = 1) -> None:
        self.visited[host] = self.visited.get(host, 0) + count

    def archive(self, host: str, count: int = 1) -> None:
        self.archived[host] = self.archived.get(host, 0) + count

    def add_path(self, host: str, path: str) -> None:
        """Remember a path seen on ``host`` (bounded, most recent last)."""
        if host not in self.paths and len(self.paths) >= MAX_HOSTS:
            return
        known = self.paths.setdefault(host, [])
        if path in known:
            known.remove(path)
        known.append(path)
        del known[:-MAX_PATHS_PER_HOST]

    def to_dict(self) -> dict:
        return {
            "version": VERSION,
            "outcomes": self.outcomes,
            "visited": self.visited,
            "archived": self.archived,
            "paths": self.paths,
        }

    @classmethod
    def from_dict(cls, data: dict) -> LearningState:
        """Load :meth:`to_dict` output; raises InvalidInput on a malformed state."""
        if not isinstance(data, dict):
            raise InvalidInput("learning state must be an object")
        try:
            return cls(
                outcomes={
                    str(t): {str(s): _counts(c) for s, c in per.items()}
                    for t, per in dict(data.get("outcomes", {})).items()
                },
                visited={str(h): int(n) for h, n in dict(data.get("visited", {})).items()},
                archived={str(h): int(n) for h, n in dict(data.get("archived", {})).items()},
                paths={
                    str(h): [str(p) for p in ps] for h, ps in dict(data.get("paths", {})).items()
                },
            )
        except (TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput(f"malformed learning state: {exc}") from None


def _counts(raw: dict) -> dict[str, int]:
    return {k: int(raw.get(k, 0)) for k in ("shown", "taken", "rejected", "retried")}
