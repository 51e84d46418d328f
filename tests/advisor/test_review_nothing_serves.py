"""When nothing serves the workload, the verdict names the set-up that came closest and only remedies an engine runs
(issue 21, review 2026-12-07): a home set-up, Llama 3 70B in Q4_K_M (42.5 GB, the GGUF most such builds run) on two
RTX 3090 cards for 3 users of 8k. The two cards hold 2 conversations under llama.cpp; the old verdict named instead
an FP8-cache variant no engine runs on Ampere ('The first no engine: ...') and advised 'an FP8 KV cache', which
llama.cpp does not have ('GGUF only; KV int8 / int4 are llama.cpp's q8_0 / q4_0 cache types; no FP8 KV cache',
planner/engines/platforms/llamacpp.toml) and no engine runs with these weights on these cards."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.advisor.recommend import recommendation


def test_the_home_set_up_names_the_closest_and_no_fp8_cache() -> None:
    model, gpu = get_model("meta-llama/Meta-Llama-3-70B").spec, get_gpu("rtx-3090")
    work = Workload.fixed_length(8192, concurrent_conversations=3)
    # llama.cpp's q8_0 cache (tried by default since issue 21) holds the three: the expert's set-up
    served = rank(model, work, gpus=[gpu], counts=(1, 2), weights=["q4_k_m"]).best
    assert served is not None and (served.gpu_count, served.kv_dtype, served.conversations) == (2, "int8", 3)
    # with the 16-bit and FP8 caches of the review nothing serves, and the verdict names the closest
    ranking = rank(model, work, gpus=[gpu], counts=(1, 2), weights=["q4_k_m"], kv_dtypes=("bf16", "fp8"))
    assert ranking.best is None
    close = [r for r in ranking.rejected if r.reason == "below-target"]
    assert [(r.gpu_count, r.tensor_parallel, r.kv_dtype) for r in close] == [(2, 2, "fp16")]
    assert "holds 2 conversations of 8,192 tokens, target 3" in close[0].detail
    text = recommendation(ranking)
    assert "The closest: 2 x GeForce RTX 3090, q4_k_m weights, fp16 KV: holds 2 conversations" in text
    assert "FP8 KV cache" not in text and "The first no engine" not in text
