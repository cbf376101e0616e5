"""Statement-dropping mutants, the kind mutmut 3 does not make: does a test fail when a call
whose loss is silent (``os.fsync``, ``os.replace``, ``unlink``, ``flush``, a rewind) or a
``raise`` is taken out?

    python tests/bench/mutate.py MODULE.py TEST_FILE [TEST_FILE ...] [--lines A-B] [--list]

mutmut 3 (the tool of docs/tuning.md, "Mutation testing") flips operators, constants, strings
and arguments, but never removes a statement: ``os.fsync(fd)`` becomes ``os.fsync(None)``,
which raises at once, so a test that never checks that the fsync happened still kills it.
Here each mutant is ONE statement replaced by ``pass``:

* a call made as a statement (``os.fsync(fd)``, ``os.replace(a, b)``, ``path.unlink()``…);
* a ``raise`` (the check that guards it no longer stops anything).

The mutant is written over MODULE in place, only the given test files run on it (pytest, first
failure stops it, a time limit for a mutant that loops), and the original is written back
whatever happens: at the end, on an error, and on SIGTERM, SIGINT or SIGHUP (a run stopped with
``kill``, Ctrl-C, or its terminal closed; the test run under way is killed with its children).
A run killed where no handler runs (SIGKILL, a crash, the machine going down) leaves the mutant
in place; the original is kept beside it (``.MODULE.mutate-original``) before the first mutant
is written, and every mutant starts with a marker line, so the next run (``--list`` too) puts
the original back before it does anything. One mutant at a time. A mutant survives when every test passes; each
survivor is printed with its line so that it is either shown equivalent or given the test
that kills it.

An ES module (``MODULE.js``, the extension) gets the operators of ``js_mutants.py`` instead
(a comparison flipped, ``&&``/``||`` swapped, a condition negated, a ``return``, ``throw``,
``await`` or statement dropped, a number plus one, ``true``/``false``), with a ``//`` marker;
the same restore guarantees hold. Pick the tests per module (browser tests cost seconds each):

    python tests/bench/mutate.py extension/background/tab-state.js \
        tests/extension/test_background.py::test_tab_state_outlives_the_background
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).parent))

import js_mutants  # noqa: E402


@dataclass(frozen=True)
class Options:
    module: Path
    tests: tuple[str, ...]
    lines: tuple[int, int] | None = None
    timeout_factor: float = 4.0


# The first line of every mutant written over a module: a module that starts with it holds a
# mutant, not the user's code.
MARKER = "# MUTANT written by tests/bench/mutate.py: the original is restored by its next run\n"
# The signals a run stops on, with the original written back first.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Stopped(Exception):
    """A stop signal arrived; the run ends after the module is restored."""


@dataclass(frozen=True)
class Site:
    index: int
    line: int
    what: str


class _Mutator(ast.NodeTransformer):
    """Walks the tree numbering every mutation site; mutates only the ``target``-th one."""

    def __init__(self, target: int = -1, skip_lines: frozenset[int] = frozenset()) -> None:
        self.target = target
        self.skip_lines = skip_lines
        self.sites: list[Site] = []

    def _site(self, node: ast.AST, what: str) -> bool:
        line = getattr(node, "lineno", 0)
        if line in self.skip_lines:
            return False
        self.sites.append(Site(len(self.sites), line, what))
        return self.sites[-1].index == self.target

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant):  # a docstring
            return node
        self.generic_visit(node)
        if isinstance(node.value, ast.Call) and self._site(
            node, f"drop {_call_name(node.value)}()"
        ):
            return ast.copy_location(ast.Pass(), node)
        return node

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self.generic_visit(node)
        if self._site(node, "drop raise"):
            return ast.copy_location(ast.Pass(), node)
        return node


def _call_name(call: ast.Call) -> str:
    func = call.func
    return ast.unparse(func)[:60]


def _skip_lines(source: str) -> frozenset[int]:
    """Lines never run on this platform or in the tests: ``pragma: no cover``."""
    return frozenset(
        i for i, line in enumerate(source.splitlines(), 1) if "pragma: no cover" in line
    )


def sites(source: str, lines: tuple[int, int] | None) -> list[Site]:
    walker = _Mutator(skip_lines=_skip_lines(source))
    walker.visit(ast.parse(source))
    if lines is None:
        return walker.sites
    return [s for s in walker.sites if lines[0] <= s.line <= lines[1]]


def mutant(source: str, index: int) -> str:
    tree = _Mutator(index, _skip_lines(source)).visit(copy.deepcopy(ast.parse(source)))
    return MARKER + ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _language(module: Path) -> ModuleType | None:
    """The mutants of an ES module come from js_mutants; a Python module's from this file."""
    return js_mutants if module.suffix in (".js", ".mjs") else None


def marker_of(module: Path) -> str:
    """The first line of a mutant written over ``module`` (a comment in its language)."""
    language = _language(module)
    return language.MARKER if language else MARKER


def module_sites(module: Path, source: str, lines: tuple[int, int] | None) -> list:
    language = _language(module)
    return language.sites(source, lines) if language else sites(source, lines)


