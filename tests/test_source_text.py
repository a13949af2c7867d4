"""Source files hold no control characters: a backspace typed where a pattern meant `\\b` (a word
boundary) makes the pattern silently never match."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_no_source_file_holds_a_control_character() -> None:
    found = []
    for folder in ("datapilot", "tests", "bench", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".toml", ".md", ".json", ".jsonl", ".txt", ".yml"}:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if _CONTROL.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, found
