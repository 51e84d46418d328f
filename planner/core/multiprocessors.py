"""The multiprocessors of the catalog's CUDA parts: what ``torch.cuda.get_device_properties`` prints as
``multi_processor_count`` and vLLM reads as ``num_compute_units`` (0.24.0 ``platforms/cuda.py:676-677``), by catalog
id, each from a public print of the device's properties (search-index file ids; read 2026-12-07).

A part with no such print stays out (``None``: unknown, nothing invented): the GB300 GPU, the
Volta, Turing and China parts, the A10 / A10G, H100 PCIe / NVL, L20, L40, RTX 6000 Ada, and the AMD devices (HIP's
count is the compute units; no print was read for them).
"""

from __future__ import annotations

# (count, where it was read)
MULTIPROCESSORS: dict[str, tuple[int, str]] = {
    "l40s": (142, "_CudaDeviceProperties(name='NVIDIA L40S', ... multi_processor_count=142), file id 22161947869"),
    "h100-sxm-80gb": (132, "name='NVIDIA H100 80GB HBM3' ... multi_processor_count=132, file id 16920867219"),
    "h200-sxm-141gb": (132, "name='NVIDIA H200' ... multi_processor_count=132, file id 2097843420"),
    "rtx-3090": (82, "name='GeForce RTX 3090' ... multi_processor_count=82, file id 73948879"),
    "rtx-4090": (128, "name='NVIDIA GeForce RTX 4090' ... multi_processor_count=128, file id 7862287914"),
    "rtx-a5000": (64, "name='NVIDIA RTX A5000' ... multi_processor_count=64, file ids 29664974753, 36903445345"),
    "rtx-a6000": (84, "name='NVIDIA RTX A6000' ... multi_processor_count=84, file id 35030005167"),
    # Inductor cache headers (DeviceProperties(multi_processor_count=..., cc=...)): the one part of its capability
    # with that count in the catalog
    "rtx-5090": (170, "DeviceProperties(multi_processor_count=170, cc=120), file id 59200211759"),
    "rtx-pro-6000-blackwell": (188, "DeviceProperties(multi_processor_count=188, cc=120), file id 69111419108"),
    "rtx-pro-6000-blackwell-server": (188, "the GB202 configuration of the workstation card (24,064 CUDA cores)"),
    "rtx-pro-6000-blackwell-max-q": (188, "the GB202 configuration of the workstation card (24,064 CUDA cores)"),
    "dgx-spark-gb10": (48, "DeviceProperties(multi_processor_count=48, cc=121), file id 56176516669"),
    "l4": (58, "DeviceProperties(multi_processor_count=58, cc=89), file id 66305385590"),
    "b200-sxm": (148, "DeviceProperties(multi_processor_count=148, cc=100), file id 66211390466"),
    "b300-sxm": (148, "'The tested B300 has 148 SMs ... the local GB200 has 152 SMs', file id 62202934152"),
    "gb200-per-gpu": (152, "'The tested B300 has 148 SMs ... the local GB200 has 152 SMs', file id 62202934152"),
    "a100-sxm-80gb": (108, "DeviceProperties(multi_processor_count=108, cc=80), file id 51863593567"),
    "a100-sxm-40gb": (108, "GA100 as shipped in every A100 (cc 8.0, file id 51863593567)"),
    "a100-pcie-80gb": (108, "GA100 as shipped in every A100 (cc 8.0, file id 51863593567)"),
    "a100-pcie-40gb": (108, "GA100 as shipped in every A100 (cc 8.0, file id 51863593567)"),
}


def multiprocessor_count(gpu_id: str) -> int | None:
    """The multiprocessors of catalog part ``gpu_id`` (:data:`MULTIPROCESSORS`); ``None`` where none was read.

    >>> multiprocessor_count("l40s"), multiprocessor_count("t4")
    (142, None)
    """
    entry = MULTIPROCESSORS.get(gpu_id)
    return entry[0] if entry else None