def module_mutant(module: Path, source: str, index: int) -> str:
    language = _language(module)
    return language.mutant(source, index) if language else mutant(source, index)


def saved_path(module: Path) -> Path:
    """Where the original of ``module`` is kept while a mutant stands in its place."""
    return module.with_name(f".{module.name}.mutate-original")


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a run stopped mid-write leaves the old text, never half of each."""
    part = path.with_name(f".{path.name}.mutate-part")
    part.write_text(text)
    os.replace(part, path)


def save_original(module: Path, original: str) -> None:
    """Keep the original beside the module before any mutant is written over it."""
    _write(saved_path(module), original)


def restore(module: Path, original: str) -> None:
    """Write the original back, then forget the kept copy (in this order: a run stopped
    between the two leaves a copy that the next run sees is not needed)."""
    _write(module, original)
    saved_path(module).unlink(missing_ok=True)


def recover(module: Path) -> str | None:
    """What a previous run left, made right before this one starts: a mutant (the marker) is
    replaced by the kept original; a kept copy beside an unmutated module is only removed (the
    run stopped before its first mutant or after it restored). Returns what was done, or None.
    A mutant without its original cannot be restored here: ``SystemExit`` names the module."""
    saved = saved_path(module)
    mutated = module.read_text().startswith(marker_of(module))
    if mutated and not saved.exists():
        raise SystemExit(
            f"{module} holds a mutant and its original is gone; restore it (git checkout)"
        )
    if mutated:
        restore(module, saved.read_text())
        return f"restored {module}: a previous run was killed with a mutant in place"
    if saved.exists():
        saved.unlink()
        return f"removed {saved.name}, left by a previous run; {module} was not mutated"
    return None


def _stop(signum: int, _frame) -> None:
    raise Stopped(signal.Signals(signum).name)


def _on_stop_signals(handler) -> dict:
    """Install ``handler`` for the stop signals (even where the shell ignores SIGINT, as it does
    for a job started with ``&``); returns the handlers it replaced."""
    return {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}


def run_tests(tests: tuple[str, ...], limit: float | None) -> tuple[str, float]:
    """``passed``, ``failed`` or ``timeout``, and the wall time."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
    ]
    start = time.monotonic()
    proc = subprocess.Popen(
        [*cmd, *tests],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # the group is killed on a time-out, daemons included
    )
    try:
        code = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return "timeout", time.monotonic() - start
    except BaseException:  # a stop signal: no test run outlives the run that started it
        _kill_group(proc)
        raise
    return ("passed" if code == 0 else "failed"), time.monotonic() - start


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("module", type=Path)
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--lines", help="only mutants on lines A-B")
    parser.add_argument(
        "--mutants", help="only these mutants, by their numbers in --list: 4,7,11 (survivors)"
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    args = parser.parse_args(argv)
    lines = tuple(int(x) for x in args.lines.split("-")) if args.lines else None
    opts = Options(args.module, tuple(args.tests), lines)  # type: ignore[arg-type]
    done = recover(opts.module)
    if done:
        print(done, flush=True)
    original = opts.module.read_text()
    todo = module_sites(opts.module, original, opts.lines)
    if args.mutants:
        chosen = {int(x) for x in args.mutants.split(",")}
        todo = [site for site in todo if site.index in chosen]
    if args.list:
        for site in todo:
            print(f"{site.index:4} line {site.line:4}  {site.what}")
        return 0
    previous = _on_stop_signals(_stop)
    try:
        return _run(opts, original, todo)
    except Stopped as stop:
        print(f"stopped by {stop}; {opts.module} restored", flush=True)
        return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _run(opts: Options, original: str, todo: list[Site]) -> int:
    status, base = run_tests(opts.tests, None)
    if status != "passed":
        print(f"the tests fail on the unmutated module ({status}); nothing to measure")
        return 2
    limit = base * opts.timeout_factor + 10
    cpu0, wall0 = _children_cpu(), time.monotonic()
    print(
        f"{len(todo)} mutants; the tests take {base:.1f} s unmutated; load {os.getloadavg()[0]:.1f}"
    )
    counts = {"failed": 0, "timeout": 0, "passed": 0}
    save_original(opts.module, original)
    try:
        for site in todo:
            _write(opts.module, module_mutant(opts.module, original, site.index))
            status, took = run_tests(opts.tests, limit)
            counts[status] += 1
            if status == "passed":
                print(f"SURVIVED {site.index:4} line {site.line:4}  {site.what}", flush=True)
    finally:
        restore(opts.module, original)
        made = sum(counts.values())
        if made < len(todo):  # stopped: how far it got
            print(f"after {made} of {len(todo)} mutants: {counts}", flush=True)
    wall, cpu = time.monotonic() - wall0, _children_cpu() - cpu0
    print(
        f"made {len(todo)}, killed {counts['failed']} (+{counts['timeout']} by time-out), "
        f"survived {counts['passed']}; {wall:.0f} s wall, {cpu:.0f} s CPU, "
        f"load {os.getloadavg()[0]:.1f} at the end"
    )
    return 0


def _children_cpu() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


if __name__ == "__main__":
    sys.exit(main())
