"""The advisor row's short key (ui.advisor_rows.option_key): what tells a set-up apart from the ones beside it, in
the order a phone's narrow first column shows it; the CSV keeps every column beside it."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from ui.advisor_rows import option_key, option_row


def test_the_key_names_split_formats_engine_and_gpus() -> None:
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    workload = Workload.fixed_length(32768, concurrent_conversations=50)
    options = rank(spec, workload, gpus=[get_gpu("rtx-pro-6000-blackwell-max-q")]).options
    keys = [option_key(o) for o in options[:4]]
    assert keys[0] == "TP 4 x 2 · FP8 · FP8 KV · vLLM · 8 x rtx-pro-6000-blackwell-max-q"
    assert len(set(keys)) == len(keys)
    row = option_row(1, options[0], cloud=False)
    assert list(row)[:3] == ["#", "key", "set-up"] and row["set-up"] == options[0].label
    assert {"buy", "engine", "GPUs", "caveats", "notes", "price basis"} <= set(row)  # the CSV keeps every column
