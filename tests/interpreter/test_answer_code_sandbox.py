"""Every answer as code, run INSIDE the sandboxed kernel: `from datapilot import interfaces as dp`
there forwards each call through the kernel's read-only data channel (the kernel has no
warehouse, store or Datapilot of its own), and the script's charts and tables are exactly the
answer's. Also end to end: the interpreter route streams an answer's code, and `run` runs it.

The corpus sample is test_answer_code's (every 22nd answerable question of the four corpora:
all families, both languages), so the same answers are checked on the host and in the sandbox
within a few seconds each way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from support.answer_code import ask_offline, corpus_sample, output_frame
from support.interpreter import console_text, process_chunks, report, wire
from support.numeric_expect import source_frame
from support.platform_app import app_for, client_of, key_for

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.engine.context import RequestContext
from datapilot.interpreter.channel import data_channel
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.settings import Settings

MARK = "@@RESULT@@"
# Runs one script in its own folder and namespace, then prints what it made (as JSON) and the
# files it left: the test, not the kernel, compares them with the answer.
CELL = """
import json as _json, os as _os
from datapilot.interfaces import Output as _Output
_os.chdir(_os.environ["HOME"]); _os.makedirs({folder!r}); _os.chdir({folder!r})
_ns = {{"__name__": "__main__"}}
exec(compile({script!r}, "answer.py", "exec"), _ns)
_made = [v.model_dump(mode="json") for v in _ns.values() if isinstance(v, _Output)]
print({mark!r} + _json.dumps({{"outputs": _made, "files": sorted(_os.listdir("."))}}))
"""


@pytest.fixture(scope="module")
def kernel(data) -> Iterator[SandboxKernel]:  # type: ignore[no-untyped-def]
    settings = Settings(interpreter_timeout_s=120, interpreter_output_chars=50_000_000)
    request = RequestContext.for_request(
        QuestionContext(today=date(2022, 12, 28), offline=True), settings
    )
    started = SandboxKernel(settings, data_channel(request)).start()
    yield started
    started.close()


def run_script(kernel: SandboxKernel, folder: str, script: str) -> tuple[dict[str, Any], list]:
    chunks = wire(list(kernel.run(CELL.format(folder=folder, script=script, mark=MARK))))
    text = console_text(chunks)
    assert report(chunks)["status"] == "ok", (report(chunks), text[-3000:])
    (line,) = [line for line in text.splitlines() if line.startswith(MARK)]
    return json.loads(line[len(MARK) :]), chunks


@pytest.mark.slow
def test_the_corpus_scripts_reproduce_their_answers_in_the_sandbox(
    kernel: SandboxKernel, data: Any
) -> None:
    answers: list[tuple[str, Answer]] = []
    for case in corpus_sample():
        answer = ask_offline(case["query"], case["today"])
        if answer.status == "ok" and answer.code:
            answers.append((case["id"], answer))
    assert len(answers) >= 20, f"only {len(answers)} of the sample were answered"
    for case_id, answer in answers:
        result, chunks = run_script(kernel, case_id, answer.code or "")
        wanted = [output.model_dump(mode="json") for output in answer.outputs]
        got = result["outputs"]
        assert [o["kind"] for o in got] == [o["kind"] for o in wanted], answer.query
        for mine, theirs in zip(got, wanted, strict=True):
            if mine["kind"] != "text":
                pd.testing.assert_frame_equal(
                    output_frame(mine), output_frame(theirs), check_exact=True
                )
            assert mine == theirs, answer.query  # the whole output, exactly
        # What the script shows arrives as LMC: a title line, a figure per chart, a table per
        # table; each chart is also saved as a PNG in the script's folder.
        messages = process_chunks(chunks)
        kinds = [m["type"] for m in messages]
        charts = [o for o in wanted if o["kind"] == "chart"]
        assert kinds.count("image") == len(charts), answer.query
        assert kinds.count("table") == sum(o["kind"] == "table" for o in wanted), answer.query
        text = console_text(chunks)
        for output in wanted:
            assert (output.get("title") or output.get("text", "")[:40]) in text
        assert len([f for f in result["files"] if f.endswith(".png")]) == len(charts)
        assert report(chunks)["isolation"]["level"] == "namespace"


def test_frames_cross_the_channel_bit_for_bit(kernel: SandboxKernel, data: Any) -> None:
    """A frame fetched in the kernel, changed there and sent back keeps every float exactly."""
    code = (
        "from datapilot import interfaces as dp\n"
        "dp.use(today='2022-12-28', offline=True)\n"
        "p = dp.get_prices(ids=['AAPL', 'JPM'], start='2021-01-01', end='2021-12-31')\n"
        "r = dp.pct_change(frame=p / 3)\n"
        "print(repr(p['AAPL'].tolist()), '|', str(p.index.dtype), p.index.name)\n"
        "print(repr((p / 3)['JPM'].tolist()))\n"
    )
    text = console_text(wire(list(kernel.run(code))))
    first, second = text.strip().splitlines()
    values, index = first.split(" | ")
    source = source_frame("skfolio_sp500").loc["2021-01-01":"2021-12-31"]
    assert eval(values) == source["AAPL"].tolist()  # exact: no rounding on the way
    assert index.split()[1] == "date" and index.startswith("datetime64")
    assert eval(second) == (source["JPM"] / 3).tolist()


def test_only_read_only_interfaces_are_reachable(data: Any) -> None:
    """The allow-list is the registry's metadata: an interface marked as writing is refused,
    with a message naming the rule, even when called by name."""
    from datapilot.interfaces.library import default_registry
    from datapilot.interfaces.registry import Registry, interface
    from datapilot.interpreter.channel import ChannelError, allowed

    registry = Registry()
    for spec in default_registry():
        registry.register(spec)

    @interface("acquisition", "frame", target=registry, read_only=False)
    def save_note(ctx: Any, text: str) -> pd.DataFrame:
        """Writes a note (a stand-in for an interface with side effects)."""
        raise AssertionError("a write interface ran")

    request = RequestContext.for_request(
        QuestionContext(today=date(2022, 12, 28), offline=True), Settings(), registry=registry
    )
    assert "save_note" not in allowed(request) and "get_prices" in allowed(request)
    channel = data_channel(request)
    with pytest.raises(ChannelError, match="only read-only"):
        channel({"op": "call", "name": "save_note", "args": {"text": "x"}})
    assert "save_note" not in channel({"op": "list"})["value"]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, data) -> Iterator[FastAPI]:  # type: ignore[no-untyped-def]
    db = Path(tmp_path_factory.mktemp("sandboxcode")) / "store.sqlite3"
    settings = Settings(
        brain="offline",
        offline=True,
        today=date(2022, 6, 30),
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{db}"),
        interpreter_timeout_s=60,
    )
    made = app_for(settings)
    yield made
    sessions = getattr(made.state, "interpreter_sessions", None)
    if sessions is not None:
        sessions.close()


async def test_the_routes_answer_code_runs_in_the_sandbox_after_run(app: FastAPI) -> None:
    key = key_for(app.state.store, "carol", "chat")
    question = {
        "role": "user",
        "type": "message",
        "content": "Apple and Microsoft cumulative return in 2021",
    }
    async with client_of(app, key) as client:
        asked = await client.post("/api/v1/interpreter", json=[question])
        chunks = [json.loads(line) for line in asked.text.splitlines() if line]
        (code,) = [
            m
            for m in process_chunks(chunks)
            if (m["role"], m["type"], m["format"]) == ("assistant", "code", "python")
        ]
        assert "from datapilot import interfaces as dp" in code["content"]
        # The user edits the script to print the last value, then approves it with `run`.
        edited = {**code, "content": code["content"] + "print('LAST', float(dp.table("}
        (chart,) = [
            line.split(" = ")[0] for line in code["content"].splitlines() if " = dp.plot_" in line
        ]
        edited["content"] += f"{chart}).iloc[-1]['MSFT']))\n"
        ran = await client.post(
            "/api/v1/interpreter",
            json=[question, edited, {"role": "user", "type": "command", "content": "run"}],
        )
    chunks = [json.loads(line) for line in ran.text.splitlines() if line]
    assert report(chunks)["status"] == "ok", console_text(chunks)
    assert report(chunks)["isolation"]["level"] == "namespace"
    text = console_text(chunks)
    prices = source_frame("skfolio_sp500")["MSFT"]
    expected = (prices.loc[:"2021-12-31"].iloc[-1] / prices.loc[:"2020-12-31"].iloc[-1] - 1) * 100
    last = float(text.split("LAST ")[1].split()[0])
    assert last == pytest.approx(expected, abs=1e-3)
    assert [m["type"] for m in process_chunks(chunks)].count("image") == 1  # the chart, drawn


def test_the_kernels_own_dp_takes_frames_too(kernel: SandboxKernel, data: Any) -> None:
    """`dp.interfaces.<name>` and `dp.<name>` of the kernel's `dp` send frame arguments as
    frames: a cumulative return computed from a fetched frame matches pandas."""
    code = (
        "p = dp.prices(['AAPL'], '2021-01-01', '2021-12-31')\n"
        "a = dp.interfaces.cumulative_returns(frame=p)\n"
        "b = dp.cumulative_returns(frame=p)\n"
        "print(repr(float(a['AAPL'].iloc[-1])), a.equals(b), 'cumulative_returns' in dir(dp))\n"
    )
    text = console_text(wire(list(kernel.run(code))))
    last, same, listed = text.split()
    prices = source_frame("skfolio_sp500")["AAPL"]
    expected = (prices.loc[:"2021-12-31"].iloc[-1] / prices.loc[:"2020-12-31"].iloc[-1] - 1) * 100
    assert float(last) == pytest.approx(expected, abs=1e-9)
    assert same == "True" and listed == "True"
