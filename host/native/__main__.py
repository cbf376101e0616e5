"""``python -m host.native``: the relay, as launchers written by older installs start it."""

import sys

from host.native.relay import main

if __name__ == "__main__":
    sys.exit(main())
