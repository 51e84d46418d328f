"""vLLM's KV-cache block accounting on one rank (``vllm/v1/core/kv_cache_utils.py``,
``vllm/v1/kv_cache_interface.py``).

- page = ``block_size x kv_heads_per_gpu x (head_dim K + head_dim V) x dtype bytes`` per layer (MLA: one
  latent, not split by TP; KV heads ``max(1, kv // tp)``, replicated when TP exceeds them);
- one KV-cache group when every layer has the same spec, ``num_blocks = available // page // layers``;
- hybrid sliding-window / full models: groups of equal size (the smaller type's count, or the larger one
  when the counts are within 1.5x), padding layers fill the last group; ``num_blocks = available // page //
  group_size``; the printed token count is ``num_blocks // groups x block_size``; layers whose page is smaller
  take a larger block, so every page is the largest (:func:`unified_blocks`);
- max concurrency = ``num_blocks / pages one request of max_model_len needs`` (a sliding-window group needs
  ``cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1`` pages);
- all ranks use the smallest block count (pipeline stages differ); rank 0 prints its available memory;
- hybrid attention + Mamba / Gated DeltaNet models: :mod:`planner.engines.vllm.mamba` (block size, pages per
  request); one rank's sizing: :mod:`planner.engines.vllm.stage`.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import BaseModel, SkipValidation

from planner.bounds.walltime import check
from planner.core.blocks import LayerKind
from planner.core.model import ModelSpec
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.versions import KvCheck

LayerKey = tuple[str, int]  # (spec type, window) of one layer as vLLM groups it


def layer_key(model: ModelSpec, kind: LayerKind, hybrid: bool) -> LayerKey:
    """(spec type, window) of one layer as vLLM groups it."""
    if kind is LayerKind.LINEAR:
        return ("mamba", 0)
    if kind is LayerKind.SLIDING and hybrid:
        return ("sliding", model.sliding_window or 0)
    if kind is LayerKind.CHUNKED and hybrid:
        return ("chunked", model.attention_chunk_size or 0)
    return ("full", 0)


def unified_blocks(block: int, per_token: dict[str, int]) -> tuple[int, tuple[tuple[str, int], ...]]:
    """(page bytes, the block of each spec type whose block differs from ``block``): vLLM gives every layer of a
    hybrid model one page size by raising the block of the layers with the smaller page to the largest page
    (``unify_kv_cache_spec_page_size``, ``vllm/v1/core/kv_cache_utils.py``: ``new_block_size = block_size x
    max_page_size // page_size``); ``per_token``: bytes per token of one layer of each spec type ("full",
    "sliding", "chunked") on the rank. A page that does not divide the largest keeps its block (vLLM pads it
    where the backend allows, else refuses). Gemma 4's sliding layers (head 256) beside its full ones (512) take
    blocks of 32 beside 16, so one request's sliding pages are half as many.

    >>> unified_blocks(16, {"sliding": 2048, "full": 4096})
    (65536, (('sliding', 32),))
    >>> unified_blocks(16, {"full": 4096})
    (65536, ())
    """
    page = block * max(per_token.values())
    raised = tuple(
        (kind, page // size)  # block x (page // (block x size)): the block whose page is the largest
        for kind, size in per_token.items()
        if size and block * size != page and page % (block * size) == 0
    )
    return page, raised


def block_of(stage: VllmStage, key: LayerKey) -> int:
    """The block size of the layers of ``key``'s spec type on ``stage`` (:func:`unified_blocks`)."""
    for kind, size in stage.kind_blocks:
        if kind == key[0]:
            return size
    return stage.block_size


