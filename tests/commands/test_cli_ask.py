"""`datapilot ask` with a plan file on toy interfaces: JSON, files, terminal view, exit codes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.toy_interfaces import make_registry, toy_context, toy_prices
from typer.testing import CliRunner

import datapilot.engine.pipeline as pipeline
from datapilot.cli import app
from datapilot.core.plan import Call, Plan, Step, Task, ref

runner = CliRunner()


@pytest.fixture(autouse=True)
def toy_engine(monkeypatch):
    """Run the real pipeline, but on toy interfaces instead of the library and warehouse."""
    original = pipeline.run

    def run(question, request, **options):
        registry, _ = make_registry()
        request.registry = registry
        options.update(interface_context=toy_context(request.question.today))
        return original(question, request, **options)

    monkeypatch.setattr(pipeline, "run", run)


def write_plan(tmp_path: Path, start: str = "2021-01-04", end: str = "2021-02-12") -> Path:
    plan = Plan(
        tasks=[
            Task(kind="data", instruction="Fetch AAA and BBB closes"),
            Task(kind="visualization", instruction="Chart and tabulate them"),
        ],
        steps=[
            Step(
                calls=[
                    Call(
                        interface="fetch",
                        args={"ids": ["AAA", "BBB"], "start": start, "end": end},
                        output="prices",
                    )
                ]
            ),
            Step(
                calls=[
                    Call(
                        interface="line",
                        args={"frame": ref("prices"), "title": "AAA & BBB close"},
                        output="chart",
                    ),
                    Call(
                        interface="table",
                        args={"frame": ref("prices"), "title": "Closes"},
                        output="tab",
                    ),
                ]
            ),
        ],
    )
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json(), encoding="utf-8")
    return path


def test_json_prints_exactly_one_answer(tmp_path: Path) -> None:
    plan = write_plan(tmp_path)
    result = runner.invoke(
        app, ["ask", "Plot AAA and BBB", "--plan", str(plan), "--json", "--today", "2021-03-01"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)  # the whole of stdout is one JSON object
    assert answer["status"] == "ok" and answer["today"] == "2021-03-01"
    assert [o["kind"] for o in answer["outputs"]] == ["chart", "table"]
    # Changed: the summary opens with the answer (AAA's latest close), then says how ("I …").
    assert answer["summary"].startswith("AAA's close was ") and " I fetched " in answer["summary"]
    assert set(answer["timings_ms"]) >= {"understand", "validate", "execute", "total"}


def test_out_writes_png_html_csv_and_answer(tmp_path: Path) -> None:
    out = tmp_path / "out"
    plan = write_plan(tmp_path)
    result = runner.invoke(
        app, ["ask", "Plot AAA and BBB", "--plan", str(plan), "--json", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    png = Path(answer["outputs"][0]["png"])
    assert png == out / "aaa-bbb-close.png" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = (out / "aaa-bbb-close.html").read_text(encoding="utf-8")
    assert "plotly.min.js" in html and (out / "plotly.min.js").exists()
    with (out / "closes.csv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    expected = toy_prices(["AAA", "BBB"]).loc["2021-01-04":"2021-02-12"]
    assert rows[0] == ["date", "AAA", "BBB"] and len(rows) == len(expected) + 1
    assert float(rows[-1][2]) == pytest.approx(expected["BBB"].iloc[-1])
    saved = json.loads((out / "answer.json").read_text(encoding="utf-8"))
    assert saved["outputs"][0]["png"] == str(png)
    assert not list(out.glob(".*partial*"))


def test_terminal_view_shows_plan_steps_table_and_summary(tmp_path: Path) -> None:
    plan = write_plan(tmp_path)
    result = runner.invoke(app, ["ask", "Plot AAA and BBB", "--plan", str(plan)])
    assert result.exit_code == 0, result.output
    text = result.stdout
    for part in [
        "Plan",
        "Step 1",
        "fetch",
        "✓",
        "Closes",
        "chart (line) AAA & BBB close",
        "Summary",
    ]:
        assert part in text, part
    assert "…" in text  # a long table is cut


def test_plan_only_and_replaying_its_output(tmp_path: Path) -> None:
    plan = write_plan(tmp_path)
    first = runner.invoke(app, ["ask", "Plot AAA", "--plan", str(plan), "--plan-only", "--json"])
    assert first.exit_code == 0, first.output
    planned = json.loads(first.stdout)
    assert planned["plan"]["steps"] and planned["outputs"] == []
    saved = tmp_path / "planned.json"
    saved.write_text(first.stdout, encoding="utf-8")
    replay = runner.invoke(app, ["ask", "Plot AAA", "--plan", str(saved), "--json"])
    assert json.loads(replay.stdout)["outputs"]


def test_exit_codes(tmp_path: Path) -> None:
    empty = write_plan(tmp_path, "2030-01-01", "2030-12-31")
    result = runner.invoke(app, ["ask", "Plot AAA in 2030", "--plan", str(empty), "--json"])
    assert result.exit_code == 3 and json.loads(result.stdout)["status"] == "no_data"

    broken = tmp_path / "broken.json"
    broken.write_text('{"steps": [{"calls": [{"interface": "nope", "output": "x"}]}]}')
    result = runner.invoke(app, ["ask", "Anything", "--plan", str(broken), "--json"])
    assert result.exit_code == 1
    assert "unknown interface 'nope'" in json.loads(result.stdout)["message"]

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    result = runner.invoke(app, ["ask", "Anything", "--plan", str(garbage)])
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps lines
    assert result.exit_code == 2 and "is not valid JSON" in flat

    result = runner.invoke(app, ["ask", "Anything", "--today", "yesterday"])
    assert result.exit_code == 2
