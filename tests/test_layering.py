"""Enforce who may import whom (ARCHITECTURE.md): engine/ is pure, and nothing imports in a circle.

engine/ imports nothing from host/, opens no sockets, reads no stdio and no
environment, spawns no processes; only the archive store touches files.

No import circle in engine/ or host/. A circle hidden by an import inside a function
still couples the modules both ways (and breaks once the import moves to the top), so
every ``import`` anywhere in a module counts, and so does ``importlib.import_module``
(an f-string counts as every module under its literal prefix).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"

FORBIDDEN_MODULES = {
    "host",
    "socket",
    "asyncio",
    "websockets",
    "httpx",
    "requests",
    "urllib.request",
    "http.client",
    "http.server",
    "subprocess",
    "ssl",
    "select",
    "selectors",
    "multiprocessing",
    "socketserver",
    "platformdirs",
}
FORBIDDEN_ATTRS = {
    ("os", "environ"),
    ("os", "getenv"),
    ("os", "putenv"),
    ("sys", "stdin"),
    ("sys", "stdout"),
    ("sys", "stderr"),
    ("os", "system"),
    ("os", "popen"),
}
FILE_CALLS = {"open"}
FILE_ATTRS = {
    ("os", "open"),
    ("os", "replace"),
    ("os", "remove"),
    ("os", "unlink"),
    ("os", "rename"),
    ("os", "fsync"),
    ("os", "makedirs"),
    ("os", "mkdir"),
}
# The archive store is the one engine module family allowed to touch files.
FILE_MODULES = {"engine/archive/store.py", "engine/archive/storage.py"}


def engine_files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def imported_modules(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def is_forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN_MODULES)


def attr_uses(tree: ast.AST) -> set[tuple[str, str]]:
    return {
        (node.value.id, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }


def bare_calls(tree: ast.AST) -> set[str]:
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def test_engine_exists():
    assert engine_files(), "engine/ has no Python files"


def test_engine_imports_no_io_and_no_host():
    offences = []
    for path in engine_files():
        tree = ast.parse(path.read_text(), str(path))
        offences += [
            f"{path.relative_to(ROOT)}: import {m}"
            for m in imported_modules(tree)
            if is_forbidden(m)
        ]
        offences += [
            f"{path.relative_to(ROOT)}: {a}.{b}" for a, b in attr_uses(tree) & FORBIDDEN_ATTRS
        ]
        if "print" in bare_calls(tree) or "input" in bare_calls(tree):
            offences.append(f"{path.relative_to(ROOT)}: print/input")
    assert not offences, "engine/ must stay pure:\n" + "\n".join(offences)


def test_only_the_store_touches_files():
    offences = []
    for path in engine_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in FILE_MODULES:
            continue
        tree = ast.parse(path.read_text(), rel)
        if bare_calls(tree) & FILE_CALLS or attr_uses(tree) & FILE_ATTRS:
            offences.append(rel)
    assert not offences, "only the archive store may touch files: " + ", ".join(offences)


def test_checker_catches_a_violation(tmp_path):
    tree = ast.parse("import socket\nfrom host.cli.entry import main\nimport os\nos.environ['X']\n")
    assert {m for m in imported_modules(tree) if is_forbidden(m)} == {"socket", "host.cli.entry"}
    assert ("os", "environ") in attr_uses(tree) & FORBIDDEN_ATTRS


# -- import circles ----------------------------------------------------------------------

PACKAGES = ("engine", "host")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def _absolute(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _importlib_prefix(call: ast.Call) -> str | None:
    func = call.func
    named = isinstance(func, ast.Attribute) and func.attr == "import_module"
    if not named and not (isinstance(func, ast.Name) and func.id == "import_module"):
        return None
    arg = call.args[0] if call.args else None
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value + "\0"  # exact name
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value)
    return None


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module of ``known`` that ``name`` imports, wherever the import statement sits."""
    targets: set[str] = set()
    tree = ast.parse(path.read_text("utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, name, path.name == "__init__.py")
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in known else base)
        elif isinstance(node, ast.Call) and (prefix := _importlib_prefix(node)):
            if prefix.endswith("\0"):
                targets.add(prefix[:-1])
            else:
                targets.update(m for m in known if m.startswith(prefix))
    return {t for t in targets if t in known and t != name}


def graph(root: Path = ROOT, packages=PACKAGES) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle():
    found = circles(graph())
    assert not found, "import circles (break them by moving the shared part down):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return graph(tmp_path, ("pkg",))


def test_a_circle_through_a_function_level_import_is_found(tmp_path):
    edges = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def f():\n    from pkg.a import x\n",
        },
    )
    assert circles(edges) == [["pkg.a", "pkg.b"]]


def test_a_circle_through_importlib_is_found(tmp_path):
    edges = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/main.py": "import importlib\ndef load(n):\n    importlib.import_module(f'pkg.cmds.{n}')\n",
            "pkg/cmds/__init__.py": "",
            "pkg/cmds/one.py": "from ..main import load\n",
        },
    )
    assert circles(edges) == [["pkg.cmds.one", "pkg.main"]]


def test_no_circle_without_a_way_back(tmp_path):
    edges = _package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/a.py": "import pkg.b\n", "pkg/b.py": "import os\n"},
    )
    assert edges["pkg.a"] == {"pkg.b"} and circles(edges) == []
