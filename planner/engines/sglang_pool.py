"""SGLang's KV pool (:class:`Pool`), and its hybrid sliding-window split: the windowed layers of some
architectures get a pool of their own, holding ``--swa-full-tokens-ratio`` (0.8 by default) times the
full-attention layers' tokens, so the same memory holds more full-attention tokens than if every layer kept every
token.

Read in SGLang's packages on PyPI, 0.5.2 to 0.5.23 (2026-12-06):

- **Which models.** ``configs/model_config.py`` ``is_hybrid_swa_model`` names the architectures (from 0.5.8;
  ``GptOssForCausalLM`` and ``Llama4ForConditionalGeneration``; Gemma 4 from 0.5.11). Before, 0.5.2-0.5.6 split any
  model with a sliding window unless ``server_args.py`` turned it off, which it did for gpt-oss unconditionally and
  for Gemma 2/3 (``disable_hybrid_swa_memory = True``); 0.5.7 split only with ``--hybrid-kvcache-ratio``
  (``is_hybrid_model``, default ``None``), as every release before 0.5.8 did Llama 4. So before 0.5.8 no catalog
  model is split. The planner knows a model by its ``model_type``, not its architecture: a text-only Llama 4 config
  (``Llama4ForCausalLM``, in no release's list) is planned split like the catalog's checkpoints.
- **Exceptions.** gpt-oss on SM100 takes the ``trtllm_mha`` attention backend by default, and 0.5.8 and 0.5.9 turn
  the split off with it ("Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention backend"); 0.5.8 also
  turns it off under speculative decoding. From 0.5.10 neither is there.
- **The sizes.** From 0.5.11 (``pool_configurator.py`` ``HybridSWAPoolConfigurator``): ``full_tokens = rest // (F x
  n_full + r x S x n_swa)``, the SWA pool ``int(full_tokens x r)``, both in whole pages, and ``--max-total-tokens``
  caps the full pool (``calculate_pool_sizes_from_max_tokens``). 0.5.8-0.5.10 size the pool over every layer first,
  cap and align that count, then split it: ``full = tokens x (F x n_full + S x n_swa) / (F x n_full + r x S x
  n_swa)`` (0.5.9 ``init_memory_pool`` then ``set_num_tokens_hybrid_swa``; 0.5.8 by layer counts, the same where the
  layers cost the same, as gpt-oss's and Llama 4's do). The layer counts are the entries of the config's
  ``layer_types``, KV-shared layers included (Gemma 4 E-models), and a pipeline stage other than the last counts
  the next stage's first layer too until 0.5.20 (``range(start_layer, end_layer + 1)``; 0.5.21 counts the layers it
  owns). A speculative drafter's layers count with the full ones (0.5.15 on, ``_draft_full_layers_num``; before, its
  pool is sized apart and planned as 0.5.15 counts it). The scheduler's ``max_total_num_tokens`` is the full pool's.
- **Refusal.** From 0.5.16 a windowed pool that cannot hold a window and a page stops the start-up ("SWA pool (N
  tokens) cannot hold even one request"; Llama 4's window is its 8,192-token attention chunk).
- **Not modelled:** ``--disable-radix-cache`` with ``--max-running-requests`` (0.5.14 on: the SWA pool sized from
  the requests, ``SWAChunkCapPoolConfigurator``), hierarchical cache, and 0.5.8's pipeline stages (it multiplies a
  stage's tokens by the whole model's layers).
"""

from __future__ import annotations

from typing import NamedTuple

from planner.core.blocks import LayerKind
from planner.core.kv import kv_bytes_per_token_in_layers, kv_bytes_per_token_per_layer
from planner.core.model import ModelSpec
from planner.core.overhead import FailureKind, StageContext, parse_version
from planner.engines.sglang_rules import load_failure, no_memory_failure
from planner.planning.request import PlanRequest

SWA_FULL_TOKENS_RATIO = 0.8  # server_args.py swa_full_tokens_ratio, every 0.5.x release read

# config.json model_type -> the first release that pools its windowed layers apart (is_hybrid_swa_model)
SPLIT_SINCE: dict[str, tuple[int, int, int]] = {
    "gpt_oss": (0, 5, 8),
    "llama4": (0, 5, 8),
    "llama4_text": (0, 5, 8),
    "gemma4": (0, 5, 11),
    "gemma4_text": (0, 5, 11),
}
_WINDOWED = (LayerKind.SLIDING, LayerKind.CHUNKED)


