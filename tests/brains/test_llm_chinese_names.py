"""A Chinese question answered through the model path calls its companies by their Chinese names,
whoever wrote the plan: here the model's replies are unusable, the offline reader's plan runs and
the template summary is written for it (as with a small local model)."""

from __future__ import annotations

import tomllib
from datetime import date
from importlib.resources import files

import pytest
from support.asking import ask
from support.llm import LOOPBACK

from datapilot.core.context import QuestionContext
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.health import forget_health
from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.settings import Settings

pytestmark = LOOPBACK

TODAY = date(2022, 6, 30)


def _names(ticker: str) -> tuple[str, list[str]]:
    """The English name and the Chinese aliases of `ticker`, as the shipped entity file has them."""
    shipped = tomllib.loads(
        files("datapilot.data").joinpath("entities/us_stocks.toml").read_text(encoding="utf-8")
    )
    rows = [row for table in shipped.values() if isinstance(table, list) for row in table]
    entity = next(row for row in rows if isinstance(row, dict) and row.get("id") == ticker)
    chinese = [a for a in entity["aliases"] if any("\u4e00" <= ch <= "\u9fff" for ch in a)]
    return entity["name"], chinese


@pytest.mark.parametrize(
    "question", ["苹果和微软2021年的累计收益率对比", "Apple Inc.2021年的收益率是多少？"]
)
async def test_a_chinese_summary_names_companies_in_chinese_on_the_model_path(
    question: str, data: object
) -> None:
    forget_endpoint_modes()
    forget_health()
    with ScriptedEndpoint(lambda request: Reply(content="not a plan")) as endpoint:
        settings = Settings(
            llm_base_url=endpoint.base_url, llm_model="scripted", llm_max_retries=0, brain="auto"
        )
        answer = await ask(question, QuestionContext(today=TODAY, brain="auto"), settings=settings)
    assert answer.status == "ok", answer.message
    assert answer.usage.llm_calls > 0  # the model was asked, and its plan replaced
    tickers = [entity.id for entity in answer.intent.entities] if answer.intent else []
    assert tickers
    for ticker in tickers:
        english, chinese = _names(ticker)
        assert english not in answer.summary, answer.summary
        assert any(name in answer.summary for name in chinese), answer.summary
