"""``python -m planner``: see :mod:`planner.cli`.

A reader that stops early (``| head``) closes the pipe: the command ends quietly, as command-line tools do, with
the rest of its output sent to the null device (Python's documentation, "Note on SIGPIPE").
"""

import os
import sys

from planner.bounds.collector import short_lived
from planner.cli import main

short_lived()  # one command, then the process ends (planner.bounds.collector)
try:
    code = main()
    sys.stdout.flush()
except BrokenPipeError:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes at exit
    code = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left
sys.exit(code)
