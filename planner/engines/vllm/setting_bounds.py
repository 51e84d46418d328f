"""The bounds of vLLM's numeric settings on :class:`planner.engines.vllm.profile.VllmProfile`: what a link, a CLI
file or a pasted command may ask for before anything is planned.

>>> from pydantic import TypeAdapter
>>> TypeAdapter(Sequences).validate_python(256)
256
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from planner.bounds.limits import MAX_CONTEXT, MAX_GPU_MEMORY_BYTES

# Settings bounds: a batch and a capture size no longer than the longest context the planner takes; at most a million
# sequences (vLLM's defaults are 256 / 1024); a fixed KV cache no larger than one GPU may hold.
BatchTokens = Annotated[int, Field(gt=0, le=MAX_CONTEXT)]
Sequences = Annotated[int, Field(gt=0, le=1_048_576)]
CaptureSize = Annotated[int, Field(gt=0, le=65_536)]
KvBytes = Annotated[int, Field(gt=0, le=MAX_GPU_MEMORY_BYTES)]
