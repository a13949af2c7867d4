"""Every answer as code: the script in `Answer.code` reproduces the answer when run.

The corpus test asks a sample of the corpora's answerable questions offline, runs every
script in a separate Python process and compares the tables and charts the scripts make with
the Answer's, with pandas. The CLI test runs `datapilot ask --code`, edits the script as a user
would and runs it with `python`; its figure is computed here from the source dataset.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from support.answer_code import ask_offline, corpus_sample, output_frame
from support.numeric_expect import source_frame
from typer.testing import CliRunner

from datapilot.core.answer import Answer
from datapilot.core.events import Done
from datapilot.core.plan import Call, Plan, Step
from datapilot.render.code import answer_script
from datapilot.render.lmc import lmc_chunks

HARNESS = """
import contextlib, io, json, os, runpy, sys, traceback
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput

results = {}
for path in sys.argv[1:]:
    os.chdir(os.path.dirname(path))
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            namespace = runpy.run_path(path, run_name="__main__")
    except Exception:
        results[path] = {"error": traceback.format_exc()}
        continue
    outputs = [
        value.model_dump(mode="json")
        for value in namespace.values()
        if isinstance(value, ChartOutput | TableOutput | TextOutput)
    ]
    results[path] = {"outputs": outputs, "printed": printed.getvalue()}
