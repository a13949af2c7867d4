"""The interface design stage: profiles, self-requests and coverage, and a full round with a
scripted model — a user's dividends file becomes a tested, accepted interface that answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pandas as pd
import pluggy
import pytest
from rapidfuzz import fuzz
from rapidfuzz.utils import default_process
from support import design as scripted
from support import paths
from typer.testing import CliRunner

from datapilot.core.plan import Plan
from datapilot.data.access import DataAccess
from datapilot.data.tables import TableImportError, import_table
from datapilot.design import library, stage
from datapilot.design.profile import profile_all
from datapilot.design.requests import offline_requests
from datapilot.design.sandbox import Limits
from datapilot.design.specs import InterfaceDesign
from datapilot.design.trying import try_requests
from datapilot.engine.check import check_plan
from datapilot.engine.executor import default_registry
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.scripted import Reply, ScriptedEndpoint
from datapilot.plugins import load_local_plugins
from datapilot.settings import Settings

FIXTURE = paths.FIXTURES / "design" / "dividends.csv"
TODAY = date(2022, 12, 28)
QUESTION = "What was Apple's dividend yield at the end of 2022?"


# ---- profiles and requests over the bundled data ----------------------------------------


def test_every_bundled_dataset_is_profiled_with_a_runnable_access_example(data) -> None:
    profiles = profile_all(data.warehouse, data.catalog)
    coverage = data.warehouse.coverage()
    expected = {f"{s}/{t}" for s, t in coverage[["source", "table"]].drop_duplicates().values}
    assert {p.source for p in profiles} == expected
    registry = default_registry()
    for profile in profiles:
        rows = coverage[coverage["source"] + "/" + coverage["table"] == profile.source]
        assert sorted(profile.entities) == sorted(rows["id"].unique())
        assert profile.first == rows["first"].min().date()
        assert profile.last == rows["last"].max().date()
        assert profile.head and profile.tail and profile.description
        assert {"id", "date"} <= {c.name for c in profile.columns}
        call = {"calls": [{**profile.access, "output": "data"}]}
        plan = Plan.model_validate({"steps": [call]})
        assert check_plan(plan, registry).ok, profile.access


def test_offline_requests_cover_every_family_in_both_languages_without_near_duplicates(
    data,
) -> None:
    profiles = profile_all(data.warehouse, data.catalog)
    made = offline_requests(profiles, data.catalog, per_profile=80)
    assert len(made) >= 300
    assert {r.lang for r in made} == {"en", "zh"}
    prices = [r for r in made if r.source == "skfolio/prices"]
    assert {"calendar_return", "sharpe", "max_drawdown", "forecast"} <= {r.family for r in prices}
    by_source: dict[str, list[str]] = {}
    for request in made:
        for other in by_source.get(request.source, []):
            assert fuzz.token_sort_ratio(request.query, other, processor=default_process) < 92
        by_source.setdefault(request.source, []).append(request.query)


def test_cli_profile_json_and_unknown_source(data) -> None:
    from datapilot.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["design", "profile", "statsmodels/series", "--json"])
    assert result.exit_code == 0, result.output
    [profile] = json.loads(result.stdout)
    assert "GDPC1" in profile["entities"] and profile["frequency"] == "quarterly"
    result = runner.invoke(app, ["design", "profile", "nowhere"])
    assert result.exit_code == 1 and "No source named 'nowhere'" in result.output


def test_a_table_without_a_header_name_is_refused(tmp_path) -> None:
    from datapilot.data.warehouse import Warehouse

    bad = tmp_path / "bad.csv"
    bad.write_text("date,,x\n2021-01-01,1,2\n")
    with pytest.raises(TableImportError, match="every column needs a name"):
        import_table(Warehouse(tmp_path / "w.duckdb"), bad)


# ---- a full round with a scripted model ------------------------------------------------------


@pytest.fixture(scope="module")
def endpoint():
    with ScriptedEndpoint([Reply(content="{}")]) as served:
        yield served


@pytest.fixture()
def user_dir(data, tmp_path) -> Path:
    """A user's data dir: the bundled warehouse plus their own dividends table."""
    from datapilot.data.warehouse import Warehouse

    shutil.copyfile(data.warehouse.path, tmp_path / "warehouse.duckdb")
    warehouse = Warehouse(tmp_path / "warehouse.duckdb")
    import_table(warehouse, FIXTURE)
    warehouse.close()
    return tmp_path


def _settings(user_dir: Path, endpoint: ScriptedEndpoint) -> Settings:
    forget_endpoint_modes()
    return Settings(
        data_dir=user_dir,
        llm_base_url=endpoint.base_url,
        llm_model="scripted-designer",
        llm_timeout_s=10,
        llm_max_retries=0,
        today=TODAY,
    )


