"""Where the tests' own files are, whatever folder a test file sits in."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent  # the repository
FIXTURES = TESTS / "fixtures"
CORPUS = TESTS / "corpus"
RECORDINGS = TESTS / "recordings"
SUPPORT = Path(__file__).resolve().parent  # this package
LLM_CASES = SUPPORT / "llm_cases"  # the scripted model outputs of the LLM brain tests
