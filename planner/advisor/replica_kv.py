"""How many copies of a tensor-parallel replica's KV cache its GPUs hold and read (the speed model's KV read,
:func:`planner.advisor.engine_speed.step`)."""

from __future__ import annotations

from planner.advisor.throughput import Load, Setup
from planner.core.kv import heads_per_rank


def kv_copies(setup: Setup, load: Load) -> float:
    """How many copies of the batch's KV cache the GPUs of a tensor-parallel replica hold, and read, together: one,
    unless there are fewer KV heads than GPUs (vLLM and SGLang replicate them: ``max(1, heads // tp)`` a GPU) or the
    cache is MLA's latent, which every GPU holds whole (vLLM ``MLAAttentionSpec``, SGLang
    ``get_cell_size_per_token``); with attention data parallelism each rank holds its own requests', copied over
    the GPUs of its attention (:attr:`Setup.attention_tp`; one at TP 1).

    >>> from model_catalog import get_gpu, get_model
    >>> from planner.advisor.throughput import decode_load
    >>> h100 = Setup(get_gpu("h100-sxm-80gb"), "paged", "fp8", 8, "tensor", False)
    >>> base = decode_load(get_model("meta-llama/Llama-3.1-8B").spec, "fp8", "fp8", 8, 4096)
    >>> kv_copies(h100, base._replace(kv_heads=8)), kv_copies(h100, base._replace(kv_heads=4))
    (1.0, 2.0)
    >>> kv_copies(h100, base._replace(kv_heads=0)), kv_copies(h100._replace(attention_dp=True), base)
    (8.0, 1.0)
    """
    gpus = setup.attention_tp if setup.attention_dp else setup.gpus  # with DP attention: a rank's own GPUs
    if setup.split != "tensor" or gpus < 2:
        return 1.0
    if load.kv_heads <= 0:
        return float(gpus)
    return gpus * heads_per_rank(load.kv_heads, gpus) / load.kv_heads
