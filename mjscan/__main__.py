"""``python -m mjscan``: the same as the ``mjscan`` command."""

import sys

from mjscan.cli import main

if __name__ == "__main__":
    sys.exit(main())
