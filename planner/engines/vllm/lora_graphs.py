"""What a CUDA graph captured with adapters active holds beyond a plain one: the LoRA kernels it launches.

With LoRA on, vLLM captures each graph size for each LoRA case (:func:`planner.engines.vllm.graphs.lora_graph_cases`):
``[0, max_loras + 1]`` active adapters without ``--specialize-active-lora``, ``0`` and the powers of two up to
``max_loras`` plus ``max_loras + 1`` with it (0.27.1 ``v1/worker/gpu/lora_utils.py:20-36``, ``lora/utils.py:49-64``).
Before each capture the runner selects that many dummy adapters (``create_lora_capture_hook``, ``lora_utils.py:53-74``;
``v1/worker/lora_model_runner_mixin.py:133-233``). In the case of none, every LoRA op returns before launching
anything (``no_lora_flag_cpu``: ``lora/ops/triton_ops/lora_shrink_op.py:172``, ``lora_expand_op.py:177``), so that
graph is a plain one. With adapters active, each wrapped linear layer's ``add_lora_linear``
(``lora/punica_wrapper/punica_gpu.py:203-263``) launches three kernels into the graph: the shrink's ``zero_()`` of
its float32 buffer, the shrink kernel and the expand kernel (``lora_shrink_op.py:192``, ``:231``;
``lora_expand_op.py:248``). Nothing else grows: the buffer (slices x tokens x rank float32 values, 96 KiB at 512
tokens and rank 16) is freed inside the capture, its pool block reused; the kernel metadata is allocated once per
wrapper (``lora_kernel_metadata.py`` ``LoRAKernelMeta.make``); the dummy adapters are built on the CPU and copied into
the slots that already hold their memory (``lora/model_manager.py:542-620``); and all graphs share one pool
(``v1/worker/gpu/cudagraph_utils.py:135``, compiled pieces ``compilation/cuda_graph.py:200``). What an
adapter-active graph costs beyond a plain one is therefore the driver's memory for its extra kernel nodes,
independent of ``max_loras`` and the rank: the public Qwen3-4B boots on an RTX 4090 (vLLM 0.27.1) print "took 1.28
GiB" at 1, 16 and 64 slots alike.

The cost per kernel, :data:`LORA_KERNEL_BYTES`, is measured on one public start-up with a different graph count, the
same project's ``--specialize-active-lora`` boot of Qwen3-4B with 64 slots (alexostapiuk11/coldstart-recon-worker,
``fixtures/a5/lora-N64-specialize.json``): it captured all 459 PIECEWISE graphs (51 sizes x 9 LoRA cases, 408 with
adapters active) and ran out of memory in the first FULL warm-up ("free: 4653056"). Its capture started with what the
same settings' boot (``fixtures/a5/lora-N64-restart.json``: 22.64 GiB free at start, 12.78 consumed, the same 5.89 of
KV cache as this boot prints) leaves, 22.64 - 12.78 - 5.89 = 3.97 GiB; less the plain graphs' planned terms (base +
458 x the per-graph term at 36 layers, 2.23 GiB), 1.74 GiB over 408 x 36 layers x 4 wrapped linears x 3 kernels:
10,614 bytes a kernel (``tests/engines/test_vllm_lora_kernels.py``). Held out: the five boots printing 1.28 GiB
(86 adapter-active graphs of 172) are planned at 1.25; the same specialize boot at util 0.85
(``fixtures/a5/budget-085/lora-N64-specialize.json``, 7.06 GiB of KV cache, 2.80 GiB for the capture) ran out in
its 319th graph, where 320 fit as planned.

Not planned: the vocabulary embedding's one expand kernel a graph (``lora/layers/vocal_parallel_embedding.py:96-126``,
~10 KiB); fused-MoE experts' LoRA kernels (``punica_gpu.py:419-738``, another kernel count, no capture line to check);
releases that capture a single LoRA case (before 0.11.1 on V1, 0.22-0.23 on Model Runner V2; whether it holds the
kernels is not read), counted as plain graphs.
"""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.deploy.lora import wrapped_linears
from planner.engines.vllm.graphs import GraphSet

KERNELS_PER_LINEAR = 3  # zero_ of the shrink buffer, shrink, expand (punica_gpu.py:203-263)
# Driver memory a LoRA kernel adds to an adapter-active graph (module docstring: the 64-slot specialize boot).
LORA_KERNEL_BYTES = 10_614


def lora_graph_kernels(model: ModelSpec, layers: int) -> int:
    """LoRA kernels one adapter-active graph launches on a rank of ``layers`` decoder layers: three per wrapped dense
    linear layer (every supported module, vLLM's default), the model's count prorated to the rank's layers.

    >>> m = ModelSpec(id="t", num_hidden_layers=2, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
    ...               head_dim=4, intermediate_size=16, vocab_size=10, max_position_embeddings=64)
    >>> lora_graph_kernels(m, 2)  # qkv, o, gate_up, down on each layer: 2 x 4 x 3
    24
    """
    total = model.num_hidden_layers
    if model.hidden_size is None or total == 0:
        return 0
    dense = sum(1 for index in range(total) for linear in wrapped_linears(model, index) if linear.copies == 1)
    return KERNELS_PER_LINEAR * round(dense * layers / total)


def lora_graph_bytes(graphs: GraphSet, kernels: int) -> int:
    """``adapter-active graphs x kernels x`` :data:`LORA_KERNEL_BYTES`: what the LoRA kernels add to a capture."""
    return graphs.lora_active * kernels * LORA_KERNEL_BYTES
