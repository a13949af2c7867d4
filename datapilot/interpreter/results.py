"""A run's chunks as the text a language model reads: console output, a line per figure or
table, and the run's status when it did not end well."""

from __future__ import annotations

from typing import Any


def model_text(chunks: list[dict[str, Any]], limit: int = 8000) -> str:
    """What `chunks` (wire dicts of one run, or computer messages) showed, capped at `limit`."""
    console: list[str] = []
    notes: list[str] = []
    for chunk in chunks:
        kind, fmt, content = chunk.get("type"), chunk.get("format"), chunk.get("content")
        if chunk.get("start") or chunk.get("end") or fmt == "active_line":
            continue
        if kind == "console" and content:
            console.append(str(content))
        elif kind == "image" and content:
            notes.append("[a figure was shown to the user]")
        elif kind == "table" and isinstance(content, dict):
            rows = content.get("total_rows", "?")
            notes.append(f"[a table of {rows} rows was shown to the user]")
        elif kind == "code" and fmt == "html":
            notes.append("[HTML output was shown to the user]")
        elif chunk.get("role") == "server" and fmt == "execution" and isinstance(content, dict):
            if content.get("status") not in (None, "ok"):
                notes.append(f"status: {content['status']}")
            notes.extend(str(note) for note in content.get("notes", []))
        elif chunk.get("role") == "server" and kind == "error":
            notes.append(f"error: {content}")
    text = "".join(console).strip()
    if len(text) > limit:
        text = text[:limit] + f"\n[… {len(text) - limit} more characters cut]"
    return "\n".join(part for part in (text, *notes) if part)
