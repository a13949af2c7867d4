"""A bounded schemathesis run over the app's own OpenAPI document: every route, with generated
(valid and invalid) inputs, must answer without a server error (5xx), and what it answers must
conform to the response schema the document declares."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Keys, Users

KEY: dict[str, str] = {}
EXAMPLES = 6  # per route: bounded, so the whole run stays well under a minute


@pytest.fixture(scope="module")
def api_schema(data: object, tmp_path_factory: pytest.TempPathFactory) -> Any:
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
        KEY["value"] = Keys(session).create("fuzz", "chat,manage,admin").key.get_secret_value()
    # The full document as the app builds it in-process (whatever URL serves it).
    loaded = schemathesis.openapi.from_dict(app.openapi())
    loaded.app = app
    return loaded


def test_no_server_errors_and_responses_match_their_schemas(api_schema: Any) -> None:
    headers = {"Authorization": f"Bearer {KEY['value']}"}
    checks = [not_a_server_error, response_schema_conformance]
    failures: dict[str, str] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 30  # the whole document, not a part of it

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            case.call_and_validate(headers=headers, checks=checks)

        try:
            run()
        except Exception as error:  # every route's failure reported, not only the first
            failures[operation.label] = str(error)[:2000]
    assert not failures, "\n\n".join(f"{label}: {text}" for label, text in failures.items())
