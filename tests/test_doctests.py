"""Every docstring example in engine/ and host/ runs and holds: one example per docstring is
the project's style, and an example that no longer holds is a lie about the code."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for package in ("engine", "host")
    for path in (ROOT / package).rglob("*.py")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{name}: {failed} docstring example(s) failed"


def test_the_examples_are_many():
    """A discovery that found nothing would pass every test above."""
    attempted = sum(
        doctest.testmod(importlib.import_module(n), optionflags=doctest.ELLIPSIS).attempted
        for n in MODULES
        if n.startswith("engine.urls")
    )
    assert len(MODULES) > 60 and attempted > 50
