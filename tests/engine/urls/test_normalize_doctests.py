"""The one-example docstrings of the URL modules are true (run as doctests)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine.urls.parse",
    "engine.urls.normalize",
    "engine.urls.rules",
    "engine.urls.params",
    "engine.urls.escapes",
    "engine.urls.verbatim",
    "host.commands.urls",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
