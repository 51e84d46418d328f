"""vLLM's and SGLang's fused MoE layer as measured, read from NVIDIA aiconfigurator's tables (no constant fitted).

The memory roofline prices a decode step's routed experts as the bytes of the experts its tokens touch at
``cb_bw_hbm`` of the bandwidth. vLLM's and SGLang's fused MoE (``vllm_fused_moe``, ``sglang_fused_moe_triton``: the
Triton grouped GEMM with its routing, token sorting by expert and block padding) is far from that at the batches a
decode step runs: aiconfigurator's collectors time the engines' own MoE modules under CUDA graphs, and on 8 x B200
SGLang 0.5.9's layer of Qwen3-235B-A22B (hidden 4,096, experts 1,536 wide, 8 of 128, BF16, the experts' width split
over 8 GPUs) takes 33 us at 1 token (its 8 experts' bytes take 5 us at the datasheet bandwidth) and 141 us at 96
tokens (every expert's share of a GPU, 604 MB, takes 75 us). A step of ``tokens`` tokens then costs the measured
layer time per MoE layer, on top of the step's other reads and matmuls (the kernels run one after another).

``paged_moe_tables.toml`` (beside this module) is the extract (``python -m bench.paged_moe_extract``): from
ai-dynamo/aiconfigurator@095f58a51 ``aic-core/src/aiconfigurator_core/systems/data/<system>/moe/<vllm|sglang>/
<version>/moe_perf.parquet``, for A100 SXM, H100 SXM, H200 and B200, BF16 and block-FP8 experts (``fp8_block``, the
format of the published FP8 MoE checkpoints: DeepSeek-V3 / R1, Qwen3 FP8, MiniMax-M2), the engine's default kernel,
expert-parallel size 1 (vLLM and SGLang split each expert's width over the tensor-parallel GPUs unless the run
enables expert parallelism), aiconfigurator's default skewed routing (``power_law_1.01``), moe TP sizes 1-8, tokens
1-16,384 (a decode step's batch, and a prompt chunk's tokens: :mod:`planner.advisor.prompt_moe`). One release per
engine and GPU (vLLM 0.14.0, B200 0.19.0; SGLang 0.5.9), the speed model's one-release stance. The time is linear in
the tokens between grid points, in proportion past 16,384.

INT8 W8A8 experts (the ``int8`` compute path) take the FP8 rows: one byte a weight through the same Triton grouped
GEMM, whose INT8 and FP8 W8A8 branches differ only in where the scales apply. vLLM 0.11.0's ``fused_moe_kernel``
(model_executor/layers/fused_moe/fused_moe.py:271, ``use_fp8_w8a8`` / ``use_int8_w8a8`` :317-318, their shared
scale and ``tl.dot`` branches :399-473) is what its INT8 method calls (quantization/compressed_tensors/
compressed_tensors_moe.py:1073-1094 channel-wise INT8 only, ``fused_experts`` :1212) and what aiconfigurator's FP8
rows timed (its collectors call ``fused_experts`` without DeepGEMM or CUTLASS, so fused_moe.py:1372-1460 dispatches
to that kernel). SGLang 0.5.9's INT8 method runs the Triton runner (layers/quantization/w8a8_int8.py:328-372),
the ``fused_moe_kernel`` (layers/moe/fused_moe_triton/fused_moe_triton_kernels.py:324, shared branches :485-589)
the ``sglang_fused_moe_triton`` rows time; its FP8-only TMA loads (:458-459) need a block shape the collector does
not pass. An A100 has no FP8 rows (nor FP8 tensor cores): its INT8 experts keep the rate model.

AWQ and GPTQ experts (``int4-awq``, ``int4-gptq``: 4-bit, groups of 128) take the Marlin INT4 rows (``int4_wo``:
GPTQ-packed uint4b8, group 128, repacked by ``gptq_marlin_moe_repack`` and run by ``fused_marlin_moe``, the kernel of
vLLM's and SGLang's AWQ / GPTQ-Marlin MoE methods; aiconfigurator collector/vllm/collect_moe_v1.py at a4827ce20
:73-98, :413-465, collector/sglang/collect_moe.py :575-690) on H100 / H200 (vLLM 0.14.0, SGLang 0.5.9) and B200
(SGLang 0.5.9). Not read, the roofline kept: vLLM 0.19.0's B200 ``int4_wo`` rows (``fused_experts`` with
``int4_w4a16_moe_quant_config``, collect_moe_v2.py :228-258, :585-600: the Triton W4A16 path, not Marlin), both
engines' NVFP4 rows (vLLM's call FlashInfer's TRT-LLM FP4 kernel directly, :322-380, not vLLM's backend choice;
SGLang's time ``flashinfer_cutedsl_moe_masked`` on tokens already dispatched per expert, collect_moe.py :725-760, the
expert-parallel low-latency layout without routing or permutation) and vLLM 0.19.0's B200 MXFP4 rows (the backend left
to the collector's environment, :261-320: gpt-oss-120b's layer at 8 tokens, 369.5 us, is 13.3 ms a step over 36
layers where a whole batch-8 step on an H100 with Marlin took 9.1 ms: vLLM PR 27523, read in
:mod:`planner.advisor.kernels`).

``None`` (:mod:`planner.advisor.moe_transfer` prices the experts at a measured GPU's kernel efficiency, else the rate
model) for TensorRT-LLM and llama.cpp, a set-up that names no engine
(:attr:`Setup.engine` unset), another GPU, arithmetic or shape, a split other than tensor parallel, data-parallel
ranks sharing expert-parallel experts (:attr:`Setup.attention_dp`: the extract holds expert-parallel size 1 only), or
experts whose bytes are not the table's format (NVFP4, MXFP4, GGUF quants).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, Field

from planner.advisor.kernel_grid import MoeKey, along, moe_rows
from planner.advisor.kernels import ComputePath
from planner.advisor.throughput import Load, Setup
from planner.bounds.errors import PlannerError

TABLES_FILE = Path(__file__).with_name("paged_moe_tables.toml")
# Bits per expert weight of each table's format: BF16, block FP8 (1 byte + one fp32 scale per 128 x 128 block), and
# Marlin INT4 (a 16-bit scale and a 4-bit zero per group of 128 add 0.13-0.16 bits).
TABLE_BITS: dict[str, float] = {"16-bit": 16.0, "fp8": 8.0, "int4-marlin": 4.0}
# A compute path priced at another's rows: INT8 W8A8 runs the FP8 rows' kernel, one byte a weight (module docstring).
SAME_KERNEL: dict[ComputePath, ComputePath] = {"int8": "fp8"}
# Weight formats whose experts run a table's kernel whatever the compute path of the rest (module docstring).
NAMED: dict[str, str] = {"int4-awq": "int4-marlin", "int4-gptq": "int4-marlin"}

Key = MoeKey  # hidden, width, top-k, experts, moe TP size
BySetup = dict[tuple[str, str, str], dict[Key, tuple[float, ...]]]  # (engine, GPU id, path) -> shape -> seconds


class _Table(BaseModel, frozen=True, extra="forbid"):
    engine: str  # the registry's name of the engine (planner.engines.registry)
    gpu: str
    path: str  # a compute path (16-bit, fp8) or a named kernel's format (int4-marlin): :data:`TABLE_BITS`
    file: str
    dtype: str
    kernel: str
    moe_us: tuple[tuple[float, ...], ...]  # hidden, width, top-k, experts, moe TP size, then us at each token count


class _Tables(BaseModel, frozen=True, extra="forbid"):
    source: str = Field(pattern=r"^ai-dynamo/aiconfigurator@[0-9a-f]{40}$")
    tokens: tuple[int, ...]
    table: tuple[_Table, ...]


@cache
def tables(path: Path = TABLES_FILE) -> tuple[tuple[int, ...], BySetup]:
    """The token grid and, by (engine, catalog GPU id, compute path), each shape's seconds at the grid's tokens."""
    raw = _Tables.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    out: BySetup = {}
    for t in raw.table:
        if any(len(r) != 5 + len(raw.tokens) for r in t.moe_us):
            raise PlannerError(f"{path.name}: {t.engine} {t.gpu} {t.path}: a row does not match the token grid")
        out[(t.engine, t.gpu, t.path)] = moe_rows(t.moe_us)
    return raw.tokens, out


def experts_bits(load: Load) -> float:
    """Bits per routed-expert weight of ``load`` (its experts' bytes over their parameters)."""
    assert load.moe is not None
    per_layer = load.moe.experts * 3 * load.moe.hidden * load.moe.width
    return 8 * load.experts_bytes / (per_layer * load.moe_layers) if per_layer and load.moe_layers else 0.0


def table_format(setup: Setup, load: Load) -> str | None:
    """The table whose kernel runs ``load``'s experts: the named format's (:data:`NAMED`), else the compute path's
    (INT8 W8A8 at FP8's, :data:`SAME_KERNEL`), if the experts' bytes are that format's (``None``: no table's)."""
    path = NAMED.get(setup.weights) or SAME_KERNEL.get(setup.path, setup.path)
    bits = TABLE_BITS.get(path)
    if bits is None or load.moe is None or abs(experts_bits(load) - bits) > 1.0:  # scales add 0.002-0.25 bits
        return None
    return path


def paged_moe_seconds(setup: Setup, load: Load) -> float | None:
    """One GPU's routed-expert time of a vLLM or SGLang decode step: the measured layer time at ``load.tokens``
    tokens and the replica's tensor-parallel size, times the MoE layers (``None``: not in the tables, see the
    module docstring)."""
    if setup.family != "paged" or setup.split != "tensor" or setup.attention_dp or load.moe is None:
        return None
    path = table_format(setup, load)
    if path is None:
        return None
    grid, by_setup = tables()
    row = by_setup.get((setup.engine, setup.gpu.id, path), {}).get((*load.moe, setup.gpus))
    return None if row is None else load.moe_layers * along(grid, row, load.tokens)


# The tables' formats as a caveat names them (the FP8 rows price INT8 W8A8 too, :data:`SAME_KERNEL`).
MEASURED_WORDS: dict[str, str] = {
    "16-bit": "BF16",
    "fp8": "FP8 / INT8 W8A8",
    "int4-marlin": "AWQ / GPTQ INT4 (Marlin)",
}


def measured_beside(setup: Setup, load: Load) -> tuple[str, ...]:
    """The formats whose measured rows price this engine, GPU and expert shape split by width over the set-up's GPUs
    while ``load``'s own experts take the rate model (their bytes at the bandwidth, optimistic beside a measured
    kernel): another format, or expert-parallel data-parallel ranks (:attr:`Setup.attention_dp`, whose kernel the
    extract lacks) beside the measured tensor-parallel split. Empty where its experts are measured or nothing here
    is, so no option is preferred only for being priced by the roofline."""
    if setup.family != "paged" or setup.split != "tensor" or load.moe is None:
        return ()
    if paged_moe_seconds(setup, load) is not None:
        return ()
    _, by_setup = tables()
    key = (*load.moe, setup.gpus)
    return tuple(w for p, w in MEASURED_WORDS.items() if key in by_setup.get((setup.engine, setup.gpu.id, p), {}))
