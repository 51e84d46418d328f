"""Input bounds and the one error type: :class:`planner.bounds.errors.PlannerError`, the limits every model and
request field is checked against, bounded file and JSON reads, and the wall-clock limit of a run. The lowest layer."""