def _expected_yield() -> float:
    """Apple's dividends with an ex-date in the year to its last close on 2022-12-28 over that
    close, from the CSV and the bundled prices."""
    from datapilot.data import get_warehouse

    dividends = pd.read_csv(FIXTURE, parse_dates=["date"])
    prices = get_warehouse().prices(["AAPL"], date(2022, 12, 1), TODAY)
    last = prices.iloc[-1]
    close = last["close"] if pd.notna(last["close"]) else last["adj_close"]
    when = pd.Timestamp(last["date"])
    own = dividends[dividends["ticker"] == "AAPL"]
    paid = own[(own["date"] > when - pd.DateOffset(years=1)) & (own["date"] <= when)]
    return float(paid["dividend"].sum()) / float(close) * 100


def _ask(user_dir: Path, endpoint: ScriptedEndpoint) -> dict:
    """`datapilot ask` in a new process (a new start) with the scripted model planning."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATAPILOT_")}
    env |= {
        "DATAPILOT_DATA_DIR": str(user_dir),
        "DATAPILOT_CONFIG": str(user_dir / "absent.toml"),
        "DATAPILOT_LLM_BASE_URL": endpoint.base_url,
        "DATAPILOT_LLM_MODEL": "scripted-analyst",
        "DATAPILOT_LLM_MAX_RETRIES": "0",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    code = "from datapilot.cli import app; app()"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "ask",
            QUESTION,
            "--brain",
            "llm",
            "--json",
            "--today",
            TODAY.isoformat(),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout)


def _analyst(request) -> Reply:
    if request.stream:
        return Reply(content="Here is Apple's trailing dividend yield from your dividends table.")
    return Reply(content=scripted.ask_plan(TODAY.isoformat()))


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.slow
def test_a_full_design_round_grows_an_interface_that_answers(user_dir, endpoint) -> None:
    settings = _settings(user_dir, endpoint)
    data = DataAccess(settings)
    profiles = profile_all(data.warehouse, data.catalog)
    [table] = [p for p in profiles if p.source == "table:dividends"]
    assert table.entities == ["AAPL", "JPM", "MSFT"]
    assert [c.name for c in table.columns] == ["date", "ticker", "dividend"]

    # Self-request and try: the library cannot read the table, so yield questions are gaps.
    made = [r for r in offline_requests([table], data.catalog, 8)]
    tried = try_requests(made, settings, data)
    yields = [r for r in tried if r.family == "table_ratio_to_price"]
    assert yields and all(r.status == "gap" for r in yields), [r.public() for r in yields]
    stage.save_requests(settings, tried)

    # Define: two specs kept; a malformed one and one whose plan calls nothing real refused.
    endpoint.load([Reply(content=scripted.DEFINE_REPLY)])
    specs, round_ = stage.define(settings, default_registry(), tried, profiles)
    assert [s.name for s in specs] == ["dividend_yield_latest", "dividend_yield_at"]
    assert any("Dividend Growth!" in r and "malformed" in r for r in round_.refused)
    assert any("payout_ratio" in r and "get_earnings" in r for r in round_.refused)
    assert round_.model == "scripted-designer" and round_.prompt_tokens > 0

    # Merge: the model proposes one interface with a date argument; the structure confirms it.
    endpoint.load([Reply(content=scripted.MERGE_REPLY)])
    merged, round_ = stage.merge(settings, default_registry())
    assert [s.name for s in merged] == ["dividend_yield"]
    assert merged[0].merged_from == ["dividend_yield_latest", "dividend_yield_at"]
    assert round_.changed == ["merged dividend_yield_latest, dividend_yield_at into dividend_yield"]

    # Implement: code + tests pass under limits and become a package, not yet registered.
    endpoint.load([Reply(content=scripted.code_reply())])
    [outcome] = stage.implement(settings, profiles)
    assert outcome.ok and [t["passed"] for t in outcome.tests] == [True, True]
    [package] = library.packages(user_dir)
    assert package.provenance.requests == merged[0].requests
    assert package.provenance.model == "scripted-designer" and not package.provenance.accepted
    assert load_local_plugins(pluggy.PluginManager("datapilot"), user_dir) == []

    # Accept: registered, and the question is answered through it.
    library.accept(user_dir, ["dividend_yield"])
    manager = pluggy.PluginManager("datapilot")
    assert load_local_plugins(manager, user_dir) == ["local:dividend_yield"]
    endpoint.load(_analyst)
    answer = _ask(user_dir, endpoint)
    assert answer["status"] == "ok", answer.get("message")
    assert "import:dividends.csv" in answer["sources"]
    [table_out] = [o for o in answer["outputs"] if o["kind"] == "table"]
    columns = table_out["columns"]
    row = table_out["rows"][0]
    assert row[columns.index("yield_pct")] == pytest.approx(_expected_yield(), abs=0.01)

    # A package changed after acceptance is no longer loaded.
    with open(Path(package.path) / "interface.py", "a") as code:
        code.write("\n# edited\n")
    assert load_local_plugins(pluggy.PluginManager("datapilot"), user_dir) == []


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (scripted.code_reply(tests=scripted.FAILING_TESTS), "tests failed: test_apple_at"),
        (scripted.code_reply(code=scripted.NETWORK_CODE), "tried to reach the network"),
        pytest.param(
            scripted.code_reply(code=scripted.FOREVER_CODE), "were stopped", marks=pytest.mark.slow
        ),
        (json.dumps({"code": "def broken(:\n", "tests": ""}), "the code cannot be parsed"),
    ],
    ids=["failing", "network", "forever", "syntax"],
)
def test_bad_code_is_rejected_with_its_reason_and_nothing_is_registered(
    user_dir, endpoint, reply, reason
) -> None:
    settings = _settings(user_dir, endpoint)
    spec = InterfaceDesign.model_validate(scripted.MERGED)
    stage.save_specs(settings, [spec])
    endpoint.load([Reply(content=reply)])
    [outcome] = stage.implement(settings, [], limits=Limits(cpu_s=3, wall_s=12))
    assert not outcome.ok and reason in (outcome.reason or ""), outcome.reason
    assert library.packages(user_dir) == []
    assert stage.load_specs(settings)[0].status == "failed"
    assert stage.rounds(settings)[-1].refused == [f"dividend_yield: {outcome.reason}"]


def test_cli_accept_and_reject_name_what_exists(tmp_path, monkeypatch) -> None:
    from datapilot.cli import app
    from datapilot.settings import get_settings

    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        runner = CliRunner()
        result = runner.invoke(app, ["design", "accept", "nothing"])
        assert result.exit_code == 1 and "No designed interface 'nothing'" in result.output
        result = runner.invoke(app, ["design", "accept"])
        assert result.exit_code == 1 and "--all" in result.output
        result = runner.invoke(app, ["design", "list"])
        assert result.exit_code == 0 and "No designed interfaces yet" in result.output
    finally:
        get_settings.cache_clear()


def test_model_requests_are_parsed_deduplicated_and_malformed_replies_refused(data) -> None:
    from datapilot.design.requests import dedupe, parse_model_requests

    [profile] = [
        p for p in profile_all(data.warehouse, data.catalog) if p.source == "skfolio/prices"
    ]
    reply = json.dumps(
        {
            "requests": [
                {
                    "query": "What was Apple's return in 2021?",
                    "family": "calendar_return",
                    "lang": "en",
                },
                {
                    "query": "what was apple's return in 2021",
                    "family": "calendar_return",
                    "lang": "en",
                },
                {"query": "苹果2021年的收益率", "family": "calendar_return", "lang": "zh"},
            ]
        }
    )
    made = dedupe(parse_model_requests(reply, profile, 10))
    assert [r.query for r in made] == ["What was Apple's return in 2021?", "苹果2021年的收益率"]
    assert all(r.source == "skfolio/prices" and r.today == profile.last for r in made)
    with pytest.raises(ValueError, match="malformed"):
        parse_model_requests('{"requests": [{"query": "x"}]}', profile, 10)


def test_a_tool_source_is_profiled_from_its_tools_without_calling_them() -> None:
    from datetime import datetime

    from datapilot.design.profile import tool_profile
    from datapilot.tools.sources import AuthInfo, SourceInfo, ToolSummary

    source = SourceInfo(
        id="s1",
        name="quotes",
        kind="openapi",
        url=None,
        description="Delayed quotes",
        tools=[
            ToolSummary(
                name="get_quote",
                qualified="quotes.get_quote",
                description="A quote",
                parameters={"properties": {"symbol": {"type": "string", "description": "Ticker"}}},
            )
        ],
        problems=[],
        auth=AuthInfo(),
        created_at=datetime(2026, 1, 1),
    )
    profile = tool_profile(source)
    assert profile.source == "tool:quotes" and "get_quote" in profile.description
    assert [(c.name, c.type, c.meaning) for c in profile.columns] == [
        ("get_quote.symbol", "string", "Ticker")
    ]
    assert profile.access == {"tool": "get_quote", "route": "POST /api/v1/tools/get_quote/call"}


# ---- fixes the coverage report led to --------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "lacking"),
    [
        ("Correlation of daily returns between Nasdaq Composite and VIX in 2008", "^VIX"),
        ("苹果和脸书2006年日收益率的相关性", "FB"),
    ],
)
async def test_a_correlation_with_a_name_lacking_data_says_which(data, question, lacking) -> None:
    from support.asking import ask

    from datapilot.core.context import QuestionContext

    answer = await ask(question, QuestionContext(today=date(2019, 1, 3), brain="offline"))
    first = data.catalog.get(lacking).first
    assert answer.status == "no_data"
    assert lacking in (answer.message or "") and str(first) in (answer.message or "")


@pytest.mark.parametrize(
    "question", ["What is the latest dividend of Apple?", "Total dividend of Apple in 2022"]
)
async def test_dividends_asked_offline_are_refused_not_answered_with_prices(data, question) -> None:
    """The self-requests of an imported dividends table found these answered with Apple's
    prices: "dividend of" was read as a misspelt "dividend ETF" (SCHD), hiding the measure."""
    from support.asking import ask

    from datapilot.core.context import QuestionContext

    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "no_data" and not answer.outputs
    assert "company financial figures" in (answer.message or "")
