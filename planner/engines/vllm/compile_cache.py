"""The torch.compile cache a start-up finds, as a launch setting (``--compile-cache``, ``VllmProfile.compile_cache``):
the releases it is planned for and what the launch command says of a cold one. The memory it moves is
:mod:`planner.engines.vllm.compile_copy`'s.

vLLM keeps what torch.compile made under ``VLLM_CACHE_ROOT`` (``~/.cache/vllm`` by default, 0.28.0 ``envs.py:34``,
``:695-701``), in ``torch_compile_cache/<hash>`` of the environment, the config, the traced code and the compiler
(``compilation/backends.py:1058-1070``). A first boot of a model and its settings, a container whose cache directory
is not a kept volume, or a changed setting finds none there and compiles: cold. ``VLLM_DISABLE_COMPILE_CACHE=1``
(``envs.py:158``, ``:353-354``, ``:1404``) makes every boot cold: vLLM loads no AOT-compiled graph
(``compilation/decorators.py:564``), saves none (``:689-690``) and turns Inductor's cache off
(``compilation/compiler_interface.py:193-208`` ``is_compile_cache_enabled``, read at ``backends.py:1081-1082``).
A restart that finds the cache loads the compiled graph and compiles nothing: warm, the planner's default.

The command of a plan made cold says so in a comment line; it does not set ``VLLM_DISABLE_COMPILE_CACHE=1``: a
boot that finds the cache only holds more KV cache than planned, and the variable would recompile on every boot.
"""

from __future__ import annotations

from typing import Literal

from planner.engines.vllm.versions import VllmRules, first_release_with

RULE = "compile_benchmarks_inputs"  # versions.toml: the releases whose cold compile is planned (0.22.0 on)

COLD_NOTE = (
    "# Planned with a cold torch.compile cache (--compile-cache cold): a first boot of this model and settings, a "
    "container without a kept ~/.cache/vllm (VLLM_CACHE_ROOT), or VLLM_DISABLE_COMPILE_CACHE=1; a boot that finds "
    "the cache holds more KV cache than planned\n"
)


def compile_cache_problem(rules: VllmRules, given: object, version: str) -> str | None:
    """Why ``--compile-cache`` given as ``given`` (``None``: not given) is not planned in the release of ``rules``:
    the cache's state is read in the V1 engines from 0.22.0 (rule ``compile_benchmarks_inputs``, whose cold compile
    benchmarks Inductor's combo kernels on a random copy of the embedding table), not in earlier ones, where it
    would change nothing in the plan.

    >>> from planner.engines.vllm.versions import vllm_rules
    >>> [compile_cache_problem(vllm_rules(v), "cold", v) is None for v in ("0.21.0", "0.22.0", "0.31.0")]
    [False, True, True]
    >>> compile_cache_problem(vllm_rules("0.21.0"), None, "0.21.0") is None  # not given
    True
    """
    if given is None or (getattr(rules, RULE) and rules.v1):
        return None
    return (
        f"vLLM {version}: --compile-cache does not apply before {first_release_with(RULE)}, the first release whose "
        "cold torch.compile is planned (Inductor's combo-kernel benchmark copies the embedding table inside the memory "
        "profile; earlier releases were not read for it): leave it out"
    )


def cold_note(compile_cache: Literal["cold", "warm"]) -> str:
    """The comment line above a launch command planned with a cold cache (:data:`COLD_NOTE`); empty when warm.

    >>> cold_note("warm"), cold_note("cold").startswith("# Planned with a cold torch.compile cache")
    ('', True)
    """
    return COLD_NOTE if compile_cache == "cold" else ""
