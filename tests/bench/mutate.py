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
whatever happens. One mutant at a time. A mutant survives when every test passes; each
survivor is printed with its line so that it is either shown equivalent or given the test
that kills it.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Options:
    module: Path
    tests: tuple[str, ...]
    lines: tuple[int, int] | None = None
    timeout_factor: float = 4.0


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
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


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
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return "timeout", time.monotonic() - start
    return ("passed" if code == 0 else "failed"), time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("module", type=Path)
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--lines", help="only mutants on lines A-B")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    args = parser.parse_args(argv)
    lines = tuple(int(x) for x in args.lines.split("-")) if args.lines else None
    opts = Options(args.module, tuple(args.tests), lines)  # type: ignore[arg-type]
    original = opts.module.read_text()
    todo = sites(original, opts.lines)
    if args.list:
        for site in todo:
            print(f"{site.index:4} line {site.line:4}  {site.what}")
        return 0
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
    try:
        for site in todo:
            opts.module.write_text(mutant(original, site.index))
            status, took = run_tests(opts.tests, limit)
            counts[status] += 1
            if status == "passed":
                print(f"SURVIVED {site.index:4} line {site.line:4}  {site.what}", flush=True)
    finally:
        opts.module.write_text(original)
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
