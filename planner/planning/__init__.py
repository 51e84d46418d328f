"""One plan: the request, the sequences it holds, each stage's memory and the capacity
(:func:`planner.planning.plan.plan`).
Imports the core and :mod:`planner.deploy`; never an engine."""
