"""``python -m host.daemon --home H [--port P]``: what ``serve --detach`` spawns; the
suggestion modules' build chosen before the engine's first import (host/compiled.py)."""

import sys

from host.compiled import use_compiled

if __name__ == "__main__":
    use_compiled()
    from host.daemon.main import main

    sys.exit(main())
