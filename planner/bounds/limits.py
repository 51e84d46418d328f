"""Bounds on what a model description may say, checked before any work (a link's ``spec``, an uploaded or
fetched ``config.json``, a CLI file): each is the largest value among real models, with a wide margin, so that
a hostile description ("a million layers") is refused by name instead of costing minutes and gigabytes.

| field | largest real value (2026) | bound |
|---|---|---|
| layers | 126 (Llama 3.1 405B), 94 (Qwen3-235B) | 1,024 |
| hidden size | 16,384 (Llama 3.1 405B) | 131,072 |
| MLP / expert width | 53,248 (Llama 3.1 405B) | 1,048,576 |
| attention / KV heads | 128 (DeepSeek-V3, Llama 405B) | 4,096 |
| head dim | 512 (Gemma 4 global layers) | 16,384 |
| vocabulary | 262,208 (Gemma 3) | 4,194,304 |
| experts | 512 (Qwen3.5-397B) | 16,384 |
| context (positions) | 10,485,760 (Llama 4 Scout) | 16,777,216 |
| parameters | 1.04 T (Kimi K2) | 100 T |
| RoPE scaling factor | 64 (YaRN, Kimi / DeepSeek); 8 (Gemma 3 linear) | 1,024 |

And on a deployment (:class:`planner.planning.request.PlanRequest`, the CLI's arguments):

| field | largest real value (2026) | bound |
|---|---|---|
| GPUs in one set-up | 576 (an NVL576 rack), 72 (GB200 NVL72) | 4,096 |
| tensor / pipeline parallel on the CLI | 8 to 72 in practice | 64 (the dashboard's) |
| memory of one GPU | 288 GB (MI355X, B300); 512 GB (M3 Ultra) | 100,000 GB |
| concurrent users on the CLI | thousands per deployment | 1,000,000 (the dashboard's 100,000) |
| a purchase or monthly budget | millions of USD | 10^12 USD |
"""

from __future__ import annotations

import math
import types
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

MAX_LAYERS = 1_024
MAX_HIDDEN = 131_072
MAX_WIDTH = 1_048_576
MAX_HEADS = 4_096
MAX_HEAD_DIM = 16_384
MAX_VOCAB = 4_194_304
MAX_EXPERTS = 16_384
MAX_CONTEXT = 16_777_216
MAX_PARAMETERS = 100 * 10**12
MAX_ROPE_FACTOR = 1_024  # a RoPE scaling factor (rope_scaling.factor)
MAX_GPUS = 4_096
MAX_PARALLEL = 64
MAX_GPU_MEMORY_BYTES = 100_000 * 10**9
MAX_USERS = 1_000_000
MAX_BUDGET_USD = 10**12
MAX_CONFIG_BYTES = 1_000_000  # a config.json (the largest real ones are ~10 kB)
MAX_JSON_DEPTH = 32  # config.json nests three or four levels

Layers = Annotated[int, Field(gt=0, le=MAX_LAYERS)]
Hidden = Annotated[int, Field(gt=0, le=MAX_HIDDEN)]
Width = Annotated[int, Field(gt=0, le=MAX_WIDTH)]
Heads = Annotated[int, Field(gt=0, le=MAX_HEADS)]
HeadDim = Annotated[int, Field(gt=0, le=MAX_HEAD_DIM)]
Vocab = Annotated[int, Field(gt=0, le=MAX_VOCAB)]
Experts = Annotated[int, Field(gt=0, le=MAX_EXPERTS)]
Context = Annotated[int, Field(gt=0, le=MAX_CONTEXT)]
Parameters = Annotated[int, Field(gt=0, le=MAX_PARAMETERS)]
GpuCount = Annotated[int, Field(gt=0, le=MAX_GPUS)]
GpuMemoryBytes = Annotated[int, Field(gt=0, le=MAX_GPU_MEMORY_BYTES)]

# Upper bounds by config.json field name, for readers that check before building anything.
FIELD_LIMITS: dict[str, int] = {
    "num_hidden_layers": MAX_LAYERS,
    "hidden_size": MAX_HIDDEN,
    "intermediate_size": MAX_WIDTH,
    "moe_intermediate_size": MAX_WIDTH,
    "shared_expert_intermediate_size": MAX_WIDTH,
    "num_attention_heads": MAX_HEADS,
    "num_key_value_heads": MAX_HEADS,
    "head_dim": MAX_HEAD_DIM,
    "vocab_size": MAX_VOCAB,
    "num_experts": MAX_EXPERTS,
    "num_experts_per_tok": MAX_EXPERTS,
    "max_position_embeddings": MAX_CONTEXT,
    "sliding_window": MAX_CONTEXT,
    "attention_chunk_size": MAX_CONTEXT,
    "num_parameters": MAX_PARAMETERS,
}
DEFAULT_FIELD_LIMIT = MAX_CONTEXT  # any other count in a config (ranks, dims, periods)


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """The base type of ``annotation`` and the ``annotated_types`` constraints around it: through
    ``Annotated[int, Field(ge=0)]`` and the non-None member of an optional one."""
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *extras = get_args(annotation)
        kind, found = _unwrap(base)
        for extra in extras:
            found.extend(extra.metadata if isinstance(extra, FieldInfo) else [extra])
        return kind, found
    if origin in (Union, types.UnionType):
        members = [_unwrap(arg) for arg in get_args(annotation) if arg is not type(None)]
        return (members[0][0] if members else None), [c for _, found in members for c in found]
    return annotation, []


class FieldRange(NamedTuple):
    low: Any  # an int for a whole-number field's integer bound
    high: Any
    whole: bool  # the field holds whole numbers


def field_range(model: type[BaseModel], name: str) -> FieldRange:
    """The closed range pydantic validates ``model.name`` against (``ge``/``gt``/``le``/``lt``; a whole-number
    field's ``gt`` is the next whole number): what a surface taking the value from outside (a dashboard setting,
    a command-line flag) accepts, so that it never accepts what the model then refuses.

    >>> class Tier(BaseModel):
    ...     hit_rate: Annotated[float, Field(ge=0, le=1)] = 1.0
    ...     slots: Annotated[int, Field(gt=0, le=4096)] | None = None
    >>> field_range(Tier, "hit_rate"), field_range(Tier, "slots")
    (FieldRange(low=0, high=1, whole=False), FieldRange(low=1, high=4096, whole=True))
    """
    info = model.model_fields[name]
    kind, constraints = _unwrap(info.annotation)
    step = 1 if kind is int else 0
    low: Any = -math.inf
    high: Any = math.inf
    for c in [*info.metadata, *constraints]:
        bound: Any = getattr(c, type(c).__name__.lower(), None)  # Ge(ge=0).ge, Lt(lt=1).lt, …
        if isinstance(c, annotated_types.Ge | annotated_types.Gt):
            low = max(low, bound + (step if isinstance(c, annotated_types.Gt) else 0))
        elif isinstance(c, annotated_types.Le | annotated_types.Lt):
            high = min(high, bound - (step if isinstance(c, annotated_types.Lt) else 0))
    return FieldRange(low, high, whole=kind is int)
