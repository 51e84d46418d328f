"""Partial offload: which weights stay on the GPU, which go to host RAM, and what that costs per decoded token.

llama.cpp (``src/llama-model.cpp`` ``llama_model::load_tensors``): ``-ngl N`` puts the last decoder layers on the
GPU. Builds before PR #18148 (ggml-org/llama.cpp, merged 2025-12-17) used ``i_gpu_start = max(n_layer - N, 0)``
and offloaded the output layer (final norm + ``output``) only when ``N > n_layer``; from that PR on
``i_gpu_start = max(n_layer + 1 - N, 0)`` and the output layer (``il = n_layer``) goes first, so ``-ngl N`` is the
output layer plus ``N - 1`` repeating layers ("offloaded N/n_layer+1 layers to GPU"). The input embedding
``token_embd`` always stays in host memory ("there is very little benefit to offloading the input layer").
A model with tied embeddings gets a duplicate of ``token_embd`` as its output tensor (``TENSOR_DUPLICATED``).
Each layer's KV cache lives on its layer's device (``llama_kv_cache``: ``offload_kqv`` defaults to true).
``--n-cpu-moe N`` keeps the routed experts of the first N layers in host memory: one buffer-type override per
layer, ``blk\\.i\\.ffn_(up|down|gate|gate_up)_(ch|)exps`` -> CPU (``common/arg.cpp``, ``llm_ffn_exps_block_regex``
in ``common/common.h``).

vLLM (``vllm/model_executor/models/utils.py`` ``maybe_offload_to_cpu``, applied by ``make_layers`` to each decoder
layer in order; ``vllm/config/offload.py`` ``OffloadConfig.cpu_offload_gb``: "the space in GiB to offload to CPU,
per GPU"): parameters of the first decoder layers move to pinned host memory until ``cpu_offload_gb x 2**30``
bytes are reached (whole parameters, so up to one parameter more); every forward reads them over the host link
(UVA). SGLang's ``--cpu-offload-gb`` is the same mechanism (``sglang/srt/utils.py`` ``maybe_offload_to_cpu``).

Decode speed bound: one token reads every resident weight once, so ``seconds per token >= bytes on the GPU /
GPU bandwidth + bytes read from the host / host bandwidth`` (llama.cpp computes host layers on the CPU at host
RAM bandwidth; vLLM streams its offloaded bytes over PCIe). MoE layers read only the experts a token is routed
to (``num_experts_per_tok / num_experts``); the input embedding is a row lookup and is not counted.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

from planner.core.model import ModelSpec
from planner.core.params import ParameterBreakdown, layer_breakdowns, parameter_breakdown
from planner.core.precision import weight_format
from planner.core.weights import category_bits, stage_weights_bytes_per_gpu, tail_bits, weights_bytes

# The first llama.cpp build with PR #18148 (output layer offloaded first). Builds are numbered tags b<N>; the
# PR merged on 2025-12-17, and tags of that week are ~b7470 (approximate: the tag list is not in reach here).
LLAMACPP_OUTPUT_FIRST_BUILD = 7470


class WeightPlacement(NamedTuple):
    """Where one GPU's share of the weights lives."""

    gpu_bytes: int  # weights resident on the GPU
    host_bytes: int  # weights this GPU's process keeps in host RAM
    gpu_layers: range  # decoder layers whose weights (and, in llama.cpp, KV cache) are on the GPU
    output_on_gpu: bool  # the final norm and output projection
    host_expert_bytes: int = 0  # of host_bytes: routed experts kept on the CPU (--n-cpu-moe)


def llamacpp_build(version: str) -> int:
    """The build number of a llama.cpp tag: ``b6000`` -> 6000 (0 when it is not a build tag).

    >>> llamacpp_build("b7470"), llamacpp_build("main")
    (7470, 0)
    """
    digits = version.strip().lstrip("bB")
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) <= 9 else 0


def llamacpp_gpu_layers(n_layer: int, ngl: int, output_first: bool) -> tuple[range, bool]:
    """(decoder layers on the GPU, output layer on the GPU) for ``-ngl ngl`` (module docstring: both rules).

    >>> llamacpp_gpu_layers(32, 20, output_first=False)
    (range(12, 32), False)
    >>> llamacpp_gpu_layers(32, 20, output_first=True)
    (range(13, 32), True)
    """
    if output_first:
        start, output = max(n_layer + 1 - ngl, 0), ngl >= 1
    else:
        start, output = max(n_layer - ngl, 0), ngl > n_layer
    return range(min(start, n_layer), n_layer), output


def _bits(model: ModelSpec, precision: str) -> dict[str, Fraction]:
    return category_bits(weight_format(precision), parameter_breakdown(model).experts > 0)


