"""The one error type of the planner.

Invalid input (an impossible model shape, an unknown precision name, an illegal tensor-parallel split)
raises :class:`PlannerError`. "Does not fit" is never an error: it is a result with ``fits=False``.
"""

from pydantic import ValidationError


class PlannerError(ValueError):
    """Invalid input to the planner. The message names the offending field and says what would be valid."""


class BeyondLimitsError(PlannerError):
    """A number larger than any real model has (:mod:`planner.bounds.limits`): hostile or corrupt input, named by
    field."""


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem, each naming its field: ``moe.num_experts: Input should be greater than 0``."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'model'}: {err['msg'].removeprefix('Value error, ')}"[:300]
        for err in exc.errors()[:10]
    )
