"""Enforce who may import whom (ARCHITECTURE.md): engine/ is pure.

engine/ imports nothing from host/, opens no sockets, reads no stdio and no
environment, spawns no processes; only the archive store touches files.
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
