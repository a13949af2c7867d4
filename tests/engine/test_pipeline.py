"""The pipeline: event order, one Done whatever happens, no_data, plan errors, brain choice."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from support.asking import ask, request_for, run, select_brain
from support.toy_interfaces import make_registry, toy_context, toy_prices

import datapilot.brains as brains
from datapilot.brains import BrainUnavailable
from datapilot.brains.replay import PlanBrain
from datapilot.core.context import QuestionContext, WidgetDataRequest, WidgetInfo
from datapilot.core.events import Done, Failed
from datapilot.core.plan import Call, Plan, Step, Task, ref
from datapilot.engine.brain import Understanding
from datapilot.engine.facts import format_value, grounded
from datapilot.settings import Settings

TODAY = date(2021, 3, 1)


def plan_for(start: str = "2021-01-04", end: str = "2021-02-12", *extra: Call) -> Plan:
    return Plan(
        tasks=[
            Task(kind="data", instruction="Fetch AAA closes"),
            Task(kind="visualization", instruction="Plot them"),
        ],
        steps=[
            Step(
                calls=[
                    Call(
                        interface="fetch",
                        args={"ids": ["AAA"], "start": start, "end": end},
                        output="prices",
                    )
                ]
            ),
            Step(
                calls=[
                    Call(
                        interface="line", args={"frame": ref("prices"), "title": "AAA"}, output="c"
                    ),
                    *extra,
                ]
            ),
        ],
    )


def settings(**overrides) -> Settings:
    return Settings(**{"call_timeout_s": 5.0, "request_timeout_s": 30.0, **overrides})


async def collect(question: str, brain, **options) -> list:
    registry, _ = make_registry()
    options = {"registry": registry, "interface_context": toy_context(), **options}
    context = QuestionContext(today=TODAY)
    return [
        event async for event in run(question, context, brain=brain, settings=settings(), **options)
    ]


async def answer_of(question: str, brain, **setting_overrides):
    """The non-streaming `ask` on the toy interfaces."""
    registry, _ = make_registry()
    return await ask(
        question,
        QuestionContext(today=TODAY),
        brain=brain,
        registry=registry,
        interface_context=toy_context(),
        settings=settings(**setting_overrides),
    )


class Broken:
    """A brain that fails where it is told to."""

    name = "broken"

    def __init__(self, where: str, understanding: Understanding | None = None) -> None:
        self.where = where
        self.understanding = understanding

    async def understand(self, question, context) -> Understanding:
        if self.where == "understand":
            raise RuntimeError("model went away")
        return self.understanding or Understanding(plan=plan_for())

    async def summarize(self, question, understanding, run, context):
        yield "Partial "
        if self.where == "summarize":
            raise RuntimeError("stream cut")
        yield "summary."


def only_done(events: list) -> Done:
    done = [e for e in events if isinstance(e, Done)]
    assert len(done) == 1 and events[-1] is done[0]
    return done[0]


async def test_a_run_streams_every_stage_then_one_done() -> None:
    question = "Plot AAA from January 4 to February 12, 2021"
    events = await collect(question, PlanBrain(plan_for()))
    types = [e.type for e in events]
    assert types[:3] == ["status", "intent", "plan"]
    assert types.index("step_started") < types.index("step_finished") < types.index("output")
    assert types.index("output") < types.index("text_delta") < types.index("done")
    answer = only_done(events).answer
    assert answer.status == "ok" and answer.today == TODAY
    assert [o.kind for o in answer.outputs] == ["chart"]
    assert answer.intent.start == date(2021, 1, 4) and answer.intent.end == date(2021, 2, 12)
    assert answer.sources == ["toy warehouse", "toyland"]
    assert set(answer.timings_ms) == {"understand", "validate", "execute", "summarize", "total"}
    # The summary is the streamed text, grounded in computed values.
    streamed = "".join(e.text for e in events if e.type == "text_delta")
    assert answer.summary == streamed.strip()
    window = toy_prices(["AAA"])["AAA"].loc["2021-01-04":"2021-02-12"]
    assert format_value(window.iloc[-1], "USD") in answer.summary
    facts = [f for e in events if e.type == "step_finished" for f in e.record.facts]
    assert grounded(answer.summary, facts, context=question)


@pytest.mark.parametrize("where", ["understand", "select"])
async def test_a_failing_brain_still_ends_with_one_done(where: str, monkeypatch) -> None:
    if where == "select":

        def unavailable(request):
            raise BrainUnavailable("no brain here")

        monkeypatch.setattr(brains, "select_brain", unavailable)
        brain = None
    else:
        brain = Broken("understand")
    events = await collect("Plot AAA", brain)
    failed = [e for e in events if isinstance(e, Failed)]
    answer = only_done(events).answer
    assert len(failed) == 1 and answer.status == "error"
    assert answer.message == failed[0].message
    assert ("model went away" if brain else "no brain here") in answer.message


async def test_a_failing_summary_keeps_the_results() -> None:
    answer = only_done(await collect("Plot AAA", Broken("summarize"))).answer
    assert answer.status == "ok" and len(answer.outputs) == 1
    assert answer.summary == "Partial"
    assert any("stream cut" in note for note in answer.notes)


async def test_invalid_plan_fails_before_running() -> None:
    bad = Plan(steps=[Step(calls=[Call(interface="fetchh", args={"ids": ["AAA"]}, output="p")])])
    events = await collect("Plot AAA", PlanBrain(bad))
    assert not [e for e in events if e.type == "step_started"]
    answer = only_done(events).answer
    assert answer.status == "error" and "unknown interface 'fetchh'" in answer.message
    assert "did you mean 'fetch'" in answer.message
    assert [e.type for e in events].count("failed") == 1


async def test_no_data_names_entities_window_and_coverage() -> None:
    events = await collect("Plot AAA in 2030", PlanBrain(plan_for("2030-01-01", "2030-12-31")))
    answer = only_done(events).answer
    assert answer.status == "no_data" and answer.outputs == [] and answer.summary == ""
    assert "AAA" in answer.message and "2030-01-01" in answer.message
    assert "2030-12-31" in answer.message
    assert "Alpha Corp" in answer.message and "2021-01-04 to 2021-02-12" in answer.message


async def test_a_partial_failure_is_not_ok_and_keeps_what_ran() -> None:
    extra = Call(interface="refuse", args={"frame": ref("prices"), "message": "nope"}, output="r")
    answer = only_done(
        await collect("Plot AAA", PlanBrain(plan_for("2021-01-04", "2021-02-12", extra)))
    ).answer
    # No answer is `ok` when a planned step failed: the part that ran is shown, said to be partial.
    assert answer.status == "no_data" and len(answer.outputs) == 1
    assert "refuse" in answer.message and "nope" in answer.message
    assert "not the answer" in answer.message
    assert any("refuse" in note and "nope" in note for note in answer.notes)
    assert "refuse failed: nope" in answer.summary


async def test_every_call_failing_is_an_error() -> None:
    plan = Plan(steps=[Step(calls=[Call(interface="sleepy", args={"seconds": 0.5}, output="s")])])
    answer = await answer_of("Sleep", PlanBrain(plan), call_timeout_s=0.05)
    assert answer.status == "error" and "did not finish within 0.05 s" in answer.message


async def test_request_timeout_ends_the_stream_cleanly() -> None:
    plan = Plan(steps=[Step(calls=[Call(interface="sleepy", args={"seconds": 1.0}, output="s")])])
    answer = await answer_of("Sleep", PlanBrain(plan), request_timeout_s=0.2)
    assert answer.status == "error" and "longer than 0.2 s" in answer.message
    assert answer.timings_ms["total"] < 900


async def test_out_of_scope_and_widget_requests_pass_through() -> None:
    refusal = Understanding(status="out_of_scope", message="I only answer data questions.")
    answer = only_done(await collect("Tell me a joke", Broken("", refusal))).answer
    assert answer.status == "out_of_scope" and answer.message == "I only answer data questions."
    assert answer.plan is None

    needs = WidgetDataRequest(widgets=[WidgetInfo(uuid="u1", widget_id="w", name="Prices")])
    events = await collect("Use my widget", Broken("", Understanding(needs=needs)))
    assert [e.type for e in events][-2:] == ["needs_client_data", "done"]
    answer = only_done(events).answer
    assert answer.status == "ok" and "widget" in answer.message


async def test_plan_only_stops_after_planning() -> None:
    events = await collect("Plot AAA", PlanBrain(plan_for()), plan_only=True)
    assert "step_started" not in [e.type for e in events]
    answer = only_done(events).answer
    assert answer.status == "ok" and answer.plan is not None and answer.outputs == []


async def test_client_tables_reach_interfaces() -> None:

    from datapilot.core.context import ClientTable

    context = QuestionContext(
        today=TODAY, tables=[ClientTable(name="mine", columns=["a"], rows=[[1], [2]])]
    )
    ctx = await asyncio.to_thread(request_for(context).interface_context)
    assert ctx.tables["mine"]["a"].tolist() == [1, 2] and ctx.today == TODAY


class _Named:
    def __init__(self, *args) -> None:
        self.args = args


class OfflineStub(_Named):
    name = "offline"


class LLMStub(_Named):
    name = "llm"


@pytest.fixture()
def stub_brains(monkeypatch):
    # Brains are built from the request's context; the stubs keep the settings they were given.
    factories = {
        "offline": lambda request: OfflineStub(request.settings),
        "llm": lambda request: LLMStub(request.settings),
    }
    monkeypatch.setattr(brains, "brains", lambda: factories)


def test_brain_choice(stub_brains) -> None:
    bare = Settings()
    model = Settings(llm_base_url="http://localhost:1234/v1", llm_model="m")
    ctx = QuestionContext(today=TODAY)
    assert select_brain(ctx, bare).name == "offline"
    assert select_brain(ctx, model).name == "llm"
    assert select_brain(ctx.model_copy(update={"brain": "offline"}), model).name == "offline"
    assert select_brain(ctx.model_copy(update={"offline": True}), model).name == "offline"
    with pytest.raises(BrainUnavailable, match="DATAPILOT_LLM_MODEL"):
        select_brain(ctx.model_copy(update={"brain": "llm"}), bare)
    # A request may bring its own model and key.
    own = ctx.model_copy(update={"brain": "llm", "llm_model": "x", "llm_api_key": "k"})
    brain = select_brain(own, bare)
    assert brain.name == "llm" and brain.args[0].llm_model == "x"


def test_auto_falls_back_to_offline_when_the_llm_brain_cannot_load(monkeypatch) -> None:
    def not_installed(request):
        raise BrainUnavailable("not installed")

    factories = {"offline": lambda request: OfflineStub(request.settings), "llm": not_installed}
    monkeypatch.setattr(brains, "brains", lambda: factories)
    model = Settings(llm_base_url="http://localhost:1234/v1", llm_model="m")
    assert select_brain(QuestionContext(today=TODAY), model).name == "offline"


async def test_a_brain_that_cannot_be_built_fails_inside_the_stream(monkeypatch) -> None:
    # Any error while choosing or building the brain (a bad user vocabulary file, a plugin
    # clash) ends like any other failure: the reading status, one failed event, one done.
    def broken(request):
        raise ValueError("charts.toml: key 'charts.radar' is not a chart type")

    monkeypatch.setattr(brains, "select_brain", broken)
    events = await collect("Plot AAA", None)
    assert events[0].type == "status"
    failed = [e for e in events if isinstance(e, Failed)]
    answer = only_done(events).answer
    assert len(failed) == 1 and answer.status == "error"
    assert (
        answer.message == "Something went wrong: ValueError: charts.toml: key 'charts.radar' "
        "is not a chart type"
    )
    assert "total" in answer.timings_ms