json.dump(results, sys.stdout)
"""


@pytest.mark.slow
def test_scripts_reproduce_the_corpus_answers_exactly(tmp_path: Path, data: Any) -> None:
    answers: dict[str, Answer] = {}
    for case in corpus_sample():
        answer = ask_offline(case["query"], case["today"])
        if answer.status != "ok":
            continue  # the corpus tests judge the answers; this test judges their scripts
        assert answer.code, f"{case['id']}: an answered question has no script"
        # A call too long for a line wraps, one argument a line (a long title stays whole).
        long = [line for line in answer.code.splitlines() if len(line) > 100]
        assert all(line.startswith(("#", "    ")) for line in long), answer.code
        folder = tmp_path / case["id"]
        folder.mkdir()
        (folder / "answer.py").write_text(answer.code, encoding="utf-8")
        answers[str(folder / "answer.py")] = answer
    assert len(answers) >= 20, f"only {len(answers)} of the sample were answered"

    ran = subprocess.run(
        [sys.executable, "-c", HARNESS, *answers],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    results = json.loads(ran.stdout)
    for path, answer in answers.items():
        result = results[path]
        assert "error" not in result, f"{answer.query!r}:\n{answer.code}\n{result.get('error')}"
        wanted = [output.model_dump(mode="json") for output in answer.outputs]
        got = result["outputs"]
        assert [o["kind"] for o in got] == [o["kind"] for o in wanted], answer.query
        assert wanted, answer.query
        for mine, theirs in zip(got, wanted, strict=True):
            if mine["kind"] == "text":
                assert mine["text"] == theirs["text"]
                continue
            assert mine["title"] == theirs["title"]
            pd.testing.assert_frame_equal(
                output_frame(mine), output_frame(theirs), check_exact=True
            )
            assert mine == theirs, answer.query  # panels, units, fit lines: the whole output
            # The script prints each result: its title shows on the output.
            assert mine["title"] in result["printed"]
        for output in answer.outputs:
            if output.kind == "chart":
                assert any(Path(path).parent.glob("*.png")), "charts are saved as PNG"


def test_ask_code_prints_a_script_a_user_edits_and_runs(tmp_path: Path, data: Any) -> None:
    from datapilot.cli import app

    result = CliRunner().invoke(
        app,
        ["ask", "Apple and Microsoft cumulative return in 2021", "--code", "--today", "2022-06-30"],
    )
    assert result.exit_code == 0, result.output
    script = result.stdout
    ast.parse(script)  # the script alone: no progress lines, no JSON around it
    assert script.startswith("# Apple and Microsoft cumulative return in 2021\n")
    assert "from datapilot import interfaces as dp" in script
    assert 'start="2021-01-01"' in script and 'end="2021-12-31"' in script
    # A user swaps Microsoft for JPMorgan and prints the last row of the chart's data.
    edited = script.replace('"MSFT"', '"JPM"')
    edited += "print(repr(dp.table(chart).iloc[-1].to_dict()))\n"
    path = tmp_path / "answer.py"
    path.write_text(edited, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "cumulative return" in ran.stdout
    last = ast.literal_eval(ran.stdout.strip().splitlines()[-1])
    prices = source_frame("skfolio_sp500")
    for ticker in ("AAPL", "JPM"):
        base = prices.loc[:"2020-12-31", ticker].iloc[-1]
        end = prices.loc[:"2021-12-31", ticker].iloc[-1]
        assert last[ticker] == pytest.approx((end / base - 1) * 100, abs=1e-3)
    assert "MSFT" not in last
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ask_code_without_a_plan_says_why_on_stderr(data: Any) -> None:
    from datapilot.cli import app

    result = CliRunner().invoke(
        app, ["ask", "What's the weather in Paris tomorrow?", "--code", "--brain", "offline"]
    )
    assert result.exit_code == 3
    assert result.stdout == ""
    assert "No script for this answer" in result.stderr


def test_ask_code_refuses_json_and_plan_only() -> None:
    from datapilot.cli import app

    both = CliRunner().invoke(app, ["ask", "aapl 2021", "--code", "--json"])
    assert both.exit_code == 2 and "--json" in both.output
    early = CliRunner().invoke(app, ["ask", "aapl 2021", "--code", "--plan-only"])
    assert early.exit_code == 2 and "--plan-only" in early.output


def _plan(*calls: Call) -> Plan:
    return Plan(steps=[Step(calls=[call]) for call in calls])


def test_script_names_are_python_and_failed_calls_stay_as_comments() -> None:
    plan = _plan(
        Call(interface="get_prices", args={"ids": ["A"], "start": "2020-01-01"}, output="1st-x"),
        Call(interface="get_prices", args={"ids": ["B"]}, output="class"),
        Call(
            interface="merge_frames",
            args={"frames": [{"$ref": "1st-x"}, {"$ref": "class"}]},
            output="dp",
        ),
        Call(
            interface="plot_line",
            args={"frame": {"$ref": "dp"}, "title": 'say "hi"\n'},
            output="c",
        ),
    )
    script = answer_script(
        plan,
        query="两只股票\nprint('x')",
        today=date(2022, 1, 3),
        shown={"c": "chart"},
        language="zh",
        offline=True,
        not_run={"class": "get_prices failed (no data for B)"},
    )
    tree = ast.parse(script)
    assigned = [node.targets[0].id for node in tree.body if isinstance(node, ast.Assign)]
    # A bad name, a keyword and the facade's own name become distinct variables; the failed
    # call is a comment, so its name is never assigned.
    assert assigned == ["_1st_x", "dp_", "c"]
    assert "# class_ = dp.get_prices(" in script
    assert "# Not run in the answer: get_prices failed (no data for B)" in script
    assert "frames=[_1st_x, class_]" in script
    assert 'dp.use(today="2022-01-03", language="zh", offline=True)' in script
    assert script.splitlines()[0] == "# 两只股票 print('x')"  # the question stays a comment
    title = next(
        kw.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "title"
    )
    assert title == 'say "hi"\n'


def test_script_reads_client_tables_from_files() -> None:
    plan = _plan(Call(interface="get_client_table", args={"name": "sales"}, output="t"))
    script = answer_script(plan, query="q", today=date(2022, 1, 3), shown={}, tables=["sales"])
    ast.parse(script)
    assert 'tables={"sales": pd.read_csv("sales.csv")}' in script
    assert "import pandas as pd" in script


def test_facade_errors_name_the_problem(data: Any) -> None:
    from datapilot import interfaces as dp
    from datapilot.interfaces import InterfaceError

    with pytest.raises(InterfaceError, match=r"no interface 'get_pricez'.*dp\.names"):
        dp.call("get_pricez")
    with pytest.raises(AttributeError, match=r"dp\.names"):
        _ = dp.get_pricez
    with pytest.raises(InterfaceError, match="argument 'start'"):
        dp.get_prices(ids=["AAPL"], start="yesterday-ish")
    with pytest.raises(InterfaceError, match="takes a DataFrame"):
        dp.cumulative_returns(frame=[1, 2, 3])


def test_facade_never_changes_the_callers_frame(data: Any) -> None:
    from datapilot import interfaces as dp

    dp.use(today="2022-12-28", offline=True)
    prices = dp.get_prices(ids=["AAPL"], start="2021-01-01", end="2021-03-31")
    before = prices.copy()
    dp.cumulative_returns(frame=prices)
    dp.normalize(frame=prices)
    pd.testing.assert_frame_equal(prices, before)
    source = source_frame("skfolio_sp500").loc["2021-01-01":"2021-03-31", "AAPL"]
    assert prices["AAPL"].tolist() == pytest.approx(source.tolist(), rel=1e-9)


def test_lmc_streams_the_script_as_a_python_code_block() -> None:
    answer = Answer(query="q", today=date(2022, 1, 3), status="ok", code="x = 1\n")

    async def events():  # type: ignore[no-untyped-def]
        yield Done(answer=answer)

    async def collect() -> list[Any]:
        return [chunk async for chunk in lmc_chunks(events())]

    chunks = [c.model_dump(exclude_none=True) for c in asyncio.run(collect())]
    code = [c for c in chunks if c["type"] == "code" and c.get("format") == "python"]
    assert code[0].get("start") and code[-1].get("end")
    assert "".join(c.get("content", "") for c in code) == "x = 1\n"
    assert chunks[-2]["type"] == "answer" and chunks[-2]["content"]["code"] == "x = 1\n"


async def test_openbb_answers_carry_their_script_in_a_reasoning_step(data: Any) -> None:
    from support.openbb import human, make_client, of, query

    async with make_client() as client:
        events = await query(client, human("Microsoft closing price in 2021", "2022-06-30"))
    (step,) = [s for s in of(events, "copilotStatusUpdate") if s["message"].startswith("The Py")]
    (details,) = step["details"]
    script = details["Python"]
    ast.parse(script)
    assert "dp.get_prices(" in script and '"MSFT"' in script
