"""A small MCP server built with the official SDK, for the MCP import tests: run as a script it
serves stdio; `quotes_server().streamable_http_app()` serves Streamable HTTP at /mcp."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

CLOSES = [101.5, 103.0, 99.25, 100.75, 102.0]
NOTES: list[str] = []
# (tool, arguments) of every call the server received, for tests that assert what was sent.
CALLS: list[tuple[str, dict[str, object]]] = []


class Row(BaseModel):
    date: str
    close: float


def quotes_server() -> MCPServer:
    server = MCPServer("Quotes")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def closes(symbol: str, limit: int = 5) -> list[Row]:
        """Daily closes of a symbol, oldest first."""
        CALLS.append(("closes", {"symbol": symbol, "limit": limit}))
        return [Row(date=f"2022-12-0{i + 1}", close=c) for i, c in enumerate(CLOSES[:limit])]

    @server.tool()
    def add_note(text: str) -> str:
        """File a note (changes the server's state)."""
        CALLS.append(("add_note", {"text": text}))
        NOTES.append(text)
        return f"{len(NOTES)} notes"

    return server


if __name__ == "__main__":
    quotes_server().run("stdio")
