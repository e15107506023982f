"""``python -m benchwatch.cli``: the console script without its wrapper."""

import sys

from benchwatch.cli import main

sys.exit(main())
