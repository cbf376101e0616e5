"""The context every CLI command gets (its home folder: host/home.py).

>>> Context(Path("/tmp/pk")).json
False
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO


@dataclass
class Context:
    """What a command needs from the outside world: the home dir and the streams."""

    home: Path
    json: bool = False
    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
