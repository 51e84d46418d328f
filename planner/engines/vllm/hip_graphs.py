"""What HIP takes for vLLM's graphs and outside torch on an AMD Instinct CDNA 3 device (MI300X, MI325X: gfx942).

vLLM measures the graph estimate the same way on ROCm as on CUDA (0.31.0 ``v1/worker/gpu_worker.py:628-637``, since
vllm PR #48526) and captures the same graphs: a PIECEWISE graph of every capture size for each piece of the model,
which is split at every attention op (0.31.0 ``compilation/backends.py:549-580``, ``config/compilation.py:764``,
``:1160``), so ``layers + 1`` pieces, and a FULL decode graph of every decode size. What differs is what each graph
holds on HIP: vllm issue #19579 finds PIECEWISE captures several times larger on MI300 than on H100 at TP 1 (FULL
ones not), and ROCm's maintainers trace it to "our hipGraph implementation coupled with the HSA fragment allocator":
"hipGraph requires memory each time one is captured" (ROCm/pytorch#2286, 2025-07-08). That cost is the runtime's
and its allocator's, not vLLM's, so it is fitted (``VllmConstants.hip_graph_bytes``, ``make calibrate``) on the
public MI300X start-ups: 2.11 / 2.14 / 2.12 MiB per graph captured for 2,244 / 1,632 / 3,162 graphs, whatever the
hidden size (2,560 to 5,376), where the CUDA fit takes 0.21 MiB per graph and layer.

The same start-ups hold 0.81-0.95 GiB more outside torch than the planner's datacenter base and derived torch state,
whatever the model (``VllmConstants.cdna3_non_torch``); vLLM 0.31's ROCm paths name no allocation of that size at
TP 1 (TRITON attention and MoE, AITER off by default: ``envs.py:1263``; no RCCL communicator at world size 1), so it
is fitted too, per rank, measured at TP 1 only.

Neither applies elsewhere: the Strix Halo APU (gfx1151, vLLM 0.28) takes 0.22 MiB per graph captured, and CDNA 4
(MI350X, MI355X) has no public start-up that prints the split. Where no CDNA 3 start-up was fitted (a fold that
leaves them out) both are 0 and the CUDA terms stand (docs/fidelity.md, the seventh blind set).
"""

from __future__ import annotations

from planner.engines.vllm.graphs import GraphSet


def hip_graphs_captured(graphs: GraphSet, layers: int) -> int:
    """The graphs one rank captures: ``layers + 1`` PIECEWISE pieces at each capture size and the FULL decode graphs
    (the module docstring; 0 when nothing is captured)."""
    return graphs.piecewise * (layers + 1) + graphs.full


def hip_graph_bytes(graphs: GraphSet, layers: int, per_graph: int) -> int:
    """HIP's graph memory on a CDNA 3 rank with ``layers`` decoder layers: ``per_graph`` bytes for each graph captured
    (``VllmConstants.hip_graph_bytes`` for the estimate, ``hip_graph_capture_bytes`` for the capture; ROCm/pytorch
    #2286, vllm #19579)."""
    return per_graph * hip_graphs_captured(graphs, layers)
