"""``python -m planner``: see :mod:`planner.cli`."""

import sys

from planner.bounds.collector import short_lived
from planner.cli import main

short_lived()  # one command, then the process ends (planner.bounds.collector)
sys.exit(main())
