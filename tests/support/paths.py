"""Where the tests' own files are, whatever folder a test file sits in."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent  # the repository
FIXTURES = TESTS / "fixtures"
CORPUS = TESTS / "corpus"
RECORDINGS = TESTS / "recordings"
SUPPORT = Path(__file__).resolve().parent  # this package
LLM_CASES = SUPPORT / "llm_cases"  # the scripted model outputs of the LLM brain tests

# The console scripts of the environment the tests run in (`llm`, `lint-imports`): beside the
# interpreter, found also when that environment is not activated (`venv/bin/python -m pytest`).
BIN = Path(sys.executable).parent


def console_script(name: str) -> Path:
    """The environment's console script `name`; fails naming how to install it."""
    found = BIN / name
    assert found.is_file(), f"`{name}` is missing beside {sys.executable}: pip install -e '.[test]'"
    return found
