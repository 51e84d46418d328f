"""README's worked figure for vLLM's in-flight batches (a sliding-window layer reserves every batch in flight from
0.26.0, ``planner/engines/vllm/in_flight.py``) is the planner's now: it had said "gpt-oss-120b on two RTX PRO 6000
at 32k: 112, not 134", written by hand on 2026-12-03, while ``advise`` gave 117 in an FP8 cache and 59 in BF16 (an
outside review, 2026-12-07). The sentence names the release, the split and both caches, and this test reads them."""

from __future__ import annotations

import re
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank

README = Path(__file__).resolve().parents[2] / "README.md"
SENTENCE = re.compile(
    r"\(gpt-oss-120b on two RTX PRO 6000 Workstation Edition at 32k, TP 2 under vLLM (?P<release>[\d.]+): "
    r"(?P<fp8>\d+) conversations in an FP8 cache and (?P<bf16>\d+) in BF16"
)


def test_readme_states_the_planners_gpt_oss_figures() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())  # the sentence wraps
    found = SENTENCE.search(text)
    assert found, "README: the in-flight batches' gpt-oss-120b figure, in the form SENTENCE reads"
    spec = get_model("openai/gpt-oss-120b").spec
    workload = Workload.fixed_length(32768, concurrent_conversations=50)
    options = rank(spec, workload, gpus=[get_gpu("rtx-pro-6000-blackwell")], counts=(2,)).options
    tp2 = {o.kv_dtype: o for o in options if o.tensor_parallel == 2 and o.engine == "vllm" and o.weights == "mxfp4"}
    assert tp2["fp8"].engine_version == tp2["bf16"].engine_version == found["release"]
    assert (tp2["fp8"].conversations, tp2["bf16"].conversations) == (int(found["fp8"]), int(found["bf16"]))
