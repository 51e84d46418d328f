"""A rental's figures say what they are (an outside review, 2026-12-06): the CSV's rent column read "8 x H100,
per GPU-hour" beside the eight GPUs' hourly price, and its per-conversation cost (dollars an hour per conversation
held) read 0.0, as the CLI's $/conv-hour read $0.00."""

from __future__ import annotations

import pytest

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.cli import main
from ui.advisor_rows import CLOUD_COST_COLUMN, option_row

WORKLOAD = Workload.fixed_length(8192, concurrent_conversations=200, pricing="cloud")


def test_the_rent_row_prices_all_its_gpus_and_a_conversation_hour() -> None:
    best = rank(get_model("openai/gpt-oss-20b").spec, WORKLOAD).options[0]
    row = option_row(1, best, cloud=True)
    assert str(row["rent"]).endswith(", by the hour") and "per GPU-hour" not in str(row["rent"])
    assert row[CLOUD_COST_COLUMN] == round(best.usd_per_hour or 0, 2)
    per = row["USD per conversation-hour"]
    assert (
        isinstance(per, float)
        and per > 0
        and per == pytest.approx((best.usd_per_hour or 0) / best.conversations, abs=5e-5)
    )
    assert "USD per conversation" not in row


def test_the_cli_shows_a_conversation_hour_in_fractions_of_a_cent(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["advise", "--model", "openai/gpt-oss-20b", "--users", "200", "--context", "8192", "--pricing", "cloud"]
    main([*argv, "--limit", "1"])
    first = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("1 "))
    assert "$0.00 " not in first and "$0.0" in first
