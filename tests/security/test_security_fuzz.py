"""Schemathesis over the app's own OpenAPI document, with a valid key: every operation, with
generated valid and invalid inputs (the document's examples, the coverage phase's boundary and
wrong-type values, and fuzzing), must answer without a server error — the one 5xx allowed is a
502 from a tool's upstream on `POST /api/v1/tools/{name}/call` — and what it answers must match
the response schema the document declares.

The operations that take free-form JSON get many examples, the rest a few. A path parameter
naming a row names a real one (unless the case makes that parameter invalid on purpose), so the
bodies reach the store and the turn instead of stopping at a 404. Derandomized: a run is
repeatable and a failure names the case to replay. Split into tests that xdist spreads."""

from __future__ import annotations

import re
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from pydantic import SecretStr
from schemathesis import Case, CheckContext, Response
from schemathesis.core.failures import ServerError
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import TestPhase
from schemathesis.specs.openapi.checks import response_schema_conformance

# Imported now, while collection runs in one thread: schemathesis imports it lazily, pytest's
# assertion rewriter parses it on import, and CPython 3.11's AST constructor tracks recursion
# depth in state shared by threads (python/cpython#106905) — parsed later, beside the session's
# server threads, it failed with "AST constructor recursion depth mismatch".
from schemathesis.specs.openapi.schemas import OpenApiSchema  # noqa: F401
from starlette.testclient import TestClient

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, Users
from datapilot.store.ints import INT64_MAX

pytestmark = pytest.mark.slow  # a bounded fuzzing run: a minute or two
# Per operation taking free-form JSON: 40 keep the whole suite within its time on two cores (80
# took ~6 minutes of a worker's time, the suite's largest share after the local model).
FREE_FORM_EXAMPLES = 40
OTHER_EXAMPLES = 8  # per other operation
QUERIES = ["POST /v1/query", "POST /assistants/{assistant_id}/v1/query"]  # the OpenBB agents
FREE_FORM = [
    *QUERIES,
    "POST /v1/chat/completions",
    "PATCH /api/v1/chats/{chat_id}",
    "GET /api/v1/chats/{chat_id}/messages/{message_id}/context",
]
UPSTREAM = "POST /api/v1/tools/{name}/call"  # a 502 there is the tool's upstream failing
QUESTION = "Apple's closing price in 2021"
ENV: dict[str, Any] = {}  # the key, and the ids of the rows made for the run


