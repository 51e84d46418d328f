"""The view the dashboard's tests open most: Llama 3.1 70B on two GPUs at TP 2, FP8 weights and KV cache, 32,768-token
conversations (the README's screenshots, the browser tests, the exports' and what-if's tests); each names its users
and any other field it sets (the GPU: ui.state.DEFAULT_GPU unless named)."""

from __future__ import annotations

from typing import Any

from ui.state import Selection


def llama_70b_fp8(users: int, **fields: Any) -> Selection:
    """The view at ``users`` target users, with ``fields`` (Selection's own names) set besides."""
    return Selection(
        model_id="meta-llama/Llama-3.1-70B",
        gpu_count=2,
        tensor_parallel=2,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=32768,
        users=users,
        **fields,
    )
