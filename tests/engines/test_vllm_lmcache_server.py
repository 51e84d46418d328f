"""``--kv-offloading-backend lmcache`` by release (``versions.toml`` rule ``lmcache_server``): up to 0.22.1 vLLM
configures LMCache in its own process with ``max_local_cpu_size = --kv-offloading-size / (TP x PP)`` (0.22.0
``config/vllm.py:771-777``); from 0.23.0 it runs ``LMCacheMPConnector``, which connects to an LMCache server at
``tcp://localhost:5555`` and does not pass the size on (0.25.1 ``config/vllm.py:815-821``, 0.27.0 ``:918-924``).
Found by an outside review (2026-12-06): the 0.27.0 command for a 16 GiB LMCache tier could not run alone."""

from __future__ import annotations

from planner.assessment.assess import assess
from planner.assessment.summary import deployment_data
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions, KvOffloadOptions
from planner.engines.launch import launch_commands
from planner.engines.vllm.deployment_notes import LMCACHE_SERVER_COMMAND
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest
from tests.engines.vllm_planned import on_one_gpu

# The server's own command, its buffer the 16 GiB tier (LMCache's --cpu-buffer-size takes GiB: lmcache 0.3.11
# mp_storage_manager.py, "cpu_buffer_size * (1 << 30)"); before 2026-12-06 the line named the server, not its command.
SERVER_LINE = (
    "# first, in another shell: python3 -m lmcache.v1.multiprocess.server --cpu-buffer-size 16 (LMCache's "
    "multi-process server at tcp://localhost:5555, its CPU buffer the host tier in GiB): vLLM 0.27.0 connects to it "
    "for --kv-offloading-backend lmcache and does not pass --kv-offloading-size on (the flag only switches the offload "
    "on)"
)
COMMAND = (
    "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1 --gpu-memory-utilization 0.92 --max-model-len 8192 "
    "--max-num-seqs 256 --kv-offloading-size 16.0 --kv-offloading-backend {backend}"
)


def _request(version: str, backend: str = "lmcache") -> PlanRequest:
    tier = KvOffloadOptions(size_bytes=16 * GiB, backend=backend)  # type: ignore[arg-type]
    return on_one_gpu("Qwen/Qwen3-8B", version, DeploymentOptions(kv_offload=tier))


def test_lmcache_connects_to_a_server_from_0_23() -> None:
    assert not any(vllm_rules(v).lmcache_server for v in ("0.11.1", "0.19.1", "0.22.0", "0.22.1"))
    assert all(vllm_rules(v).lmcache_server for v in ("0.23.0", "0.25.1", "0.27.0", "0.29.0", "0.34.0"))


def test_the_0_27_command_says_the_server_must_run_first() -> None:
    a = assess(_request("0.27.0"))
    assert a.fits and a.report is not None
    assert launch_commands(a.request, a.result)["vllm"] == SERVER_LINE + "\n" + COMMAND.format(backend="lmcache")
    note = next(n for n in a.report.notes if n.startswith("KV offload:"))
    assert "connects to an LMCache server at tcp://localhost:5555: it must be running before vLLM starts" in note
    assert "vLLM does not pass --kv-offloading-size on" in note
    # the tier the server must hold, as planned (the review's figures)
    tier = deployment_data(a)["deployment"]["kv_offload"]
    assert (tier["host_bytes"], tier["tokens"], tier["conversations"]) == (16 * GiB, 116_496, 14)


def test_the_server_is_sized_to_a_working_set_tier_rounded_up() -> None:
    """A tier sized by a prefix working set is no whole number of GiB: the server's buffer is rounded up, never
    below the tier (4,000 tokens x 10 users x 0.5 of Qwen3-8B's 147,456 bytes a token, whole blocks of 16)."""
    tier = KvOffloadOptions(prefix_tokens=4000, users=10, hit_rate=0.5, backend="lmcache")
    request = _request("0.29.0").model_copy(update={"deployment": DeploymentOptions(kv_offload=tier)})
    a = assess(request)
    host = deployment_data(a)["deployment"]["kv_offload"]["host_bytes"]
    assert host == 20_000 * 147_456
    line = launch_commands(a.request, a.result)["vllm"].splitlines()[0]
    assert line.startswith("# first, in another shell: " + LMCACHE_SERVER_COMMAND + " 2.75 (")
    assert 2.75 * GiB >= host > 2.74 * GiB


def test_in_process_lmcache_and_the_native_tier_need_no_server() -> None:
    old = assess(_request("0.22.0"))
    assert old.report is not None and not any(n.startswith("KV offload:") for n in old.report.notes)
    assert launch_commands(old.request, old.result)["vllm"] == COMMAND.format(backend="lmcache")
    native = assess(_request("0.27.0", "native"))
    assert launch_commands(native.request, native.result)["vllm"] == COMMAND.format(backend="native")