@pytest.fixture(scope="module")
def api_schema(data: object, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The document as the app serves it, the app answering in-process (ASGI)."""
    store = tmp_path_factory.mktemp("fuzz") / "store.sqlite3"
    app = create_app(
        Settings(
            brain="offline",
            offline=True,
            database_url=SecretStr(f"sqlite:///{store}"),
            request_timeout_s=20,
        ),
        warm_up=False,
    )
    with app.state.store.session() as session:
        Users(session).create("fuzzer")
        ENV["key"] = Keys(session).create("fuzz", "chat,manage,admin").key.get_secret_value()
    ENV["rows"] = _rows(TestClient(app, headers=_auth()))
    return schemathesis.openapi.from_asgi("/api/openapi.json", app, headers=_auth())


def _rows(client: TestClient) -> dict[tuple[str, str], Any]:
    """Rows for the path parameters to name: (path prefix, parameter) → id."""

    def made(response: Any) -> Any:
        assert response.status_code in (200, 201), response.text
        return response.json()

    assistant = made(client.post("/api/v1/assistants", json={"name": "Analyst", "public": True}))
    chat = made(client.post("/api/v1/chats", json={"assistant_id": assistant["id"]}))
    question = {"content": QUESTION, "stream": False, "today": "2022-12-28"}
    made(client.post(f"/api/v1/chats/{chat['id']}/messages", json=question))  # a history
    library = made(client.post("/api/v1/libraries", json={"name": "notes"}))
    attached = made(
        client.post(
            f"/api/v1/chats/{chat['id']}/files",
            json={"name": "note.txt", "content_base64": "aGVsbG8="},
        )
    )
    return {
        ("/api/v1/assistants/", "ref"): assistant["id"],
        ("/assistants/", "assistant_id"): assistant["id"],
        ("/api/v1/guest/assistants/", "assistant_id"): assistant["id"],
        ("/api/v1/chats/", "chat_id"): chat["id"],
        ("/api/v1/libraries/", "ref"): library["id"],
        ("/api/v1/files/", "file_id"): attached["file"]["id"],
    }


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {ENV['key']}"}


def _reach_deeper(case: Case) -> None:
    """Make a generated case go further than the first lookup. Path parameters name real rows,
    when the case means them to be valid (not for DELETE: it would take the rows from the cases
    after it). In the fuzzing phase, a chat completion names a real model and an OpenBB query
    holds a question, so that their bodies reach the turn instead of a 404 or 422."""
    if case.meta is None or case.method == "DELETE":
        return
    if not case.meta.is_negative_at(ParameterLocation.PATH):
        for (prefix, name), value in ENV["rows"].items():
            if case.path.startswith(prefix) and name in (case.path_parameters or {}):
                case.path_parameters[name] = value
    body = case.body
    if case.meta.phase.name != TestPhase.FUZZING or not isinstance(body, dict):
        return
    if case.path == "/v1/chat/completions" and isinstance(body.get("model"), str):
        body["model"] = ENV["rows"][("/assistants/", "assistant_id")]
    elif case.path.endswith("/v1/query") and isinstance(body.get("messages"), list):
        body["messages"].append({"role": "human", "content": QUESTION})


def no_server_error(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """No 5xx, but for a tool's upstream failing (502) on the tool call route."""
    status = response.status_code
    if status >= 500 and not (status == 502 and case.operation.label == UPSTREAM):
        raise ServerError(operation=case.operation.label, status_code=status)
    return None


CHECKS = [no_server_error, response_schema_conformance]
schema = schemathesis.pytest.from_fixture("api_schema")


def _run(case: Case) -> None:
    _reach_deeper(case)
    case.call_and_validate(headers=_auth(), checks=CHECKS)


def _settings(examples: int) -> Any:
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@schema.include(name=QUERIES).parametrize()
@_settings(FREE_FORM_EXAMPLES)
def test_openbb_queries(case: Case) -> None:
    _run(case)


@schema.include(name=[name for name in FREE_FORM if name not in QUERIES]).parametrize()
@_settings(FREE_FORM_EXAMPLES)
def test_other_free_form_operations(case: Case) -> None:
    _run(case)


@schema.exclude(name=FREE_FORM).parametrize()
@_settings(OTHER_EXAMPLES)
def test_other_operations(case: Case) -> None:
    _run(case)


def test_integer_parameters_are_bounded_to_64_bits(api_schema: Any) -> None:
    """Random integers rarely pass 2**63, so the bounds are checked here: the store's ints are
    64-bit (a larger one overflowed the driver: a 500), and every integer path or query
    parameter says so, and is refused beyond it."""
    client = TestClient(api_schema.app, headers=_auth())
    probed = 0
    for path, item in api_schema.raw_schema["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                options = parameter["schema"].get("anyOf", [parameter["schema"]])
                integer = next((o for o in options if o.get("type") == "integer"), None)
                if integer is None:
                    continue
                where = f"{method.upper()} {path} {parameter['name']}"
                assert integer.get("minimum", -(2**64)) >= -(2**63), where
                assert integer.get("maximum", 2**64) <= INT64_MAX, where
                if parameter["in"] == "path":
                    url = path.replace("{" + parameter["name"] + "}", str(2**64))
                    answer = client.request(method.upper(), re.sub(r"\{\w+\}", "x", url))
                    assert answer.status_code in (404, 422), (where, answer.text)
                    probed += 1
    assert probed  # the message context's id, at least


def test_the_whole_document_is_fuzzed(api_schema: Any) -> None:
    labels = {result.ok().label for result in api_schema.get_all_operations()}
    assert len(labels) > 30 and set(FREE_FORM) <= labels and UPSTREAM in labels
