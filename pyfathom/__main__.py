"""``python -m pyfathom``: the same as the ``pyfathom`` command."""

import sys

from pyfathom.cli import main

if __name__ == "__main__":
    sys.exit(main())
