"""The web page: a chat for analysts at `/`, served by the same app as the API.

No build step: one server-rendered HTML page (its words in the browser's language), an ES module
and a style sheet from `static/`, and Plotly.js from the installed plotly package. The page talks
to the API like any other client (LMC chunk streams, the platform's routes) and shows each optional
piece (knowledge libraries, memories, tool sources, the interpreter) only when this server has it,
as `GET /api/v1/features` says.
"""

from __future__ import annotations

import asyncio
import html
import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.routing import Match

from datapilot import __version__
from datapilot.core.answer import Answer
from datapilot.server.auth import AUTH_RESPONSES
from datapilot.server.chat_titles import chat_title
from datapilot.server.deps import CHAT
from datapilot.server.parts import Part, parts_of
from datapilot.server.static_files import CompressedStaticFiles, compressed_file
from datapilot.server.suggestions import follow_ups, starters

STATIC = Path(__file__).parent / "static"
JS = "text/javascript"
PLOTLY_CACHE = "public, max-age=2592000"  # 30 days, then revalidated by its ETag
LANGUAGES = ("en", "zh")
# Scripts only from this origin (no inline script, no eval); Plotly sets inline styles, so
# styles may be inline. Interpreter and artifact HTML goes into sandboxed iframes (srcdoc).
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "font-src 'self' data:",
        "frame-src 'self' blob: data:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'self'",
        "object-src 'none'",
    ]
)
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
# A feature is present when the app has its route (whoever registered it).
FEATURE_ROUTES = {
    "assistants": "/api/v1/assistants",
    "chats": "/api/v1/chats",
    "usage": "/api/v1/usage",
    "knowledge": "/api/v1/libraries",
    "memory": "/api/v1/memories",
    "tool_sources": "/api/v1/tools/sources",
    "interpreter": "/api/v1/interpreter",
    "data_imports": "/api/v1/data/imports",
    "watches": "/api/v1/watches/inbox",
    "plugin": "/.well-known/ai-plugin.json",
}

router = APIRouter(tags=["Web page"])


class Features(BaseModel):
    """Which optional pieces this server has; the web page shows each one only when present."""

    version: str
    features: dict[str, bool] = Field(
        description="Feature name → whether it works here: its routes exist and, for the "
        "interpreter, the host can isolate code now."
    )
    parts: dict[str, Part] = Field(
        default_factory=dict,
        description="Each part of the installation → whether it is available, and if not, why "
        "and the fix (the interpreter's isolation, a Chinese font for PNG charts, the database, "
        "Redis when configured, the model endpoint, live providers).",
    )


class FollowUpsOut(BaseModel):
    suggestions: list[str]
    title: str | None = Field(
        default=None,
        description="A name for the chat from the answer's resolved intent (entities, measure, "
        "window) in the question's language; null when it resolved no entity.",
    )


def features_of(app: FastAPI) -> dict[str, bool]:
    """Each feature of `FEATURE_ROUTES` → whether `app` serves its route."""
    return {name: serves(app, path) for name, path in FEATURE_ROUTES.items()}


def serves(app: FastAPI, path: str) -> bool:
    """Whether a request for `path` reaches a route of `app` (any method), asked the way the
    router itself matches, so routes of included routers and plugins count too."""
    scope: dict[str, Any] = {"type": "http", "path": path, "method": "GET", "root_path": ""}
    scope |= {"headers": [], "query_string": b"", "app": app}
    return any(route.matches(scope)[0] is not Match.NONE for route in app.router.routes)


@router.get(
    "/api/v1/features",
    response_model=Features,
    dependencies=CHAT,
    responses=AUTH_RESPONSES,
    summary="The optional pieces this server has",
)
async def features(request: Request) -> Features:
    app = request.app
    # Local checks only (the store, fonts, bwrap): the model endpoint's is its last known state.
    parts = await asyncio.to_thread(parts_of(app).get)
    present = features_of(app)
    # Routes alone do not make Code mode work: the host must isolate code as configured.
    present["interpreter"] = present["interpreter"] and parts["interpreter"].available
    return Features(version=__version__, features=present, parts=parts)


@router.post(
    "/api/v1/follow-ups",
    response_model=FollowUpsOut,
    dependencies=CHAT,
    responses=AUTH_RESPONSES,
    summary="Follow-up questions for an answer, in its language",
)
async def follow_up_questions(answer: Answer, request: Request) -> FollowUpsOut:
    title = await asyncio.to_thread(chat_title, answer, request.app.state.settings)
    return FollowUpsOut(suggestions=follow_ups(answer), title=title)


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page(request: Request) -> HTMLResponse:
    lang = browser_language(request.headers.get("accept-language", ""))
    return HTMLResponse(render_page(lang), headers=PAGE_HEADERS)


@router.get("/web/vendor/plotly.min.js", include_in_schema=False)
async def plotly_js(request: Request) -> Response:
    # 4.8 MB, 1.4 MB compressed; it changes only with the installed plotly (then its ETag does).
    return compressed_file(_plotly_path(), request.headers, PLOTLY_CACHE, media_type=JS)


def mount(app: FastAPI) -> None:
    """Add the page, its static files and its routes to `app`."""
    app.include_router(router)
    app.mount("/web/static", CompressedStaticFiles(directory=STATIC), name="web-static")


def browser_language(accept: str) -> str:
    """ "zh" when the browser prefers Chinese to English, else "en" (RFC 9110 weights)."""
    ranked: list[tuple[float, int, str]] = []
    for order, part in enumerate(accept.split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        base = tag.strip().lower().split("-")[0]
        if base in LANGUAGES and weight > 0:
            ranked.append((-weight, order, base))
    return min(ranked)[2] if ranked else "en"


@cache
def strings() -> dict[str, dict[str, str]]:
    """The page's words per language (the module reads the same file)."""
    loaded: dict[str, dict[str, str]] = json.loads((STATIC / "i18n.json").read_text("utf-8"))
    return loaded


@cache
def render_page(lang: str) -> str:
    """The page in `lang`: every `{{key}}` of the template is that language's string."""
    words = strings()[lang]
    text = (Path(__file__).parent / "page.html").read_text("utf-8")
    for key, value in words.items():
        text = text.replace("{{" + key + "}}", html.escape(value))
    examples = "".join(
        f'<button type="button" class="example" data-question="{html.escape(q)}">'
        f"{html.escape(q)}</button>"
        for q in starters(lang)
    )
    values: dict[str, Any] = {
        # Inline (styles may be): the first paint waits for no second request.
        "style": (STATIC / "style.css").read_text("utf-8"),
        "lang": "zh-CN" if lang == "zh" else "en",
        "examples": examples,
        "version": html.escape(__version__),
        # Both languages' words, for the language switch (an attribute: no inline script).
        "i18n": html.escape(json.dumps(strings(), ensure_ascii=False)),
        "starters": html.escape(
            json.dumps({code: starters(code) for code in LANGUAGES}, ensure_ascii=False)
        ),
    }
    for key, value in values.items():
        text = text.replace("[[" + key + "]]", str(value))
    return text


@cache
def _plotly_path() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
