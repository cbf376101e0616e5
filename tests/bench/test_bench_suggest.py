"""The suggest bench's guard for its compiled copy (`make suggest-compiled`): figures taken on
a compiled engine count only when every compiled module's source is the tree's."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_suggest import stale_compiled  # noqa: E402


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
