"""The suggest bench's guard for its compiled copy (`make suggest-compiled`): figures taken on
a compiled engine count only when every compiled module's source is the tree's."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_suggest import ambiguous, stale_compiled  # noqa: E402

from engine.urls.dictionary import DomainDictionary  # noqa: E402


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    root, compiled = tmp_path / "root", tmp_path / "compiled"
    (root / "engine" / "urls").mkdir(parents=True)
    (root / "engine" / "__init__.py").write_text("")
    (root / "engine" / "urls" / "typos.py").write_text("COST = 0.55\n")
    shutil.copytree(root / "engine", compiled / "engine")
    return root, compiled


def test_a_copy_of_the_same_sources_is_not_stale(tmp_path):
    root, compiled = _tree(tmp_path)
    assert stale_compiled(root, compiled) == []


def test_an_edited_or_missing_source_is_stale(tmp_path):
    root, compiled = _tree(tmp_path)
    (root / "engine" / "urls" / "typos.py").write_text("COST = 0.5\n")
    (root / "engine" / "urls" / "keyboard.py").write_text("")
    assert stale_compiled(root, compiled) == ["engine/urls/keyboard.py", "engine/urls/typos.py"]


def test_ambiguous_cases_are_those_another_known_site_explains():
    d = DomainDictionary.from_domains(
        ["amazon.com", "amazon.de", "torn.com", "turn.com", "ikea.com"]
    )
    # a TLD swap drawn for the less visited amazon.de is as much one of amazon.com
    assert ambiguous(d, "tld_swap", "amazon.de", "http://amazon.io/")
    assert not ambiguous(d, "tld_swap", "amazon.com", "http://amazon.io/")
    # rorn.com, two edits from turn.com, is one slip from torn.com; kiae two from ikea only
    assert ambiguous(d, "short_two_edits", "turn.com", "http://rorn.com/")
    assert not ambiguous(d, "short_two_edits", "ikea.com", "http://kiae.com/")
    # ...and a name known under another TLD is a TLD swap of it
    assert ambiguous(d, "short_two_edits", "ikea.com", "http://torn.de/")