def pages_per_request(key: LayerKey, max_model_len: int, block: int, batched_tokens: int, mamba_pages: int = 1) -> int:
    """Pages one request of ``max_model_len`` needs in one layer of this spec (``max_memory_usage_bytes``; a
    linear layer's ``mamba_pages`` from :func:`planner.engines.vllm.mamba.state_pages_per_request`)."""
    kind, window = key
    if kind == "mamba":
        return mamba_pages
    if kind == "sliding":
        return math.ceil(min(window - 1 + batched_tokens, max_model_len) / block) + 1
    if kind == "chunked":
        return math.ceil(min(window + batched_tokens, max_model_len) / block)
    return math.ceil(max_model_len / block)


class VllmStage(BaseModel, frozen=True, extra="forbid"):
    """One rank of one pipeline stage as vLLM sizes it."""

    available: int
    weights: int
    activation: int
    non_torch: int
    cuda_graph: int
    page_bytes: int
    block_size: int
    group_size: int
    groups: tuple[LayerKey, ...]  # the spec of each group
    # The spec of each layer of the stage. Not validated again: its one maker (planner.engines.vllm.stage's
    # _layer_keys) builds it of layer_key()'s (str, int) pairs, and checking every layer's pair cost ~3x the rest of
    # the stage (80 layers); tests/advisor/test_rank_shortcuts.py checks it is what validation would give.
    layer_keys: SkipValidation[tuple[LayerKey, ...]]
    blocks: int
    # The block of each spec type vLLM raised to unify its smaller page (:func:`unified_blocks`); others: block_size.
    kind_blocks: tuple[tuple[str, int], ...] = ()
    draft_page_bytes: int = 0  # a separate draft model's layers per block (their pages join the pool)
    lookahead_tokens: int = 0  # slots reserved per request for speculative tokens
    mamba_pages: int = 1  # pages a request holds in each linear (Mamba / Gated DeltaNet) layer
    spec_tokens: int = 0  # speculative tokens per step (0: none)
    graphs: GraphSet = GraphSet()
    capacity: int | None = None  # the extensible KV cache's capacity, printed as "Available KV cache memory" (0.34)
    kv_check: KvCheck = "layers"  # how the start-up check counts a request's pages (:func:`needed_bytes`)

    # The spec counts of the layer keys, kept on the instance once read (:attr:`spec_counts`; a frozen stage's keys
    # never change, a copy starts without them): every assessment reads them a few times, and looking them up by
    # the keys themselves hashes every layer's key each time.
    __slots__ = ("_counts_kept",)
    if TYPE_CHECKING:  # the slot, not a field nor a private attribute: pydantic does not see it
        _counts_kept: tuple[tuple[LayerKey, int], ...]

    @property
    def block_bytes(self) -> int:
        """What one block holds across the pool: a page in each layer slot of a group, and the drafter's."""
        return self.page_bytes * self.group_size + self.draft_page_bytes

    @property
    def spec_counts(self) -> tuple[tuple[LayerKey, int], ...]:
        """Each spec of :attr:`layer_keys` with its number of layers, in the order of first appearance."""
        try:
            kept = self._counts_kept
        except AttributeError:
            kept = spec_counts(self.layer_keys)
            object.__setattr__(self, "_counts_kept", kept)
        return kept

    def keeping_counts(self, counts: tuple[tuple[LayerKey, int], ...]) -> VllmStage:
        """This stage, with ``counts`` kept as its :attr:`spec_counts`: for its maker, which has them
        (planner.engines.vllm.stage keeps them with the layer keys it counted them from)."""
        object.__setattr__(self, "_counts_kept", counts)
        return self


class StageOverrides(BaseModel, frozen=True, extra="forbid"):
    """Figures measured from a log that replace the estimates (``None``: estimate); measured weights reach the plan
    itself (:meth:`planner.engines.vllm.calibrated.Calibrated.loaded_weights_bytes`)."""

    activation: int | None = None
    non_torch: int | None = None
    cuda_graph: int | None = None
    util_total: int | None = None  # the device total the log printed


