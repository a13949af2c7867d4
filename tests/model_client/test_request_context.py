"""Request state travels in the request's context: concurrent requests never share a model key,
and the data, settings and library a request runs with are the ones it was given."""

from __future__ import annotations

import asyncio
from datetime import date

import httpx
import pytest
from support.llm import LOOPBACK, time_limit

from datapilot.brains import select_brain
from datapilot.core.context import QuestionContext
from datapilot.data.access import DataAccess, open_data
from datapilot.engine.context import RequestContext
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.health import forget_health
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = LOOPBACK
QUESTIONS = {
    "key-alpha-111": "Plot Apple's closing price in 2021",
    "key-bravo-222": "Plot Microsoft's closing price in 2021",
}


def _slow_garbage(request: ChatRequest) -> Reply:
    # Not a plan (so each request makes its planning call and two repairs), and slow enough that
    # both requests are at the model at the same time.
    return Reply(content="no plan here", delay_s=0.15)


@time_limit(120)
async def test_concurrent_workspace_requests_with_different_keys_never_see_each_others(
    data,
) -> None:
    forget_endpoint_modes()
    forget_health()
    with ScriptedEndpoint(_slow_garbage) as endpoint:
        settings = Settings(llm_base_url=endpoint.base_url, llm_model="m", llm_max_retries=0)
        app = create_app(settings, warm_up=False)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", timeout=60
        ) as client:

            async def ask(key: str, question: str) -> httpx.Response:
                payload = {
                    "messages": [{"role": "human", "content": question}],
                    "api_keys": {"openai_api_key": key},
                    "workspace_options": [],
                }
                return await client.post("/v1/query", json=payload)

            responses = await asyncio.gather(*(ask(k, q) for k, q in QUESTIONS.items()))
        seen = [(r.authorization, r.prompt) for r in endpoint.requests]

    assert all(response.status_code == 200 for response in responses)
    assert len(seen) >= 2 * len(QUESTIONS)  # every request reached the model
    for key, question in QUESTIONS.items():
        other = next(k for k in QUESTIONS if k != key)
        calls = [auth for auth, prompt in seen if question in prompt]
        assert calls and all(auth == f"Bearer {key}" for auth in calls), (key, calls)
        assert not any(other in (auth or "") for auth, prompt in seen if question in prompt)
    # The settings the server was started with never took a request's key.
    assert settings.llm_api_key is None


def test_a_request_brings_its_own_key_and_model_without_touching_the_settings(data) -> None:
    settings = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    first = RequestContext.for_request(
        QuestionContext(today=date(2022, 1, 3), llm_api_key="k1", llm_model="x"), settings
    )
    second = RequestContext.for_request(QuestionContext(today=date(2022, 1, 3)), settings)
    assert first.settings.llm_api_key is not None
    assert first.settings.llm_api_key.get_secret_value() == "k1"
    assert first.settings.llm_model == "x"
    assert second.settings.llm_api_key is None and second.settings.llm_model == "m"
    assert settings.llm_api_key is None and settings.llm_model == "m"
    brain = select_brain(first)
    assert brain.name == "llm" and brain.settings.llm_model == "x"  # type: ignore[attr-defined]


def test_interfaces_read_the_data_of_their_request(tmp_path, data) -> None:
    from datapilot.interfaces.prices import get_prices

    # Two requests on two data dirs: the one with a private catalog and warehouse sees only them.
    mine = DataAccess(Settings(data_dir=tmp_path), warehouse=data.warehouse, catalog=data.catalog)
    context = QuestionContext(today=date(2022, 1, 3))
    request = RequestContext.for_request(context, mine.settings, data=mine)
    ctx = request.interface_context()
    assert ctx.data is mine and ctx.warehouse is data.warehouse and ctx.catalog is data.catalog
    frame = get_prices(ctx, ["AAPL"], date(2021, 1, 4), date(2021, 1, 8))
    expected = data.warehouse.prices(["AAPL"], date(2021, 1, 4), date(2021, 1, 8))
    assert len(frame) == expected["date"].nunique() == 5


def test_the_data_of_one_data_dir_is_opened_once_and_shared(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert open_data(settings) is open_data(Settings(data_dir=tmp_path))
    other = open_data(Settings(data_dir=tmp_path / "other"))
    assert other is not open_data(settings)


@pytest.mark.parametrize("offline", [True, False])
def test_live_fetching_follows_the_request_and_the_settings(offline: bool, tmp_path) -> None:
    live = DataAccess(Settings(data_dir=tmp_path, providers=["bundled", "yahoo"]))
    assert live.live_fetching(offline) is (not offline)
    assert not DataAccess(Settings(data_dir=tmp_path)).live_fetching(offline)
    closed = Settings(data_dir=tmp_path, providers=["yahoo"], offline=True)
    assert not DataAccess(closed).live_fetching(offline)


def test_a_request_key_never_reaches_the_shared_data(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    context = QuestionContext(today=date(2022, 1, 3), llm_api_key="secret-key-333")
    request = RequestContext.for_request(context, settings)
    assert request.data is open_data(settings)
    assert request.data.settings.llm_api_key is None
    assert "secret-key-333" not in repr(request.settings)


@time_limit(60)
async def test_the_llm_brains_offline_fallback_reads_the_requests_data(tmp_path, data) -> None:
    from datapilot.brains.llm import LLMBrain
    from datapilot.data.catalog import Catalog, Entity

    forget_health()
    # The request's catalog knows a company the environment's does not.
    catalog = Catalog([Entity(id="ZZZ", kind="stock", name="Zeta Corp", available=True)])
    mine = DataAccess(Settings(data_dir=tmp_path), warehouse=data.warehouse, catalog=catalog)
    settings = Settings(data_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    brain = LLMBrain(settings, data=mine)  # nothing listens on port 9: the model is unreachable
    understanding = await brain.understand(
        "Plot Zeta Corp's closing price in 2021", QuestionContext(today=date(2022, 1, 3))
    )
    assert "the offline reader answered" in understanding.notes[0]
    assert understanding.intent is not None
    assert [e.id for e in understanding.intent.entities] == ["ZZZ"]
