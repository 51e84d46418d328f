"""The calculation's vocabulary: units, precisions, the model's shape, parameter and KV-cache counts, weight
bytes, parallel splits, GPUs and the working-space (overhead) models. Imports only :mod:`planner.bounds`."""
