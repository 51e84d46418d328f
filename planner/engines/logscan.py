"""The primitives of the log parser: a bounded, line-by-line scan with keyword-gated anchored patterns, numbers of
bounded length, and the failures engines print (see :mod:`planner.sources.logs`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from planner.bounds.errors import PlannerError
from planner.core.overhead import FailureKind

MAX_LOG_CHARS = 4_000_000  # a whole DEBUG start-up log of a multi-GPU run is ~1 MB; the dashboard box takes 200,000
MAX_NUMBER_DIGITS = 15
NUM = r"(-?\d[\d,]*(?:\.\d+)?)"  # one number: digits (thousands commas allowed), an optional fraction


def number(text: str, what: str) -> float:
    """A printed figure as a float; one with more than :data:`MAX_NUMBER_DIGITS` digits is refused."""
    digits = sum(1 for char in text if char.isdigit())
    if digits > MAX_NUMBER_DIGITS:
        raise PlannerError(
            f"log: the {what} figure has {digits} digits ({text[:24]}...); a memory figure has at most "
            f"{MAX_NUMBER_DIGITS}, so this is not an engine's line"
        )
    return float(text.replace(",", ""))


class Lines:
    """The text's lines, newest last; each regular expression meets only the lines holding its keyword."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.text = text
        self.rank = ""  # "(Worker_PP0 pid=441)": the process that printed the available KV memory

    def find_rank(self, keyword: str) -> None:
        """Remember which process printed ``keyword`` (multi-GPU logs repeat the profiling line per rank)."""
        for line in self.lines:
            if keyword in line and line.startswith("(") and ")" in line[:80]:
                self.rank = line[: line.index(")") + 1]
                return

    def has(self, keyword: str) -> bool:
        return keyword in self.text

    def matches(self, keyword: str, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Every match on the lines holding ``keyword``, the last line first."""
        if keyword not in self.text:
            return
        for line in reversed(self.lines):
            if keyword in line:
                yield from reversed(list(pattern.finditer(line)))

    def last(self, keyword: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The last match, preferring the lines of the rank that printed the available KV memory."""
        if self.rank:
            for match in self.matches(keyword, pattern):
                if match.string.startswith(self.rank):
                    return match
        return next(self.matches(keyword, pattern), None)

    def number(self, keyword: str, pattern: re.Pattern[str], what: str, group: int = 1) -> float | None:
        match = self.last(keyword, pattern)
        return None if match is None else number(match.group(group), what)


def pattern(text: str) -> re.Pattern[str]:
    """``text`` compiled, each ``NUM`` standing for one bounded number."""
    return re.compile(text.replace("NUM", NUM))


# Failures, by the engine's own wording: (keyword, kind).
_FAILURES: tuple[tuple[str, FailureKind], ...] = (
    ("on startup is less than desired GPU memory utilization", "free-memory"),
    ("out of memory occurred when warming up sampler", "sampler-oom"),
    ("is not divisible by", "tp-indivisible"),
    ("must be divisible by tensor parallel size", "tp-indivisible"),
    ("is greater than the derived max_model_len", "max-model-len"),
    ("estimated maximum model length is", "kv-cache-too-small"),
    ("is larger than the maximum number of tokens that can be stored in KV cache", "kv-cache-too-small"),
    ("No available memory for the cache blocks", "no-kv-memory"),
    ("exceeds available Mamba cache blocks", "mamba-blocks"),
    ("Chunked MM input disabled but max_tokens_per_mm_item", "mm-item-batch"),
    ("In Mamba cache align mode, block_size", "mamba-align-step"),
    ("Not enough memory. Please try to increase --mem-fraction-static", "no-kv-memory"),
    ("Loaded weights leave no GPU memory for the KV cache", "no-kv-memory"),  # SGLang from 0.5.14
    ("CUDA out of memory", "out-of-memory"),
)


# The graph profiling's throwaway KV cache (planner.engines.vllm.profiling_kv): an out-of-memory error raised in
# this function, which the traceback names.
PROFILING_KV = "_init_minimal_kv_cache_for_profiling"
OUT_OF_MEMORY = ("CUDA out of memory", "CUDA error: out of memory", "OutOfMemoryError")


# Out-of-memory errors vLLM raises after the KV pool, in ``compile_or_warm_up_model``, named by the traceback's frames
# (0.27.1 ``v1/worker/gpu_worker.py``): the CUDA-graph capture (:717 ``self.model_runner.capture_model()``; the log's
# 'torch.AcceleratorError: CUDA error: out of memory') and Model Runner V2's kernel warm-up (:795 ``warmup_kernels``)
# failing in its sampler (``v1/worker/gpu/sample/sampler.py:252``), which prints no message of its own as V1's
# sampler warm-up does ('out of memory occurred when warming up sampler', ``gpu_model_runner.py:6303-6310``).
CAPTURE = "capture_model"
V2_WARMUP = "warmup_kernels"
SAMPLER_FRAME = re.compile(r"sampler\.py\"?,? line \d+")


def _oom_line(lines: Lines) -> str | None:
    """The last line saying the device ran out of memory, when one does."""
    if not any(lines.has(k) for k in OUT_OF_MEMORY):
        return None
    return next(line for line in reversed(lines.lines) if any(k in line for k in OUT_OF_MEMORY)).strip()[:400]


def _after_pool_oom(lines: Lines) -> tuple[FailureKind, str] | None:
    """An out-of-memory error the traceback places in the graph capture or in V2's sampler warm-up."""
    oom = _oom_line(lines)
    if oom is None:
        return None
    if lines.has(CAPTURE):
        return "graph-capture-oom", oom
    if lines.has(V2_WARMUP) and any(SAMPLER_FRAME.search(line) for line in lines.lines):
        return "sampler-oom", oom
    return None


def find_failure(lines: Lines) -> tuple[FailureKind, str] | None:
    """The first failure the log shows, with the line that says it."""
    if lines.has(PROFILING_KV) and any(lines.has(k) for k in OUT_OF_MEMORY):
        line = next(line for line in lines.lines if PROFILING_KV in line)
        return "graph-profile-oom", line.strip()[:400]
    found = _after_pool_oom(lines)
    if found is not None:
        return found
    for keyword, kind in _FAILURES:
        if lines.has(keyword):
            for line in lines.lines:
                if keyword in line and ("rror" in line or kind in ("kv-cache-too-small", "mamba-blocks")):
                    return kind, line.strip()[:400]
    return None
