"""The `python` tool on its own: it asks before running (unless built with auto-run), runs in the
sandbox with `dp`, returns console text to the model and tables and figures to the user."""

from __future__ import annotations

from datetime import date

import pytest

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput, TextOutput
from datapilot.engine.context import RequestContext
from datapilot.settings import Settings
from datapilot.tools.base import Tool, function_schema, run_tool
from datapilot.tools.python import PythonTool


@pytest.fixture(scope="module")
def request_context(data) -> RequestContext:  # type: ignore[no-untyped-def]
    return RequestContext.for_request(QuestionContext(today=date(2022, 12, 28)), Settings())


def test_it_is_a_tool_that_asks_first(request_context: RequestContext) -> None:
    tool = PythonTool(request_context)
    assert isinstance(tool, Tool)
    assert function_schema(tool)["function"]["name"] == "python"
    question = tool.confirmation({"code": "print(1)"})
    assert question is not None and "print(1)" in question and "```python" in question
    assert PythonTool(request_context, auto_run=True).confirmation({"code": "print(1)"}) is None


async def test_it_runs_code_and_returns_text_tables_and_figures(
    request_context: RequestContext,
) -> None:
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()["MSFT"].loc["2021"]
    tool = PythonTool(request_context)
    code = (
        "m = dp.prices('MSFT', '2021-01-01', '2021-12-31', field='adj_close')['MSFT']\n"
        "print(round(float(m.max()), 2))\n"
        "import matplotlib.pyplot as plt\nm.plot(); plt.show()\n"
        "m.tail(3).to_frame()"
    )
    result = await run_tool(tool, {"code": code})
    assert result.ok, result.text
    assert f"{round(float(prices.max()), 2)}" in result.text
    tables = [o for o in result.outputs if isinstance(o, TableOutput)]
    figures = [o for o in result.outputs if isinstance(o, TextOutput)]
    assert len(tables) == 1 and len(tables[0].rows) == 3
    assert len(figures) == 1 and figures[0].text.startswith("![figure](data:image/png;base64,")


async def test_errors_and_empty_code_reach_the_model(request_context: RequestContext) -> None:
    tool = PythonTool(request_context)
    failed = await run_tool(tool, {"code": "1/0"})
    assert failed.ok and "status: error" in failed.text and "ZeroDivisionError" in failed.text
    empty = await run_tool(tool, {"code": "  "})
    assert not empty.ok and "code" in empty.text
