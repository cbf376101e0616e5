"""The files the user-facing documents name exist: README.md, ARCHITECTURE.md and
host/PROTOCOL.md point a reader at source files, and each such path opens; so does
every path a module of engine/ or host/ cites (a figure's bench, a rule's source).
Paths under ``../shared`` (the shared data, outside the repository) are not checked."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

DOCUMENTS = ("README.md", "ARCHITECTURE.md", "host/PROTOCOL.md")
# A repository path: one of the top folders, then a file with an extension; not preceded by
# another path segment (``../shared/docs/x.md``) or a word character.
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:host|engine|extension|tests|docs|packaging)/[\w./-]*\w\."
    r"(?:py|md|js|json|png|txt|spec|html|css|toml))(?!\.\w)"  # not a longer name's start
)


def named_paths(text: str) -> set[str]:
    """The repository paths a document names.

    >>> sorted(named_paths("see host/PROTOCOL.md and ../shared/docs/b.md"))
    ['host/PROTOCOL.md']
    >>> sorted(named_paths("in engine/data/domains.txt.gz; figures: tests/bench/b.py."))
    ['tests/bench/b.py']
    """
    return set(REPO_PATH.findall(text))


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_path_a_document_names_exists(document):
    named = named_paths((ROOT / document).read_text("utf-8"))
    assert named, f"{document} names no path: the pattern is broken"
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"{document} names files that do not exist: {missing}"


@pytest.mark.parametrize("package", ["engine", "host"])
def test_every_path_the_code_cites_exists(package):
    cited = {
        (str(module.relative_to(ROOT)), path)
        for module in sorted((ROOT / package).rglob("*.py"))
        for path in named_paths(module.read_text("utf-8"))
    }
    assert cited, f"{package} cites no path: the pattern is broken"
    missing = sorted((module, path) for module, path in cited if not (ROOT / path).exists())
    assert not missing, f"modules cite files that do not exist: {missing}"
