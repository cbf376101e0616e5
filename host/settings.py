"""Where PageKeeper keeps its data, and the context every CLI command gets.

>>> resolve_home("/tmp/pk").name
'pk'
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import platformdirs

HOME_ENV = "PAGEKEEPER_HOME"


def resolve_home(arg: str | None = None) -> Path:
    """``--home`` wins, then ``$PAGEKEEPER_HOME``, then the platform's user data dir."""
    chosen = arg or os.environ.get(HOME_ENV) or platformdirs.user_data_dir("pagekeeper", False)
    return Path(chosen).expanduser().absolute()


@dataclass
class Context:
    """What a command needs from the outside world: the home dir and the streams."""

    home: Path
    json: bool = False
    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