def embedding_bytes(model: ModelSpec, precision: str) -> int:
    """The input embedding ``token_embd`` in ``precision`` (0 for a model known by its size alone): what llama.cpp
    keeps in host memory whatever ``-ngl``, and duplicates on the GPU as the output of a tied model."""
    if model.hidden_size is None or model.vocab_size is None:
        return 0
    return math.ceil(parameter_breakdown(model).embedding * _bits(model, precision)["embedding"] / 8)


def expert_bytes(model: ModelSpec, precision: str, layers: range) -> int:
    """Routed-expert weight bytes of ``layers`` (whole, no TP split)."""
    per_layer = layer_breakdowns(model)
    bits = _bits(model, precision)["experts"]
    return math.ceil(sum(per_layer[i].experts for i in layers) * bits / 8)


def llamacpp_placement(
    model: ModelSpec, precision: str, ngl: int | None, cpu_moe_layers: int = 0, output_first: bool = False
) -> WeightPlacement:
    """Weights on the GPU and in host RAM for ``-ngl ngl --n-cpu-moe cpu_moe_layers`` on one device.

    ``ngl`` None is ``-ngl 99`` (everything but ``token_embd``). A model known by its size alone is split
    evenly by layer.
    """
    n = model.num_hidden_layers
    gpu_layers, output = llamacpp_gpu_layers(n, n + 1 if ngl is None else ngl, output_first or ngl is None)
    params = parameter_breakdown(model)
    total = weights_bytes(params, precision)
    if model.hidden_size is None or model.vocab_size is None:
        gpu = math.ceil(total * len(gpu_layers) / n)
        return WeightPlacement(gpu, total - gpu, gpu_layers, output)
    layers = layer_breakdowns(model)
    host_layers = range(0, gpu_layers.start)
    gpu = stage_weights_bytes_per_gpu(model, layers, params, precision, 1, gpu_layers, False, output)
    host = stage_weights_bytes_per_gpu(model, layers, params, precision, 1, host_layers, True, not output)
    if output and params.lm_head == 0:  # tied embeddings: the output tensor is a duplicate of token_embd
        gpu += embedding_bytes(model, precision)
    moved = expert_bytes(model, precision, range(gpu_layers.start, max(gpu_layers.start, min(cpu_moe_layers, n))))
    return WeightPlacement(gpu - moved, host + moved, gpu_layers, output, moved)


def vllm_offloaded_bytes(decoder_bytes: int, cpu_offload_bytes: int) -> int:
    """Bytes ``--cpu-offload-gb`` moves off one GPU: up to the flag, at most the GPU's decoder layers.

    >>> vllm_offloaded_bytes(14 * 2**30, 4 * 2**30) == 4 * 2**30
    True
    """
    return min(max(0, decoder_bytes), cpu_offload_bytes)


def active_fraction(model: ModelSpec) -> Fraction:
    """The share of routed-expert weights one token reads (``num_experts_per_tok / num_experts``)."""
    if model.moe is None:
        return Fraction(1)
    return Fraction(model.moe.num_experts_per_tok, model.moe.num_experts)


def read_bytes(model: ModelSpec, precision: str, layers: range, output: bool, other_bits: float | None = None) -> int:
    """Weight bytes one decoded token reads from ``layers`` (and the output layer): dense parts whole, routed
    experts at :func:`active_fraction`; ``other_bits``: the engine's file keeps the attention, dense MLP and output
    layer at these bits (llama.cpp's gpt-oss GGUFs: Q8_0, the platform row's ``other_bits``)."""
    if model.hidden_size is None or model.vocab_size is None:
        params = parameter_breakdown(model)
        return math.ceil(weights_bytes(params, precision) * len(layers) / model.num_hidden_layers)
    per_layer = layer_breakdowns(model)
    params = parameter_breakdown(model)
    bits = _bits(model, precision)
    if other_bits is not None:
        bits = {**bits, **dict.fromkeys(("attention", "dense_mlp", "lm_head", "embedding"), Fraction(other_bits))}
    dense = Fraction(0)
    experts = Fraction(0)
    for i in layers:
        layer: ParameterBreakdown = per_layer[i]
        dense += layer.attention * bits["attention"] + layer.dense_mlp * bits["dense_mlp"]
        dense += layer.small * bits["small"]
        experts += layer.experts * bits["experts"]
    dense += tail_bits(weight_format(precision), per_layer, layers) if other_bits is None else 0
    if output:
        head = params.lm_head * bits["lm_head"] if params.lm_head else params.embedding * bits["embedding"]
        dense += head
    return math.ceil((dense + experts * active_fraction(model)) / 8)


def decode_seconds(gpu_read: int, gpu_bandwidth: int, host_read: int, host_bandwidth: int) -> float:
    """Seconds per decoded token at best: every byte read once at its memory's bandwidth.

    >>> decode_seconds(2 * 10**9, 10**12, 10**9, 10**11)
    0.012
    """
    return gpu_read / gpu_bandwidth + host_read / host_bandwidth
