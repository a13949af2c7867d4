"""The `python` tool: the model writes code, the sandboxed interpreter runs it once the user
confirms (the chat's generic confirmation flow asks `confirmation(arguments)` first).

Each tool instance has a kernel of its own (one per request, so one tenant's variables never
reach another's), from the process's one pool (so the kernel cap holds across tenants); its
data channel reads the instance's own request (its tenant's interfaces, imported ones
included), never a request that came before. It stops when idle. The model gets the console
text (capped) and a line per figure or table; the user gets tables as tables and figures as
inline PNG images.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from datapilot.core.outputs import Output, TableOutput, TextOutput
from datapilot.engine.context import RequestContext
from datapilot.interpreter.kernel import DataChannel
from datapilot.interpreter.sessions import arun, pool_for
from datapilot.tools.base import ToolOutput


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

    def _channel(self) -> DataChannel:
        from datapilot.interpreter.channel import data_channel

        return data_channel(self.request)

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        code = arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            raise ValueError("pass the Python code to run as `code`")
        pool = pool_for(self.request.settings)
        kernel = await asyncio.to_thread(pool.kernel, "tool", self.session, self._channel)
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
