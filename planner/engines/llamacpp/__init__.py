"""llama.cpp: contiguous KV per slot, layers split across devices, GGUF weights
(:mod:`~planner.engines.llamacpp.engine`)."""
