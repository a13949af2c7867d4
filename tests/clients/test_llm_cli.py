"""simonw's `llm` CLI with Datapilot as an OpenAI-compatible model (an
`extra-openai-models.yaml` in a temporary LLM_USER_PATH), against a live server on loopback:
a prompt, `--schema`, and the `stop` and `max_tokens` options."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.live_server import LOOPBACK
from support.openai_face import live_offline
from support.paths import console_script
from support.platform_app import QUESTION, apple_2021_return_pct

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory, data: object) -> Iterator[Path]:
    """A user folder of `llm` naming the live server as the model `dp`."""
    console_script("llm")  # fails here, naming the install, rather than in each test
    folder = tmp_path_factory.mktemp("llm-user")
    with live_offline(tmp_path_factory.mktemp("llm-server")) as (url, key):
        (folder / "extra-openai-models.yaml").write_text(
            "- model_id: dp\n"
            "  model_name: datapilot\n"
            f"  api_base: {url}/v1\n"
            "  api_key_name: dp\n"
            "  supports_schema: true\n"
        )
        (folder / "keys.json").write_text(json.dumps({"dp": key}))
        yield folder


def ask(folder: Path, *options: str) -> str:
    environment = {**os.environ, "LLM_USER_PATH": str(folder)}
    done = subprocess.run(
        [str(console_script("llm")), "-m", "dp", *options, QUESTION],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_prompt_answers_without_the_notice(llm: Path) -> None:
    said = ask(llm)
    assert f"{apple_2021_return_pct():.2f}%" in said and "No model" not in said


def test_schema_returns_json_filled_from_the_answer(llm: Path) -> None:
    filled = json.loads(ask(llm, "--schema", "query, summary"))
    assert filled["query"] == QUESTION
    assert f"{apple_2021_return_pct():.2f}%" in filled["summary"]


def test_stop_and_max_tokens_options_cut_the_reply(llm: Path) -> None:
    whole = ask(llm)
    stopped = ask(llm, "-o", "stop", "%")
    assert stopped == whole[: whole.index("%")].strip()
    short = ask(llm, "-o", "max_tokens", "4")
    assert short and whole.startswith(short) and len(short) < len(whole) / 4
