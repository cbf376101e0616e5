"""The one-example docstrings of the suggestion modules are true (run as doctests)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine.urls.suggest",
    "engine.urls.dictionary",
    "engine.urls.substitution",
    "engine.urls.typos",
    "engine.urls.keyboard",
    "engine.urls.segments",
    "engine.urls.learning",
    "host.learning_file",
    "host.commands.suggest",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
