"""``python -m rummy51``: the command line (see ``rummy51.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
