"""Which build of the engine's hot modules a process runs: compiled or pure.

``make compiled-engine`` copies ``engine/`` into ``build/compiled/`` and compiles there with
mypyc (part of mypy) the suggestion modules and the extraction's hot modules (the block walk,
the labelled-element filter, the context model, the main text's steps): the same code as C
extensions, the same answers (the same float additions in the same order), about a fifth less
CPU a suggestion and a quarter less a page's main text. It never compiles in place: a compiled
module sits before its ``.py`` on the import path and would shadow an edited source.

:func:`use_compiled` is called by the CLI's and the daemon's entry points before the engine's
first import. It puts the copy first on the import path only when every compiled module is
there for this interpreter and every file of the copy's ``engine/`` is byte for byte the
tree's; otherwise the pure modules run, and it says why. The single-file binary (``make
dist``) carries whichever build was there when it was made. :func:`running` says which one a
process runs for each area (``pagekeeper doctor``, the daemon's start line in its log).

>>> sorted(MODULES)[0]
'engine.html.blocks'
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import sysconfig
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPILED = ROOT / "build" / "compiled"
# the modules mypyc compiles, by the area they serve (together, the Makefile's
# COMPILED_MODULES; a test holds them equal)
SUGGEST_MODULES = (
    "engine.urls.typos",
    "engine.urls.dictionary",
    "engine.urls.segments",
    "engine.urls.substitution",
    "engine.urls.keyboard",
    "engine.urls.suggest.pipeline",
    "engine.urls.suggest.ranking",
    "engine.urls.suggest.readings",
)
EXTRACT_MODULES = (
    "engine.html.tokens",
    "engine.html.blocks",
    "engine.html.context",
    "engine.html.extract",
    "engine.html.visible",
)
MODULES = SUGGEST_MODULES + EXTRACT_MODULES
# each area doctor and the daemon's start line name, by the module that tells its build
AREAS = {"suggestions": "engine.urls.typos", "extraction": "engine.html.extract"}
BUILD_HINT = "`make compiled-engine` in a source checkout builds them"
# why the pure modules run, set by use_compiled (empty when the compiled ones do)
chosen = {"why": "the entry point did not choose (the engine was imported first)"}


def stale_compiled(root: Path = ROOT, compiled: Path = COMPILED) -> list[str]:
    """The files of ``root``'s engine (sources and data) whose copy in ``compiled`` differs or
    is missing: a compiled module must run the same code on the same data as its source.

    The bytes are compared once; then ``compiled/sources.stamp`` keeps every file's size and
    mtime on both sides, and while they stay the same the copy is taken as fresh without
    reading the bytes again: the rule Python trusts for its own bytecode cache (a
    timestamp-based ``.pyc``, PEP 552). A start of the CLI or the daemon then costs a stat of
    each file, not a read of 3 MB.
    """
    stats = _stats(root, compiled)
    stamp = compiled / STAMP
    if _read_stamp(stamp) == stats:
        return []
    stale = [name for name in stats if not _same_bytes(root, compiled, name)]
    if not stale:
        _write_stamp(stamp, stats)
    return stale


STAMP = "sources.stamp"


def _stats(root: Path, compiled: Path) -> dict[str, list]:
    """Each engine file of ``root`` by its path: its size and mtime, and its copy's (None when
    the copy is missing)."""
    stats = {}
    for src in sorted((root / "engine").rglob("*")):
        if src.is_file() and "__pycache__" not in src.parts:
            name = str(src.relative_to(root))
            stats[name] = [*_stat(src), *_stat(compiled / name)]
    return stats


def _stat(path: Path) -> tuple:
    try:
        status = path.stat()
    except OSError:
        return (None, None)
    return (status.st_size, status.st_mtime_ns)


def _same_bytes(root: Path, compiled: Path, name: str) -> bool:
    src, copy = root / name, compiled / name
    same = copy.is_file() and copy.stat().st_size == src.stat().st_size
    return same and copy.read_bytes() == src.read_bytes()


def _read_stamp(stamp: Path) -> dict | None:
    try:
        return json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_stamp(stamp: Path, stats: dict) -> None:
    """Written whole or not at all (a rename over the old one); a folder the process cannot
    write keeps no stamp, and the bytes are compared again at the next start."""
    partial = stamp.with_name(f"{stamp.name}.{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(stats), encoding="utf-8")
        os.replace(partial, stamp)
    except OSError:
        partial.unlink(missing_ok=True)


def missing_modules(compiled: Path = COMPILED) -> list[str]:
    """The compiled modules with no extension built for this interpreter in ``compiled``."""
    suffix = EXTENSION_SUFFIXES[
        0
    ]  # this interpreter's ABI tag (``.cpython-311-x86_64-linux-gnu.so``)
    return [m for m in MODULES if not (compiled / (m.replace(".", "/") + suffix)).is_file()]


def why_not(root: Path = ROOT, compiled: Path = COMPILED) -> str:
    """Why the compiled copy cannot run here ("" when it can)."""
    if not compiled.is_dir():
        return f"not built; {BUILD_HINT}"
    if missing := missing_modules(compiled):
        return f"not built for this Python ({len(missing)} of {len(MODULES)} modules missing)"
    if stale := stale_compiled(root, compiled):
        return f"built from other sources ({', '.join(stale[:3])})"
    return ""


def use_compiled(root: Path = ROOT, compiled: Path = COMPILED) -> str:
    """Put ``compiled`` first on the import path when it is built from ``root``'s very
    sources; call before the engine's first import. Returns why the pure modules run ("" when
    the compiled ones will), also kept in :data:`chosen`."""
    if getattr(sys, "frozen", False):
        why = ""  # the binary holds the build `make dist` found
    elif "engine" in sys.modules:
        why = "the engine was imported before the choice"
    else:
        why = why_not(root, compiled)
        if not why:
            sys.path.insert(0, str(compiled))
    chosen["why"] = why
    return why


def running(area: str = "suggestions") -> dict:
    """``{"build": "compiled" | "pure", "why": ...}`` of this process's modules of ``area``
    (a key of :data:`AREAS`)."""
    module = importlib.import_module(AREAS[area])  # read after the entry point chose
    if isinstance(getattr(module, "__loader__", None), ExtensionFileLoader):
        return {"build": "compiled", "why": ""}
    return {"build": "pure", "why": chosen["why"] or "the compiled modules did not load"}


def runs_everywhere() -> dict[str, dict]:
    """:func:`running` of every area, by its name."""
    return {area: running(area) for area in AREAS}


def described(build: dict) -> str:
    """A :func:`running` answer in words, as doctor and the daemon's start line say it.

    >>> described({"build": "pure", "why": "no C compiler (gcc)"})
    'pure Python (no C compiler (gcc))'
    """
    if build["build"] == "compiled":
        return "compiled (mypyc)"
    return f"pure Python ({build['why']})"


def cannot_build() -> str:
    """Why mypyc cannot build here ("" when it can): a C compiler and the Python headers."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(cc) and not shutil.which("cc"):
        return f"no C compiler ({cc})"
    include = sysconfig.get_paths()["include"]
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return f"no Python headers (Python.h in {include}; Debian: python3-dev)"
    return ""


def main(argv: list[str]) -> int:
    """``python -m host.compiled fresh | can-build``, for the Makefile: exit 0 when the
    compiled copy is up to date / when this machine can build it; else one line why, exit 1."""
    if argv == ["fresh"]:
        return 1 if why_not() else 0
    if argv == ["can-build"]:
        if why := cannot_build():
            print(
                f"suggestions and extraction: the pure Python modules run ({why}: the compiled ones"
                " are not built)"
            )
            return 1
        return 0
    print("usage: python -m host.compiled fresh | can-build", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
