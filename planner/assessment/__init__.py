"""The one answer: :func:`planner.assessment.assess.assess` (plan + the engine's start-up check), the nearest
set-ups that fit, and the searches and summaries of a deployment built on it."""
