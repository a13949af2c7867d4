"""What `datapilot serve` does before its port answers, and what a terminal answer imports.

Start-up pays only for what every request needs (the app, its routes, the store checked):
the model client, the MCP SDK, the forecasting models, the documents' readers and the charts'
font list wait for the request that uses them, or for the warm-up, which runs once the server
serves. A question the data answers, asked from the terminal, needs neither the server nor the
store nor a model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from datapilot.settings import get_settings
from datapilot.store import open_store

# Loaded by a request that needs them (or by the warm-up, in the background), never before the
# port answers: each costs 0.1-1 s of a start-up that should take seconds.
NOT_BEFORE_SERVING = (
    "openai",  # the model client's SDK
    "datapilot.model_client.client",
    "mcp",  # the /mcp endpoint's SDK
    "alembic",  # a current store is told without it
    "matplotlib",  # the Chinese-font check, and PNG charts
    "statsmodels",  # forecasts (warm-up)
    "arch",
    "jieba",  # documents (warm-up)
    "pdfplumber",
    "datapilot.brains.offline.planner",  # the offline brain (warm-up)
    "jupyter_client",  # the code kernel (the first `python` run)
    "datapilot.watches.reading",  # the first watch read
    "datapilot.watching.scheduler",  # built in the background once the server serves
    # The chats' and libraries' machinery: their routes declare request and response shapes
    # (`assistants.messages_in`, `knowledge.infos`) and load it with the first request.
    "pandas",  # the engine, client tables, imported tools' tables
    "httpx",  # the outbound client (imported tools, documents by URL, embeddings)
    "datapilot.knowledge.library",
    "datapilot.assistants.runtime",
    # The memories' routes declare their shapes (`assistants.memory_infos`): the memories'
    # search (BM25 and vectors: the knowledge index, numpy) loads with their first request.
    "numpy",
    "datapilot.assistants.memory",
    "datapilot.assistants.context_store",
    "datapilot.knowledge.index",
)

_SERVE_START = """
import sys
from datapilot.commands.serve import _refuse_open_network, _say_missing_parts, _say_plugin_gaps
from datapilot.server.app import create_app
from datapilot.settings import get_settings

settings = get_settings()
_refuse_open_network("127.0.0.1", settings)
_say_missing_parts(settings)
_say_plugin_gaps(settings)
create_app(settings)
print("LOADED", *sorted(m for m in {modules!r} if m in sys.modules))
"""


def _loaded(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return done.stdout.rsplit("LOADED", 1)[1].split()


def test_serve_builds_its_app_without_what_a_request_can_load(data: object) -> None:
    open_store(get_settings())  # a store at the current schema, as on every start but the first
    assert _loaded(_SERVE_START.format(modules=NOT_BEFORE_SERVING)) == []


# What answering a question the data answers, from the terminal, must not import: the server
# (its hooks' registration module aside: it imports nothing) and its web stack, the store and
# SQLAlchemy, the model client and its SDK, the outbound client, the imported tools, the chats'
# machinery, the knowledge libraries.
NOT_FOR_A_DATA_ANSWER = (
    "datapilot.store",
    "sqlalchemy",
    "datapilot.model_client",
    "openai",
    "httpx",
    "fastapi",
    "uvicorn",
    "jsonschema",
    "datapilot.net.client",
    "datapilot.tools.imported",
)
NOT_FOR_A_DATA_ANSWER_PREFIXES = (
    "datapilot.server.",
    "datapilot.knowledge",
    "datapilot.assistants",
)

_ASK = """
import atexit, sys
sys.argv = ["datapilot", "ask", {question!r}, "--json"]
def report():
    names = [m for m in sys.modules if m in {modules!r} or m.startswith({prefixes!r})]
    print("LOADED", *sorted(set(names) - {{"datapilot.server.plugin"}}))
# At exit: an answered ask ends inside `app()` (a quick exit that still runs these handlers).
atexit.register(report)
from datapilot.cli import app
app()
"""


@pytest.mark.parametrize(
    "question",
    ["Apple closing price in 2020", "苹果2021年的收盘价", "Compare MSFT and NVDA in 2022"],
)
def test_a_data_answer_from_the_terminal_imports_no_server_store_or_model(
    data: object, question: str
) -> None:
    code = _ASK.format(
        question=question, modules=NOT_FOR_A_DATA_ANSWER, prefixes=NOT_FOR_A_DATA_ANSWER_PREFIXES
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # answered from the data
    assert '"status": "ok"' in done.stdout
    assert done.stdout.rsplit("LOADED", 1)[1].split() == []


# The module every route's errors come from maps the domain errors without loading the
# machinery that raises them (repositories, knowledge libraries, imported tools, the outbound
# client): its import is FastAPI and the store's models, nothing more.
NOT_FOR_THE_ERRORS = (
    "pandas",
    "numpy",
    "httpx",
    "jsonschema",
    "datapilot.assistants.repo",
    "datapilot.assistants.conversations",
    "datapilot.knowledge.library",
    "datapilot.data.documents",
    "datapilot.tools.imported",
    "datapilot.tools.sources",
    "datapilot.net.client",
)


def test_the_api_errors_import_none_of_the_machinery_they_name() -> None:
    code = f"""
import sys
import datapilot.server.errors
print("LOADED", *sorted(m for m in {NOT_FOR_THE_ERRORS!r} if m in sys.modules))
"""
    assert _loaded(code) == []


def test_the_start_up_notes_load_neither_pandas_nor_the_outbound_client() -> None:
    # `datapilot serve` says which optional parts are missing before it binds its port.
    code = """
import sys
from datapilot.server.parts import OPTIONAL, check_parts
from datapilot.settings import get_settings
check_parts(get_settings(), OPTIONAL)
print("LOADED", *sorted(m for m in ("pandas", "numpy", "matplotlib", "httpx", "duckdb")
                         if m in sys.modules))
"""
    assert _loaded(code) == []
