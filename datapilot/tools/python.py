"""The `python` tool: the model writes code, the sandboxed interpreter runs it once the user
confirms (the chat's generic confirmation flow asks `confirmation(arguments)` first).

Each tool instance has a kernel of its own (one per request, so one tenant's variables never
reach another's); it stops when idle. The model gets the console text (capped) and a line per
figure or table; the user gets tables as tables and figures as inline PNG images.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from datapilot.core.outputs import Output, TableOutput, TextOutput
from datapilot.engine.context import RequestContext
from datapilot.interpreter.sessions import Sessions, arun
from datapilot.settings import Settings
from datapilot.tools.base import ToolOutput

_sessions: dict[int, Sessions] = {}
_lock = threading.Lock()


def _sessions_for(request: RequestContext) -> Sessions:
    settings: Settings = request.settings
    with _lock:
        found = _sessions.get(id(settings))
        if found is None:
            from datapilot.interpreter.channel import data_channel

            found = _sessions[id(settings)] = Sessions(settings, lambda: data_channel(request))
        return found


@dataclass
class PythonTool:
    """Run Python in the sandbox, with `dp` (read-only data), pandas, numpy and matplotlib."""

    request: RequestContext
    auto_run: bool = False  # only the server setting AND a run-scoped key may set it
    name: str = "python"
    source: str = "interpreter"
    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    description: str = (
        "Run Python code in a sandboxed kernel (no network, no files outside its scratch "
        "directory). pandas as pd, numpy and matplotlib are installed; `dp.prices(ids, start, "
        "end)`, `dp.series(ids)` and `dp.interfaces.<name>(...)` read the data. Print what you "
        "need to see; figures and DataFrames are shown to the user. The user confirms each run."
    )
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Python code to run."}},
            "required": ["code"],
        }
    )

    def confirmation(self, arguments: dict[str, Any]) -> str | None:
        """What the user is asked before the code runs; None when it may run unasked."""
        if self.auto_run:
            return None
        code = str(arguments.get("code", "")).rstrip()
        return f"Run this Python code in the sandbox?\n\n```python\n{code}\n```"

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        code = arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            raise ValueError("pass the Python code to run as `code`")
        sessions = _sessions_for(self.request)
        kernel = await asyncio.to_thread(sessions.kernel, "tool", self.session)
        console: list[str] = []
        outputs: list[Output] = []
        notes: list[str] = []
        status = "ok"
        async for chunk in arun(kernel, code):
            if chunk.type == "console" and chunk.format == "output" and chunk.content:
                console.append(str(chunk.content))
            elif chunk.type == "image" and chunk.content:
                outputs.append(TextOutput(text=f"![figure](data:image/png;base64,{chunk.content})"))
                notes.append(f"[figure {len(outputs)} shown to the user]")
            elif chunk.type == "table" and isinstance(chunk.content, dict):
                table = chunk.content
                outputs.append(
                    TableOutput(title="Table", columns=table["columns"], rows=table["rows"])
                )
                notes.append(f"[table of {table.get('total_rows')} rows shown to the user]")
            elif chunk.role == "server" and chunk.format == "execution":
                status = chunk.content["status"]
                notes.extend(chunk.content.get("notes", []))
            elif chunk.role == "server" and chunk.type == "error":
                raise RuntimeError(str(chunk.content))
        text = "".join(console).strip() or "(no output)"
        lines = [f"status: {status}", text, *notes]
        return ToolOutput(text="\n".join(lines), outputs=outputs)
