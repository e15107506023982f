"""``python -m bot`` runs the benchwatch command line."""

import sys

from bot.cli import main

sys.exit(main())
