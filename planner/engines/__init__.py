"""Serving engines: how each turns its memory setting into a KV pool, what it prints, how it is launched.

- :mod:`planner.core.overhead`: the overhead terms every plan has (:class:`~planner.core.overhead.OverheadBytes`),
  the context an overhead model sees (:class:`~planner.core.overhead.StageContext`), the generic overhead
  models (the founding texts' simple fractions and a vLLM-like estimate) and the base of every engine profile.
- :mod:`planner.engines.base`: what every engine module shares: the start-up report model, the
  :class:`~planner.engines.base.Engine` interface a registered engine implements, and loader helpers.
- one module per engine (:mod:`~planner.engines.vllm`, :mod:`~planner.engines.sglang`,
  :mod:`~planner.engines.trtllm`, :mod:`~planner.engines.llamacpp.engine`) holding its profile, start-up report,
  launch command and labels, and :mod:`~planner.engines.vllm.calibrated` (figures measured from a log).
- :mod:`planner.engines.registry`: the one list of engines; every lookup by name goes through it, and an
  unknown name raises :class:`planner.bounds.errors.PlannerError`.

Importing this package imports the registry, so every registered engine's profile class is known to
:data:`planner.core.overhead.OVERHEAD_KINDS` (a plan dump naming an engine reads back) before any engine module is
used; the core below never imports an engine.
"""

from planner.engines import registry as registry
