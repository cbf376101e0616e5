"""``python -m host.cli``: the ``pagekeeper`` command."""

import sys

from host.cli import main

if __name__ == "__main__":
    sys.exit(main())