def groups_of(keys: tuple[LayerKey, ...]) -> tuple[int, tuple[LayerKey, ...]]:
    """(group size, the spec of each group): vLLM's ``_get_kv_cache_groups_uniform_page_size``."""
    counts = Counter(keys)
    if len(counts) <= 1:
        return max(1, len(keys)), tuple(counts) or (("full", 0),)
    low, high = min(counts.values()), max(counts.values())
    group_size = high if high < 1.5 * low else low
    return group_size, tuple(key for key, n in counts.items() for _ in range(math.ceil(n / group_size)))


@lru_cache(maxsize=256)  # a stage's layer keys recur in every plan of its split
def spec_counts(keys: tuple[LayerKey, ...]) -> tuple[tuple[LayerKey, int], ...]:
    """Each spec of ``keys`` with its number of layers, in the order of first appearance."""
    return tuple(Counter(keys).items())


def has_linear_layers(stage: VllmStage) -> bool:
    """Whether any layer of ``stage`` is a linear-attention (Mamba / Gated DeltaNet) one: read off its spec counts
    (a few specs, :attr:`VllmStage.spec_counts`) instead of every layer (the start-up checks ask it of every
    assessment)."""
    return any(key[0] == "mamba" for key, _ in stage.spec_counts)


def needed_bytes(stage: VllmStage, max_model_len: int, batched_tokens: int) -> int:
    """KV bytes one request of ``max_model_len`` needs on this rank (``check_enough_kv_cache_memory``), a
    speculative proposer's pages (with its look-ahead slots) included. By the release's rule ``kv_check``
    (``versions.toml``): each layer's own pages; or, from 0.14 (``_max_memory_usage_bytes_from_groups``), the group
    size times the pages of the first group (0.14-0.18) or of every group (0.19 on), padding slots included."""

    def pages(key: LayerKey) -> int:
        return pages_per_request(key, max_model_len, block_of(stage, key), batched_tokens, stage.mamba_pages)

    if stage.kv_check == "groups":
        own = stage.group_size * stage.page_bytes * sum(pages(key) for key in stage.groups)
    elif stage.kv_check == "first-group":
        own = stage.group_size * stage.page_bytes * pages(stage.groups[0])
    else:  # layers of one spec need the same pages: counted once per spec (integers: the same sum)
        own = sum(n * pages(key) * stage.page_bytes for key, n in stage.spec_counts)
    draft = math.ceil((max_model_len + stage.lookahead_tokens) / stage.block_size) * stage.draft_page_bytes
    return own + draft


def estimate_max_len(stages: list[VllmStage], limit: int, batched_tokens: int) -> int:
    """The largest length whose request fits on every rank (``estimate_max_model_len``: a binary search over
    ``[0, limit]``). It first probes :func:`_whole_blocks` and the length after it: each probe narrows the bracket
    as a step of the search would (:func:`needed_bytes` never falls as the length grows: every term is a ceiling
    or a minimum of the length, or a constant), so the answer is the search's, found in three probes instead of
    ~17 when every layer is full attention."""

    def fits(length: int) -> bool:
        return all(needed_bytes(s, length, batched_tokens) <= s.available for s in stages)

    low, high = 0, limit
    guess = _whole_blocks(stages, limit, batched_tokens)
    if guess is not None and fits(guess):
        low = guess
        if guess == limit or not fits(guess + 1):
            return guess
        low = guess + 1
    elif guess is not None:
        high = guess - 1
    while low < high:
        check()
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _whole_blocks(stages: list[VllmStage], limit: int, batched_tokens: int) -> int | None:
    """The whole blocks of a request every rank holds, in tokens, when each block costs what the first does (exact
    for full attention without a drafter: ``needed_bytes`` is then ``ceil(length / block)`` times that of one
    block), within ``[0, limit]``; ``None`` when a rank's first block costs nothing."""
    blocks = []
    for s in stages:
        first = needed_bytes(s, s.block_size, batched_tokens)
        if first <= 0:
            return None
        blocks.append(max(0, s.available) // first * s.block_size)
    return min(limit, *blocks)
