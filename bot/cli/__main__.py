"""``python -m bot.cli``: the console script without its wrapper."""

import sys

from bot.cli import main

sys.exit(main())
