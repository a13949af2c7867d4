"""The web page's server side, without a browser: the page and its files, the language it is
written in, its security headers, `GET /api/v1/features` and the follow-up questions."""

from __future__ import annotations

from pathlib import Path

import plotly
import pytest
from fastapi import FastAPI
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.core.answer import Answer
from datapilot.server.web import browser_language, features_of

# The optional pieces the page looks for (independent of the module's own table).
FEATURES = (
    "assistants",
    "chats",
    "usage",
    "knowledge",
    "memory",
    "tool_sources",
    "interpreter",
    "plugin",
)


@pytest.fixture()
def app(tmp_path: Path) -> FastAPI:
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.db'}"))


async def test_the_page_is_served_at_the_root_with_a_strict_policy(app: FastAPI) -> None:
    async with client_of(app) as client:
        page = await client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        csp = page.headers["content-security-policy"]
        directives = dict(part.strip().split(" ", 1) for part in csp.split(";"))
        assert directives["script-src"] == "'self'"  # no inline script, no eval
        assert directives["default-src"] == "'none'"
        assert "'self'" in directives["frame-ancestors"]
        assert '<script type="module" src="/web/static/app.js"></script>' in page.text
        assert '<html lang="en">' in page.text and ">Ask<" in page.text
        module = await client.get("/web/static/app.js")
        assert module.status_code == 200 and "javascript" in module.headers["content-type"]
        vendored = await client.get("/web/vendor/plotly.min.js")
        shipped = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
        assert vendored.status_code == 200 and vendored.content == shipped.read_bytes()
        # The API is where it was.
        assert (await client.get("/health")).status_code == 200


async def test_a_chinese_browser_gets_the_page_in_chinese(app: FastAPI) -> None:
    async with client_of(app) as client:
        page = await client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert '<html lang="zh-CN">' in page.text and ">提问<" in page.text
    assert "苹果" in page.text  # the example questions too


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("", "en"),
        ("zh-TW", "zh"),
        ("en-US,zh;q=0.5", "en"),
        ("zh;q=0.4, en;q=0.8", "en"),
        ("fr-FR, zh-CN;q=0.7, en;q=0.6", "zh"),
        ("de, fr", "en"),
        ("zh;q=0, en;q=0.1", "en"),
        ("zh;q=abc", "en"),
    ],
)
def test_the_language_follows_the_browser(header: str, expected: str) -> None:
    assert browser_language(header) == expected


async def test_features_name_the_optional_pieces_this_server_has(app: FastAPI) -> None:
    async with client_of(app) as client:
        served = (await client.get("/api/v1/features")).json()["features"]
    # This server has every piece (each area registers its routes).
    assert all(served[name] for name in FEATURES), served


def test_a_piece_shows_when_its_route_is_added() -> None:
    # Changed in the open: this used to add the memory route to the full app, which now has it;
    # a bare app shows the detection itself.
    bare = FastAPI()
    before = features_of(bare)

    @bare.get("/api/v1/memories")
    def memories() -> list[str]:
        return []

    after = features_of(bare)
    assert after["memory"] is True and before["memory"] is False
    assert {k: v for k, v in after.items() if k != "memory"} == {
        k: v for k, v in before.items() if k != "memory"
    }


async def test_with_keys_the_page_is_public_and_the_data_is_not(app: FastAPI) -> None:
    key = key_for(app.state.store, "ana")
    async with client_of(app) as client:
        assert (await client.get("/")).status_code == 200
        assert (await client.get("/web/static/core.js")).status_code == 200
        refused = await client.get("/api/v1/features")
        assert refused.status_code == 401 and "API key" in refused.json()["message"]
    async with client_of(app, key) as client:
        assert (await client.get("/api/v1/features")).status_code == 200


async def test_follow_ups_keep_the_entity_window_and_language(app: FastAPI) -> None:
    answer = {
        "query": "画一下苹果公司2019年的股价走势",
        "today": "2022-12-28",
        "status": "ok",
        "intent": {
            "rewritten": "画一下苹果公司2019-01-01至2019-12-31的股价走势",
            "entities": [{"id": "AAPL", "kind": "stock", "name": "苹果"}],
            "start": "2019-01-01",
            "end": "2019-12-31",
        },
    }
    Answer.model_validate(answer)
    async with client_of(app) as client:
        got = await client.post("/api/v1/follow-ups", json=answer)
        bad = await client.post("/api/v1/follow-ups", json={"query": "x"})
    suggestions = got.json()["suggestions"]
    assert suggestions and all("苹果" in s and "2019-01-01" in s for s in suggestions)
    assert bad.status_code == 422  # not an Answer: said so, field by field
