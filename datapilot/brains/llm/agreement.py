"""When the offline reader's answer stands instead of the model's, and the note that says so.

The reader reads every question the model plans. Where the reader answers it (status `ok`), a
model that reads it otherwise — other entities, another window, or no answer at all — is the one
that is wrong more often than not, and a figure computed from its reading would be a figure the
reader would not compute: the reader's answer is given. Where the reader has no data for what
the question names, a model's `ok` would answer another question. Where the reader cannot read
the question (out of its scope), the model's reading stands: that is what a model is for, and its
summary still quotes only computed results.
"""

from __future__ import annotations

from typing import Literal

from datapilot.engine.brain import Understanding

FallbackKind = Literal["unconfigured", "offline", "endpoint", "plan", "differs"]

# (English, Chinese): short, in the question's language; what went wrong goes to the trace.
FALLBACK_NOTES: dict[FallbackKind, tuple[str, str]] = {
    "unconfigured": (
        "No model is configured (set DATAPILOT_LLM_MODEL); the offline reader answered.",
        "未配置模型（请设置 DATAPILOT_LLM_MODEL），由离线阅读器作答。",
    ),
    "offline": (
        "Offline mode allows only a model on this machine; the offline reader answered.",
        "离线模式只允许使用本机上的模型，由离线阅读器作答。",
    ),
    "endpoint": (
        "The model could not be used just now, so the offline reader answered.",
        "模型暂时无法使用，由离线阅读器作答。",
    ),
    "plan": (
        "The model's plan could not be used, so the offline reader answered.",
        "模型给出的计划无法使用，由离线阅读器作答。",
    ),
    "differs": (
        "The model read the question differently from the offline reader, whose answer is shown.",
        "模型对问题的理解与离线阅读器不同，这里给出离线阅读器的答案。",
    ),
}


def fallback_note(kind: FallbackKind, zh: bool) -> str:
    english, chinese = FALLBACK_NOTES[kind]
    return chinese if zh else english


def disagreement(model: Understanding, reader: Understanding) -> str | None:
    """Why the reader's answer stands instead of the model's reading, or None when the
    model's stands (see the module docstring)."""
    if reader.status == "no_data" and model.status == "ok":
        return "the model planned an answer where the offline reader has no data for the question"
    if reader.status != "ok" or reader.needs is not None:
        return None
    if model.status != "ok":
        return f"the model answered {model.status!r} where the offline reader answers the question"
    mine, theirs = model.intent, reader.intent
    if mine is None or theirs is None or not theirs.entities:
        return None
    read = sorted({entity.id for entity in theirs.entities})
    planned = sorted({entity.id for entity in mine.entities})
    if planned != read:
        return f"the model read the entities {planned}, the offline reader {read}"
    if all(entity.kind == "table" for entity in theirs.entities):
        return None  # a client's table has no window of dates to read
    planned_window, read_window = (mine.start, mine.end), (theirs.start, theirs.end)
    if planned_window != read_window:
        said = f"the model read the window {_window(planned_window)}"
        return f"{said}, the offline reader {_window(read_window)}"
    return None


def _window(window: tuple[object, object]) -> str:
    start, end = window
    return f"{start or 'earliest'}..{end or 'latest'}"
