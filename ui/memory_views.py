"""The Memory page's lazy sections (:mod:`pages.memory`): the session-state keys of whether each is open.

View states, not settings: a link does not carry them. Closed, a section's elements are neither sent nor rebuilt on
a run (a slider move); opening one reruns the page, which draws it.
"""

COMMANDS_OPEN_KEY = "launch_commands_open"  # the "Launch commands" popover
CALIBRATE_OPEN_KEY = "calibrate_open"  # the "Calibrate from my log" expander
SOURCES_OPEN_KEY = "sources_open"  # the "Where the numbers come from" expander
CHART_LAYERS_KEY = "_memory_chart_layers"  # the chart's optional layers this session has drawn (ui.memory_chart)
