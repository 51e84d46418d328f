"""The advisor's key column names each GPU by its variant words among the rows (ui.advisor_rows.gpu_words), and a
CSV is read without the page's table: there every option is a row (ui.advisor_rows.ranking_rows with no limit), so
the words must name one GPU each among all of them. Llama-3.1-70B at 50 x 32k (review57b, 2026-12-08): the CSV's 221
rows had named the A100 SXM4 and the H100 SXM5 both "sxm-80gb" (each shares its first word with its PCIe card), and
gpt-oss-120b's had named the A100 SXM4 80GB and the A100 PCIe 80GB both "80gb"."""

from __future__ import annotations

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, rank
from ui.advisor_rows import gpu_words, option_keys, ranking_rows
from ui.state import Selection


def test_every_catalog_gpu_has_its_own_words() -> None:
    named = gpu_words(list(load_gpus()))
    assert len(set(named.values())) == len(named)


def test_the_csv_keys_name_one_gpu_each() -> None:
    for model in ("meta-llama/Llama-3.1-70B", "openai/gpt-oss-120b"):
        options = rank(get_model(model).spec, Workload.fixed_length(32768, concurrent_conversations=50)).options
        gpus: dict[str, set[str]] = {}
        for o, key in zip(options, option_keys(options), strict=True):
            gpus.setdefault(key.rsplit(" x ", 1)[1], set()).add(o.gpu_id)
        assert all(len(ids) == 1 for ids in gpus.values()), {k: v for k, v in gpus.items() if len(v) > 1}
    assert gpu_words(["a100-sxm-80gb", "a100-pcie-80gb", "h100-sxm-80gb", "h100-pcie-80gb"]) == {
        "a100-sxm-80gb": "a100-sxm-80gb",
        "a100-pcie-80gb": "a100-pcie-80gb",
        "h100-sxm-80gb": "h100-sxm-80gb",
        "h100-pcie-80gb": "h100-pcie-80gb",
    }


def test_the_page_and_the_csv_give_a_row_one_key() -> None:
    """The page shows the first 40 rows, the CSV every row: both name the GPUs among every option, so a row's key is
    the same in both. Qwen3-235B-A22B-Instruct-2507 at 50 x 8k (review57b, 2026-12-08): row 5 read
    "... 4 x h100-sxm-80gb" on the page and "... 4 x sxm-80gb" in the CSV."""
    model = "Qwen/Qwen3-235B-A22B-Instruct-2507"
    ranking = rank(get_model(model).spec, Workload.fixed_length(8192, concurrent_conversations=50))
    sel = Selection(model_id=model)
    page = [row["key"] for row in ranking_rows(ranking, sel, None, limit=40)]
    csv = [row["key"] for row in ranking_rows(ranking, sel, None)]
    assert len(page) == 40
    assert page == csv[:40]
