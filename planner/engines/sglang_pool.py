"""SGLang's KV pool (:class:`Pool`), and its hybrid sliding-window split: the windowed layers of some
architectures get a pool of their own, holding ``--swa-full-tokens-ratio`` (0.8 by default) times the
full-attention layers' tokens, so the same memory holds more full-attention tokens than if every layer kept every
token.

Read in SGLang's packages on PyPI, 0.5.2 to 0.5.23 (2026-12-06):

- **Which models.** ``configs/model_config.py`` ``is_hybrid_swa_model`` names the architectures (from 0.5.8;
  ``GptOssForCausalLM`` and ``Llama4ForConditionalGeneration``; Gemma 4 from 0.5.11). Before 0.5.8 the pool was
  split for any model with a sliding window unless ``server_args.py`` turned it off, and it turned it off for
  gpt-oss unconditionally and for Gemma 2/3 (``disable_hybrid_swa_memory = True``); Llama 4 was split only with
  ``--hybrid-kvcache-ratio`` (``is_hybrid_model``, default ``None``). So before 0.5.8 no catalog model is split.
- **Exceptions.** gpt-oss on SM100 takes the ``trtllm_mha`` attention backend by default, and 0.5.8 and 0.5.9 turn
  the split off with it ("Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention backend"); 0.5.8 also
  turns it off under speculative decoding. From 0.5.10 neither is there.
- **The sizes.** From 0.5.9 (``model_runner_kv_cache_mixin.py``; ``pool_configurator.py``
  ``HybridSWAPoolConfigurator`` from 0.5.11): ``full_tokens = rest // (F x n_full + r x S x n_swa)``, the SWA pool
  ``int(full_tokens x r)``, both in whole pages; a speculative drafter's layers count with the full ones (0.5.18:
  ``_draft_full_layers_num``). 0.5.8 solves ``full x n_full + r x full x n_swa = tokens x layers`` over layers of
  one size, which is the same where the full and windowed layers cost the same per token (gpt-oss, Llama 4).
  The scheduler's ``max_total_num_tokens`` is the full pool's.
- **Not modelled:** ``--disable-radix-cache`` with ``--max-running-requests`` (0.5.14 on: the SWA pool sized from
  the requests, ``SWAChunkCapPoolConfigurator``), hierarchical cache, and the SWA pool's own refusal when it cannot
  hold a window and a page (planned pools hold far more).
"""

from __future__ import annotations

from typing import NamedTuple

from planner.core.blocks import LayerKind
from planner.core.kv import kinds_in, kv_bytes_per_token_per_layer
from planner.core.model import ModelSpec
from planner.core.overhead import StageContext, parse_version
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
    """``--max-total-tokens`` (``cap_tokens``, whole pages) in bytes on a GPU of ``ctx``: the full pool's tokens
    and, where the windowed layers have their own pool, its share."""
    capability = ctx.platform.capability if ctx.platform is not None else None
    if not pools_apart(ctx.model, version, capability, ctx.speculative):
        return cap_tokens * per_token_bytes
    span = range(*(ctx.layers or (0, ctx.model.num_hidden_layers)))
    return swa_split(ctx.model, ctx.kv_dtype, ctx.tensor_parallel, span, per_token_bytes).pool_bytes(
        cap_tokens, page_size
    )


def swa_split(model: ModelSpec, kv_dtype: str, tensor_parallel: int, layers: range, per_token_bytes: int) -> SwaSplit:
    """``per_token_bytes`` (a token in every cached layer of ``layers`` on one GPU, a drafter's cache included)
    split into the windowed layers' and the rest, the full-attention layers' and the drafter's."""
    windowed = sum(
        count * kv_bytes_per_token_per_layer(model, kv_dtype, tensor_parallel, kind)
        for kind, count in kinds_in(model, layers.start, layers.stop)
        if kind in _WINDOWED
    )
    return SwaSplit(per_token_bytes - windowed, windowed)


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
    profiled: int  # before --max-total-tokens
    cell_bytes: int  # KV bytes per token on the first rank
    rest_bytes: int  # its budget for the pool: f x pre_model_load_memory - what loaded
    weights_bytes: int
    before_bytes: int  # free when its weights start loading (pre_model_load_memory)
    split: SwaSplit | None = None  # the windowed layers' pool apart (:func:`pools_apart`)

    def pool_bytes(self, tokens: int, page_size: int) -> int:
        """Bytes of a pool of ``tokens`` (the full pool's, where the windowed layers have their own)."""
        return tokens * self.cell_bytes if self.split is None else self.split.pool_bytes(tokens, page_size)
