"""How a model is deployed beyond "whole, on identical GPUs": partial offload, KV offload tiers, LoRA slots,
speculative decoding, shared GPUs (memory in use, MIG, engines side by side) and mixed GPUs. The options are
:class:`planner.deploy.options.DeploymentOptions`; one module per concern holds its formulas. This ``__init__``
imports nothing."""