class SwaSplit(NamedTuple):
    """What one token costs on one GPU in each pool (bytes): the full-attention layers' (with a drafter's) and the
    windowed layers'."""

    full_bytes: int
    swa_bytes: int

    @property
    def cell(self) -> float:
        """Bytes per full-pool token, the windowed pool's share included (``F x n_full + r x S x n_swa``).

        >>> SwaSplit(1000, 1000).cell
        1800.0
        """
        return self.full_bytes + SWA_FULL_TOKENS_RATIO * self.swa_bytes

    def full_tokens(self, rest_bytes: int) -> int:
        """The full pool's tokens a budget holds, before pages (``int(available_bytes // cell_size)``).

        >>> SwaSplit(1000, 1000).full_tokens(18_000)
        10
        """
        return int(max(0, rest_bytes) // self.cell)

    def pool_bytes(self, full_tokens: int, page_size: int) -> int:
        """Both pools' bytes for ``full_tokens`` full-pool tokens.

        >>> SwaSplit(1000, 1000).pool_bytes(10, 1)
        18000
        """
        return full_tokens * self.full_bytes + swa_tokens(full_tokens, page_size) * self.swa_bytes


def swa_tokens(full_tokens: int, page_size: int) -> int:
    """The windowed pool's tokens, in whole pages (``align_page_size(int(full_tokens x r))``).

    >>> swa_tokens(1710, 1), swa_tokens(1000, 64)
    (1368, 768)
    """
    return int(full_tokens * SWA_FULL_TOKENS_RATIO) // page_size * page_size


def pools_apart(model: ModelSpec, version: str, capability: tuple[int, int] | None, speculative: bool) -> bool:
    """Whether SGLang ``version`` splits ``model``'s pool by layer kind (module docstring); the device's compute
    ``capability`` decides the gpt-oss exception of 0.5.8 and 0.5.9 (SM100)."""
    since = SPLIT_SINCE.get(model.model_type)
    if since is None or not any(kind in _WINDOWED for kind in model.kv_kinds):
        return False
    release = parse_version(version)
    if release < since:
        return False
    if model.model_type == "gpt_oss" and release < (0, 5, 10):
        sm100 = capability is not None and capability[0] == 10
        return not sm100 and not (speculative and release < (0, 5, 9))
    return True


def request_apart(request: PlanRequest, version: str) -> bool:
    """:func:`pools_apart` for a planned request."""
    capability = request.gpu.platform.capability if request.gpu is not None else None
    speculative = request.deployment is not None and request.deployment.speculative is not None
    return pools_apart(request.model, version, capability, speculative)


def cap_bytes(ctx: StageContext, version: str, cap_tokens: int, page_size: int, per_token_bytes: int) -> int:
    """``--max-total-tokens`` (``cap_tokens``, whole pages) in bytes on a GPU of ``ctx`` (``per_token_bytes`` a token
    in every layer): where the windowed layers have their own pool, from 0.5.11 the full pool's tokens and its share;
    before, a count over every layer (:func:`settle`)."""
    capability = ctx.platform.capability if ctx.platform is not None else None
    split = pools_apart(ctx.model, version, capability, ctx.speculative) and parse_version(version) >= (0, 5, 11)
    if not split:
        return cap_tokens * per_token_bytes
    span = range(*(ctx.layers or (0, ctx.model.num_hidden_layers)))
    drafter = per_token_bytes - kv_bytes_per_token_in_layers(ctx.model, ctx.kv_dtype, ctx.tensor_parallel, span)
    stage = (span, ctx.is_last_stage)
    return swa_split(ctx.model, ctx.kv_dtype, ctx.tensor_parallel, stage, drafter, version).pool_bytes(
        cap_tokens, page_size
    )


def swa_split(
    model: ModelSpec, kv_dtype: str, tp: int, stage: tuple[range, bool], drafter: int, version: str
) -> SwaSplit:
    """Per-token bytes of the full-attention layers (with the ``drafter``'s cache) and of the windowed layers of a
    ``stage`` (its layers, and whether it is the last) on one GPU, as SGLang ``version`` counts the layers (module
    docstring: every ``layer_types`` entry; a stage before the last with the next stage's first layer until
    0.5.20)."""
    layers, last = stage
    extra = 0 if last or parse_version(version) >= (0, 5, 21) else 1
    kinds = model.layers[layers.start : min(layers.stop + extra, model.num_hidden_layers)]
    full = kinds.count(LayerKind.FULL) * kv_bytes_per_token_per_layer(model, kv_dtype, tp, LayerKind.FULL)
    windowed = sum(kinds.count(k) * kv_bytes_per_token_per_layer(model, kv_dtype, tp, k) for k in _WINDOWED)
    return SwaSplit(full + drafter, windowed)


def settle(found: list[Pool], page_size: int, cap: int | None, version: str) -> Pool:
    """The first rank's pool with the tokens every stage holds (the tightest wins), in whole pages and at most
    ``cap``: the full pool's (0.5.11 on), or, split, the count over every layer capped and aligned before the split
    (0.5.8-0.5.10). ``profiled`` is what SGLang compares a cap with."""
    first = found[0]
    if first.split is not None and parse_version(version) < (0, 5, 11):
        every = min(max(0, p.rest_bytes) // p.cell_bytes if p.cell_bytes else 0 for p in found)
        held = (every if cap is None else min(every, cap)) // page_size * page_size
        full = int(held * first.cell_bytes // first.split.cell) // page_size * page_size
        return first._replace(tokens=full, profiled=every)
    profiled = min(p.tokens for p in found) or 0
    tokens = profiled // page_size * page_size
    return first._replace(tokens=tokens if cap is None else min(tokens, cap), profiled=profiled)


def pool_failure(
    first: Pool, fraction: float, model: ModelSpec, release: tuple[str, int]
) -> tuple[FailureKind, str] | None:
    """SGLang's refusals of a pool with no room (``release``: its version and page size): none left after the
    weights, too small for one request, or a windowed pool too small for one window (:func:`split_failure`)."""
    version, page_size = release
    if first.tokens <= 0:
        unloaded = load_failure(first.weights_bytes, first.before_bytes)  # the weights alone: before any pool
        if unloaded is not None:
            return "weights-oom", unloaded
        available = first.before_bytes - first.weights_bytes  # free after loading, on the first rank
        why = no_memory_failure(version, fraction, available, first.before_bytes, first.rest_bytes)
        return "no-kv-memory", why
    if first.tokens <= 6:  # max_req_input_len = min(context_len, tokens) - 6 must be positive (tp_worker.py)
        return "no-kv-memory", "AssertionError: Memory pool size is too small"
    windowed = split_failure(model, first, page_size, version)
    return None if windowed is None else ("kv-cache-too-small", windowed)


def split_failure(model: ModelSpec, pool: Pool, page_size: int, version: str) -> str | None:
    """SGLang's refusal of a windowed pool that cannot hold a window and a page (0.5.16 on; ``None``: it holds one).

    >>> from model_catalog import get_model
    >>> scout = get_model("meta-llama/Llama-4-Scout-17B-16E").spec
    >>> split_failure(scout, Pool(10_000, 10_000, 1, 1, 1, 1, SwaSplit(1, 1)), 1, "0.5.18")[:51]
    'ValueError: SWA pool (8000 tokens) cannot hold even'
    """
    window = model.sliding_window or model.attention_chunk_size
    swa = swa_tokens(pool.tokens, page_size)
    if pool.split is None or window is None or parse_version(version) < (0, 5, 16) or window + page_size < swa:
        return None
    return (
        f"ValueError: SWA pool ({swa} tokens) cannot hold even one request: the prefill admission floor is "
        f"sliding_window_size ({window}) + page_size ({page_size}). Increase --swa-full-tokens-ratio or the total KV "
        "budget."
    )


def split_line(full_tokens: int, page_size: int) -> str:
    """SGLang's line for the split (0.5.7 on; a public Gemma 4 start-up: 'Use sliding window memory pool.
    full_layer_tokens=1710, swa_layer_tokens=1368').

    >>> split_line(1710, 1)
    'Use sliding window memory pool. full_layer_tokens=1710, swa_layer_tokens=1368'
    """
    return (
        f"Use sliding window memory pool. full_layer_tokens={full_tokens}, "
        f"swa_layer_tokens={swa_tokens(full_tokens, page_size)}"
    )


class Pool(NamedTuple):
    """The pool SGLang sizes, with the first rank's figures (the tightest stage sets the tokens)."""

    tokens: int
    profiled: int  # what SGLang compares --max-total-tokens with (settle)
    cell_bytes: int  # KV bytes per token on the first rank
    rest_bytes: int  # its budget for the pool: f x pre_model_load_memory - what loaded
    weights_bytes: int
    before_bytes: int  # free when its weights start loading (pre_model_load_memory)
    split: SwaSplit | None = None  # the windowed layers' pool apart (:func:`pools_apart`)

    def pool_bytes(self, tokens: int, page_size: int) -> int:
        """Bytes of a pool of ``tokens`` (the full pool's, where the windowed layers have their own)."""
        return tokens * self.cell_bytes if self.split is None else self.split.pool_bytes(tokens, page_size)
