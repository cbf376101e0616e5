"""The docstring examples of the host's modules run and hold (the viewer's are its own)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

HOST = Path(__file__).resolve().parents[2] / "host"
OTHERS = {"host.handlers.viewer"}  # the viewer's area (host/viewer/ is skipped as a folder)
MODULES = sorted(
    name
    for path in HOST.rglob("*.py")
    if "viewer" not in path.relative_to(HOST).parts[:1]
    and (name := ".".join(path.relative_to(HOST.parent).with_suffix("").parts)) not in OTHERS
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name.removesuffix(".__init__"))
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{name}: {failed} docstring example(s) failed"
