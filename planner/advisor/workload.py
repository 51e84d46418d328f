"""Who is served: a :class:`Workload` (how many at once, how long, at what price and speed) and named presets."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.advisor.overflow import ContextDistribution
from planner.bounds.errors import PlannerError
from planner.core.sale import DEFAULT_CLOUD_TIER, CloudTier

PositiveInt = Annotated[int, Field(gt=0)]
PositiveFloat = Annotated[float, Field(gt=0)]

DEFAULT_TOKENS_PER_S_PER_USER = 20.0  # Little's law without a speed target: a comfortable reading stream
DEFAULT_MIN_TOKENS_PER_S_PER_USER = 10.0  # the default speed floor of a Workload
# Without a first-token target of the buyer's own, a typical prompt slower than this keeps the verdict from green:
# the bound MLPerf Inference's server scenario sets its longest-prompt LLM benchmark (Llama 3.1 405B,
# ttft_latency = 6000 ms at the 99th percentile; Llama 2 70B and Llama 3.1 8B: 2000 ms), mlcommons/inference
# loadgen/mlperf.conf at 001712e9; for prompts up to MLPERF_PROMPT_TOKENS (first_token_bound_s).
SLOW_FIRST_TOKEN_S = 6.0
# The prompts that bound is set for: MLPerf Inference v5.0's Llama 3.1 405B benchmark (long-context summarisation,
# needle-in-a-haystack and question answering, mlcommons.org/2025/04/llm-inference-v5), "Median input token length:
# ~9,500" with "Time to first token (99th percentile): 6 seconds" (TechArena on the v5.0 release,
# techarena.ai/content/ai-benchmarks-shift-as-mlperf-highlights-llm-dominance). No published figure for its
# longest prompt was found; the median is the length the bound is known to be met at.
MLPERF_PROMPT_TOKENS = 9_500


def first_token_bound_s(prompt_tokens: int) -> float:
    """The first-token time MLPerf Inference's server bound allows a prompt of ``prompt_tokens``:
    :data:`SLOW_FIRST_TOKEN_S` up to :data:`MLPERF_PROMPT_TOKENS`, beyond it in proportion to the prompt,
    ``6 s x prompt / 9,500`` (62 s at 98,304 tokens).

    Scaled, because MLPerf sets its 6 s for the prompts it tests and none for longer ones, and prefill time grows
    with the prompt (its matmuls in proportion, attention with its square: Kaplan et al. 2020, arXiv:2001.08361,
    forward FLOPs a token 2N + 2 n_layer n_ctx d_attn): 6 s applied to a 98,304-token first prompt had put only
    8-GPU baseboards ($272,010 and up) in the top three for five users of Llama 3.3 70B at 128k, where four GPUs
    read it in 8-30 s (an outside review, 2026-12-06). In proportion, because that keeps the prefill rate the bound
    asks at MLPerf's prompts (~1,600 tokens a second): stricter at longer prompts than the same hardware reaches as
    attention's share grows (about the matmuls' for Llama 3.3 70B at 98,304 tokens), while the reference is the
    benchmark's median prompt, not its longest (unpublished in the sources found), which leans the other way. Not a
    mere note beyond MLPerf's prompts, because a first token minutes away (eight RTX A6000s: 72 s for that prompt)
    is slow at any length. A buyer's own first-token target filters instead
    (:func:`planner.advisor.ranking.filter_reason`).

    >>> first_token_bound_s(2_000), first_token_bound_s(9_500), round(first_token_bound_s(98_304), 1)
    (6.0, 6.0, 62.1)
    """
    return SLOW_FIRST_TOKEN_S * max(1.0, prompt_tokens / MLPERF_PROMPT_TOKENS)


VENDORS = ("NVIDIA", "AMD", "Intel", "Apple")
FORM_FACTORS = ("card", "pair", "baseboard", "machine", "rack")  # how a GPU is sold (planner.core.gpu.PurchaseUnit)
Pricing = Literal["purchase", "cloud"]
PlanAt = Literal["mean", "p95", "max"]


class ContextPreset(BaseModel, frozen=True, extra="forbid"):
    """A named workload shape: its figures are judgement calls, stated with a one-line reason."""

    name: str
    label: str
    context: ContextDistribution
    mean_prompt_tokens: int
    mean_output_tokens: int
    justification: str


PRESETS: dict[str, ContextPreset] = {
    p.name: p
    for p in (
        ContextPreset(
            name="support-chat",
            label="Support chat",
            context=ContextDistribution(mean_tokens=2_000, p95_tokens=6_000, max_tokens=8_192),
            mean_prompt_tokens=1_500,
            mean_output_tokens=300,
            justification=(
                "a ~1k-token system prompt plus a few short turns; the tail is users pasting logs or long emails"
            ),
        ),
        ContextPreset(
            name="rag",
            label="RAG over documents",
            context=ContextDistribution(mean_tokens=6_000, p95_tokens=12_000, max_tokens=32_768),
            mean_prompt_tokens=5_000,
            mean_output_tokens=400,
            justification="5-10 retrieved chunks of 500-1,000 tokens plus the question; answers are short",
        ),
        ContextPreset(
            name="coding-agent",
            label="Coding agent",
            context=ContextDistribution(mean_tokens=24_000, p95_tokens=64_000, max_tokens=131_072),
            mean_prompt_tokens=20_000,
            mean_output_tokens=800,
            justification="repository files and tool outputs pile up over many agent steps; long sessions dominate",
        ),
        ContextPreset(
            name="long-document",
            label="Long-document analysis",
            context=ContextDistribution(mean_tokens=40_000, p95_tokens=100_000, max_tokens=131_072),
            mean_prompt_tokens=38_000,
            mean_output_tokens=1_000,
            justification="whole reports, contracts or filings in the prompt; one long read, a summary back",
        ),
    )
}


class Workload(BaseModel, frozen=True, extra="forbid"):
    """Who is served: how many at once (or how many requests per second), how long, at what price and speed."""

    concurrent_conversations: PositiveInt | None = None
    requests_per_s: PositiveFloat | None = None
    mean_prompt_tokens: PositiveInt = 1_000
    mean_output_tokens: PositiveInt = 300
    # Tokens of each prompt the engine has not cached (prefix caching keeps a chat's earlier turns); None: the
    # whole prompt but the shared prefix.
    new_prompt_tokens: PositiveInt | None = None
    context: ContextDistribution
    plan_at: PlanAt = "p95"  # the per-conversation length each option is sized for
    shared_prefix_tokens: Annotated[int, Field(ge=0)] = 0  # a system prompt every conversation shares
    pricing: Pricing = "purchase"
    # The tier rentals are priced in (pricing "cloud"): offers are compared only within one (planner.core.sale).
    cloud_tier: CloudTier = DEFAULT_CLOUD_TIER
    budget_usd: PositiveFloat | None = None  # purchase: total; cloud: per month (HOURS_PER_MONTH hours)
    gpu_ids: tuple[str, ...] | None = None  # candidate GPUs; None: the whole catalog
    max_time_to_first_token_s: PositiveFloat | None = None
    # A floor below which streaming chat feels broken; None: no speed target.
    min_tokens_per_s_per_user: PositiveFloat | None = DEFAULT_MIN_TOKENS_PER_S_PER_USER
    preset: str | None = None  # the preset it came from, for labels
    # The buyer's constraints (None: no constraint).
    weights: tuple[str, ...] | None = None  # weight precisions allowed (e.g. no 4-bit)
    engines: tuple[str, ...] | None = None  # serving engines allowed (planner.advisor.support.ENGINE_PREFERENCE)
    vendors: tuple[str, ...] | None = None  # GPU vendors allowed
    form_factors: tuple[str, ...] | None = None  # purchase kinds allowed: card, pair, baseboard, machine, rack
    # The GPU's share of a unified-memory machine's memory; None: each machine's OS default.
    unified_memory_share: Annotated[float, Field(gt=0, le=1)] | None = None
    # Offered only when asked for (also when named in gpu_ids, or by vendor / form factor): parts sold in one
    # market only (China's export-compliance SKUs) and desktops or laptops (Macs, DGX Spark, Strix Halo).
    include_restricted: bool = False
    include_personal: bool = False
    # Running-cost assumptions; None: the catalog's (model_catalog/running_costs.toml).
    usd_per_kwh: Annotated[float, Field(gt=0, le=10)] | None = None
    pue: Annotated[float, Field(ge=1, le=5)] | None = None
    life_years: Annotated[float, Field(gt=0, le=20)] | None = None

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if (self.concurrent_conversations is None) == (self.requests_per_s is None):
            raise ValueError("give exactly one of concurrent_conversations and requests_per_s")
        if self.shared_prefix_tokens > self.context_tokens:
            raise ValueError("shared_prefix_tokens cannot exceed the planning context")
        if self.new_prompt_tokens is not None and self.new_prompt_tokens > self.mean_prompt_tokens:
            raise ValueError("new_prompt_tokens cannot exceed mean_prompt_tokens")
        if self.plan_at == "max" and self.context.max_tokens is None:
            raise ValueError("plan_at 'max' needs context.max_tokens")
        for name in ("weights", "engines", "vendors", "form_factors"):
            if getattr(self, name) == ():
                raise ValueError(f"{name}: give at least one, or None for no constraint")
        bad = [v for v in self.vendors or () if v not in VENDORS]
        bad += [f for f in self.form_factors or () if f not in FORM_FACTORS]
        if bad:
            raise ValueError(f"unknown vendor or form factor {', '.join(bad)}")
        return self

    @classmethod
    def from_preset(cls, name: str, **fields: object) -> Workload:
        """A workload with a preset's context distribution and mean prompt and output lengths."""
        if name not in PRESETS:
            raise PlannerError(f"preset: unknown {name!r}; choose one of {', '.join(PRESETS)}")
        preset = PRESETS[name]
        data: dict[str, object] = {
            "context": preset.context,
            "mean_prompt_tokens": preset.mean_prompt_tokens,
            "mean_output_tokens": preset.mean_output_tokens,
            "preset": name,
        }
        data.update(fields)
        return cls.model_validate(data)

    @classmethod
    def fixed_length(cls, context_tokens: int, **fields: object) -> Workload:
        """Every conversation ``context_tokens`` long, a chat: prompts of three quarters of it (a cold start reads
        them whole), replies of a quarter (at most 1,000 tokens); each turn adds a user message about as long as a
        reply, the earlier turns being in the prefix cache (vLLM, SGLang and TensorRT-LLM reuse cached prefixes)."""
        dist = ContextDistribution(mean_tokens=context_tokens, p95_tokens=context_tokens, max_tokens=context_tokens)
        output = max(1, min(1000, context_tokens // 4))
        data: dict[str, object] = {
            "context": dist,
            "mean_prompt_tokens": max(1, context_tokens * 3 // 4),
            "mean_output_tokens": output,
            "new_prompt_tokens": output,
        }
        data.update(fields)
        return cls.model_validate(data)

    @property
    def context_tokens(self) -> int:
        """The length each conversation is sized for (the distribution's mean, p95 or cap)."""
        if self.plan_at == "mean":
            return self.context.mean_tokens
        if self.plan_at == "max":
            assert self.context.max_tokens is not None  # validated
            return self.context.max_tokens
        return self.context.p95_tokens

    @property
    def target_concurrency(self) -> int:
        """Conversations held at once: as given, or by Little's law from the request rate."""
        if self.concurrent_conversations is not None:
            return self.concurrent_conversations
        assert self.requests_per_s is not None  # validated
        speed = self.min_tokens_per_s_per_user or DEFAULT_TOKENS_PER_S_PER_USER
        seconds = self.mean_output_tokens / speed + (self.max_time_to_first_token_s or 0.0)
        return max(1, math.ceil(self.requests_per_s * seconds))

    @property
    def target_note(self) -> str:
        if self.concurrent_conversations is not None:
            n = self.concurrent_conversations
            return f"{n:,} concurrent conversation{'s' if n != 1 else ''} (given)"
        speed = self.min_tokens_per_s_per_user or DEFAULT_TOKENS_PER_S_PER_USER
        return (
            f"{self.target_concurrency:,} concurrent conversations by Little's law: {self.requests_per_s:g} "
            f"requests/s x ({self.mean_output_tokens:,} output tokens / {speed:g} tokens/s per user"
            + (f" + {self.max_time_to_first_token_s:g} s to first token" if self.max_time_to_first_token_s else "")
            + ")"
        )

    @property
    def uncached_prompt_tokens(self) -> int:
        """Tokens of a prompt the engine prefills at the target load (the rest is in its prefix cache)."""
        if self.new_prompt_tokens is not None:
            return self.new_prompt_tokens
        return max(1, self.mean_prompt_tokens - self.shared_prefix_tokens)
