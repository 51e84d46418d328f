"""The held-out GB10 misses read again against their own sources (issue 20, 2026-12-07, fifty-second session): what each
source's own figures place beyond the lines the cases quote (tests/fidelity/test_gb10_pins.py), merged into
:data:`bench.fidelity_unmatched.UNMATCHED`, with the Qwen3-0.6B start-up's, which is planned since as the first
boot its launch command makes."""

from __future__ import annotations

GB10_PINS: dict[str, str] = {
    "vllm-0.25-gb10-gemma4-26b-a4b-bf16-lora4-util055-32k": (
        "KV +4.97 GiB (eleventh blind set, 2026-12-04; +5.10 until vLLM's prefix-LM floor of 2,496 batched tokens, "
        "2026-12-05): weights with the four LoRA slots 53.39 planned against the 53.62 quoted, so 0.55 x 121.69 "
        "less the printed weights and KV, the planned activation (0.42) and graph estimate (0.19) leaves 11.16 GiB "
        "of non-torch memory where the planner's default-loader share puts 6.43. The report's own free -g readings "
        "(MemAvailable, whole GiB) place it at the load, not in the profile: 113 before launch and 44-50 within "
        "ten seconds of the second shard, so 9.4-15.4 GiB beyond the printed weights were in use before the "
        "profile ran (the first shard's staging drove it down to 7; the 2,673,219,856-byte adapters are loaded "
        "by the API server after the KV is sized, 0.26.0 entrypoints/openai/api_server.py:410 init_static_loras, "
        "and with the 0.17 GiB capture they sit in the 12.90 GiB the serving footprint of 80 holds beyond the "
        "budget). LoRA's expert slots are in the printed weights and vLLM 0.25.0 shares one warm-up adapter "
        "(lora/model_manager.py create_dummy_lora, lora_model.py clone); what the loader held after the last "
        "shard is not split by any line the report quotes ('Actual usage' is 0.27's)"
    ),
    "vllm-0.28-gb10-qwen38-27b-fp8-4k-util050-seqs4-align": (
        "KV +5.84 GiB, tokens +26 % (fifteenth blind set, 2026-12-06; as found): 469 blocks printed by the "
        "author's debug line, 12 pages a request ('align', as the planner's 0.28 rules have it, confirmed by the "
        "printed 39.08x); 0.5 x 121.69 - 28.41 - 22.47 leaves 9.97 GiB beyond the weights and KV where the planner "
        "puts 4.13 (3.54 non-torch, 3.29 of it the default loader's share; 0.45 activation; 0.14 graphs). A second "
        "boot of the same machine, checkpoint and flags (arm 4, an extract_hidden_states speculator) prints 458 "
        "blocks of 16 x 3,276,800 bytes, 22.36 GiB against the case's 22.44: the gap recurs within 0.1 GiB, where "
        "two boots of one 2026-12 GB10 set-up differ by 1.6 GiB, so it is this set-up's (loader, file system, host), "
        "not one boot's drift (vLLM charges the host's whole drop of MemAvailable since its first snapshot, 0.28.0 "
        "utils/mem_utils.py:148-155, :317-326). The run logged at DEBUG, so its 'Memory profiling takes ... total "
        "consumed' line exists but is not quoted; the file system (auto-prefetch reads ahead on NFS or Lustre, "
        "where the read-ahead share would put it near +0.9) is not stated"
    ),
    "vllm-0.27-gb10-qwen3-0.6b-util06": (
        "KV +1.68 GiB (+1.89 until planned as the first boot its launch command makes, 2026-12-07: 'docker run --rm' "
        "with only the Hub cache mounted, so the torch.compile cache starts empty; the cold compile's 0.29 GiB copy of "
        "the embedding table against the 0.26 the log leaves for the transient, 73.01 - 3.35 - 69.40; +0.80 before "
        "Model Runner V2's sampler was read from the source, 2026-12-04; GB10 set of 2026-12; fitted since "
        "2026-12-04): the printed consumed memory (3.35 GiB, one MemAvailable drop, 0.27.0 utils/mem_utils.py:317-318) "
        "holds 2.23 GiB beside the planner's 1.12 GiB of weights, where the planner puts 0.53 (the base and the "
        "default loader's 0.12 of the weights). No share of the weights gives 2.2 GiB at 1.1 GiB and 4.6 at 51 GiB "
        "(the 0.27.1 Qwen3.8-27B BF16 start-ups, same default loader): on GB10 the non-torch figure is not "
        "proportional to the weights (docs/fidelity.md, 'Unified memory')"
    ),
}
