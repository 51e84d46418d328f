"""The llama.cpp backend a GPU runs and the name it gives the GPU's buffers in its logs.

CUDA on NVIDIA, Metal on Apple, Vulkan on AMD and Intel GPUs (the AMD rows of the speed benchmarks are its Vulkan
builds, AMDVLK and RADV; lhl/strix-halo-testing). Device names (``ggml/src/ggml-cuda``, ``ggml-metal``,
``ggml-vulkan``; public llama-server logs): ``CUDA0``, ``MTL0`` (mapped weights ``MTL0_Mapped``), ``Vulkan0``.

>>> device_name("metal", 0, weights=True), device_name("vulkan", 1), device_name("cuda", 0)
('MTL0_Mapped', 'Vulkan1', 'CUDA0')
"""

from __future__ import annotations

from typing import Literal

from planner.core.gpu import GpuSpec

Backend = Literal["cuda", "metal", "vulkan"]
_PREFIX: dict[Backend, str] = {"cuda": "CUDA", "metal": "MTL", "vulkan": "Vulkan"}


def llamacpp_backend(gpu: GpuSpec | None) -> Backend:
    """The llama.cpp backend ``gpu`` runs (CUDA when no GPU is named)."""
    if gpu is None or gpu.vendor == "NVIDIA":
        return "cuda"
    return "metal" if gpu.vendor == "Apple" else "vulkan"


def device_name(backend: Backend, index: int, weights: bool = False) -> str:
    """The buffer label of device ``index`` (Metal maps the model file: its weights' buffer is ``MTL0_Mapped``)."""
    mapped = "_Mapped" if weights and backend == "metal" else ""
    return f"{_PREFIX[backend]}{index}{mapped}"


def device_selector(backend: Backend) -> str:
    """The environment variable that gives a process its GPUs ("" on a Mac: one GPU a machine). Vulkan builds read
    ``GGML_VK_VISIBLE_DEVICES`` (``ggml/src/ggml-vulkan/ggml-vulkan.cpp``).

    >>> device_selector("metal"), device_selector("vulkan")
    ('', 'GGML_VK_VISIBLE_DEVICES')
    """
    return {"cuda": "CUDA_VISIBLE_DEVICES", "metal": "", "vulkan": "GGML_VK_VISIBLE_DEVICES"}[backend]
