"""A Chinese answer is Chinese throughout — axis titles, entity names in the summary and the
follow-up suggestions, notes — and the small text slips stay fixed: a name run into a date, a
single value said as a change, a name lower-cased, word fragments listed as one run, a
suggestion offered for a name nothing resembles."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import pytest
import statsmodels.api as sm
from support import paths
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.outputs import ChartOutput
from datapilot.interfaces.checks import check_entities
from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.registry import InterfaceError
from datapilot.render.charts import to_plotly
from datapilot.server.suggestions import follow_ups

# An English word or unit (Close, adjusted, USD); an acronym said the same in Chinese (GDP) is not.
_ENGLISH = re.compile(r"[A-Za-z]*[a-z][A-Za-z]*|USD")
# English prose in a Chinese answer: words of three or more letters, code (`datapilot data fetch`,
# interface names after 用/应用了) and the catalog's Latin brand names aside.
_PROSE = re.compile(r"(?<![\w`$.-])[A-Za-z][a-z]{2,}(?![\w`(])")
# Code: `quoted`, interface names (get_prices, 用 rank), settings (NAME=a,b) and paths (a/b.toml).
_CODE = re.compile(r"`[^`]*`|\b\w+_\w+\b|(?:用|应用了) \w+|[\w.,-]*[=/][\w.,/=-]*")
_LATIN_NAMES = {"Nasdaq", "Apple", "Microsoft", "Range", "Resources"}


async def _ask(question: str, tables: list[ClientTable] | None = None) -> Answer:
    context = QuestionContext(today=date(2024, 6, 30), brain="offline", tables=tables or [])
    return await ask(question, context)


def _axis_titles(answer: Answer) -> list[str]:
    """The axis titles of every chart of the answer, as the Plotly figure shows them."""
    titles = []
    for chart in (o for o in answer.outputs if isinstance(o, ChartOutput)):
        layout = to_plotly(chart)["layout"]
        axes = [v for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
        titles += [a["title"]["text"] for a in axes if isinstance(a, dict) and a.get("title")]
    return titles


@pytest.mark.parametrize(
    "question",
    ["画出苹果2020年的收盘价走势", "标普500 2018年第四季度的收盘价", "美国实际GDP 2000年以来"],
)
async def test_chinese_charts_title_their_axes_in_chinese(data: Any, question: str) -> None:
    answer = await _ask(question)
    titles = _axis_titles(answer)
    assert "日期" in titles
    assert not [t for t in titles if _ENGLISH.search(t)], titles  # not "Close (adjusted) (USD)"


async def test_a_chinese_summary_and_its_suggestions_call_entities_by_chinese_names(
    data: Any,
) -> None:
    answer = await _ask("标普500 2018年第四季度的收盘价")
    assert answer.summary.startswith("标普500的收盘价")
    assert "S&P" not in answer.summary
    assert all("S&P" not in o.title for o in answer.outputs)
    suggestions = follow_ups(await _ask("苹果2021年以来的最大回撤"))
    assert suggestions and all("苹果" in s and "Apple" not in s for s in suggestions)


async def test_a_name_ending_in_a_digit_is_not_run_into_the_date_after_it(data: Any) -> None:
    answer = await _ask("标普500从2018年9月30日到2018年12月31日的最大回撤")
    assert answer.summary.startswith("标普500 2018-09-30至2018-12-31的最大回撤")
    assert "5002018" not in answer.summary


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("unemployment rate in July 1982", "US unemployment rate (UNRATE) was {v} on 1982-07-01."),
        ("1982年7月的失业率", "失业率（UNRATE）在1982-07-01为{v}。"),
    ],
)
async def test_a_single_value_is_said_once_not_as_a_change(
    data: Any, question: str, said: str
) -> None:
    macro = sm.datasets.macrodata.load_pandas().data
    value = macro.loc[(macro["year"] == 1982) & (macro["quarter"] == 3), "unemp"].item()
    answer = await _ask(question)
    assert said.format(v=f"{value:.2f}%") in answer.summary
    assert "went from" not in answer.summary and "变为" not in answer.summary


async def test_a_name_capitalised_inside_keeps_its_capitals(data: Any) -> None:
    table = ClientTable(
        name="Coca-Cola quotes",
        columns=["date", "close"],
        rows=[["2024-06-27", "63.10"], ["2024-06-28", "63.65"]],
    )
    answer = await _ask("chart the close", [table])
    assert "Coca-Cola quotes" in answer.summary
    assert "coca-Cola" not in answer.summary


async def test_unknown_names_are_quoted_one_by_one(data: Any) -> None:
    answer = await _ask("佐布拉克斯和辉端的股价表现如何")
    assert answer.status == "no_data"
    names = re.findall(r"“([^”]+)”", answer.message or "")
    assert len(names) == 2, answer.message
    # Each word not understood stands alone, never several run together with 、 inside quotes.
    assert all("、" not in n for n in names)


async def test_news_is_named_once(data: Any) -> None:
    answer = await _ask("特斯拉最近有什么新闻和公告")
    assert answer.status == "no_data"
    message = answer.message or ""
    assert "新闻和新闻" not in message and "新闻（新闻" not in message
    assert message.count("新闻") == 1 and "公告" in message  # the user's other word is named


def test_a_suggestion_is_offered_only_for_a_genuinely_close_name(data: Any) -> None:
    ctx = InterfaceContext(warehouse=data.warehouse, catalog=data.catalog, today=date(2022, 12, 30))
    with pytest.raises(InterfaceError) as nothing_close:
        check_entities(ctx, ["NOPE"], {"stock"})
    assert "Did you mean" not in str(nothing_close.value)  # not Sinopec, which contains "nope"
    with pytest.raises(InterfaceError) as misspelt:
        check_entities(ctx, ["AAPLE"], {"stock"})
    assert "Did you mean AAPL?" in str(misspelt.value)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("monthly CPI change for each month of 2005", "is quarterly in the data"),
        ("2005年每个月的CPI环比变化分别是多少", "是季度数据"),
    ],
)
async def test_each_month_of_a_quarterly_series_gives_every_quarter_and_says_so(
    data: Any, question: str, said: str
) -> None:
    macro = sm.datasets.macrodata.load_pandas().data
    changes = macro["cpi"].pct_change() * 100
    expected = changes[(macro["year"] == 2005)].tolist()
    answer = await _ask(question)
    assert any(said in note for note in answer.notes), answer.notes
    (table,) = [o for o in answer.outputs if o.kind == "table"]
    # Table cells keep two decimals from 1 up, four significant digits below 1.
    assert [row[1] for row in table.rows] == pytest.approx(expected, abs=0.005)


def _chinese_corpus() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (paths.CORPUS / "offline.jsonl").open(encoding="utf-8")]
    return [(row["query"], row["today"]) for row in rows if row.get("lang") == "zh"]


@pytest.mark.slow
async def test_every_chinese_corpus_answer_is_chinese_throughout(data: Any) -> None:
    leaks = {}
    for question, today in _chinese_corpus():
        context = QuestionContext(today=date.fromisoformat(today), brain="offline")
        answer = await ask(question, context)
        said = [answer.summary, answer.message or "", *answer.notes]
        if answer.status == "ok":
            said += follow_ups(answer)
        said += _axis_titles(answer)
        words = [
            w
            for text in said
            for w in _PROSE.findall(_CODE.sub(" ", text))
            if w not in _LATIN_NAMES
        ]
        if words:
            leaks[question] = words[:5]
    assert not leaks, leaks
