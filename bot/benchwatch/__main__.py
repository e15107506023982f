"""``python -m bot`` runs the benchwatch command line."""

import sys

from benchwatch.cli import main

sys.exit(main())
