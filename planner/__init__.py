"""Headroom's planner: how much GPU memory a served LLM takes, and how many conversations fit.

Pure Python (no Streamlit): pydantic models in and out, bytes as integers, one
:class:`planner.bounds.errors.PlannerError`
for invalid input; "does not fit" is a result. See ``docs/architecture.md`` for the layers and where each
formula lives.

"Seed 000" and "seed 001" in docstrings are the two reference texts the product was conceived from
(``shared/seeds/``): 000 "The Memory Math of Serving a Model" (per-token KV arithmetic, the 24 GB card's
accounting, FP8 KV, paged against contiguous reservation) and 001 "Memory Planning for LLMs" (the capacity
formula and a small planner whose eight lines are a golden table). Every number they state is a test in
``tests/planner/test_seeds.py``.
"""
