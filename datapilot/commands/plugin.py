"""The built-in commands, registered through the `register_commands` hook.

They are lazy (`datapilot.commands.lazy`): a command's module is imported and its parameters
built only when it runs, and `datapilot --help` lists them from the help lines below (a test
checks each line is the first paragraph of the command's own help). Command modules import
their heavy dependencies inside each command, so building one stays cheap too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from datapilot.hookspecs import hookimpl

if TYPE_CHECKING:
    from typer import Typer

_C = "datapilot.commands"
# Commands that answer once and let the process end (`LazyCommand.one_shot`).
ONE_SHOT = frozenset({"ask"})
# Commands, then groups of sub-commands (`typer.Typer` apps), as `--help` lists them.
COMMANDS = (
    (
        "serve",
        f"{_C}.serve:serve",
        "Start the server (default http://127.0.0.1:7777); add it to OpenBB Workspace by URL.",
    ),
    ("ask", f"{_C}.ask:ask", "Answer a question with charts, tables and a summary."),
    (
        "doctor",
        f"{_C}.doctor:doctor",
        "Check every part (data, database, interpreter, Chinese font, Redis, model, live data).",
    ),
    (
        "eval",
        f"{_C}.eval:eval_corpus",
        "Score each case (status, ids, window, chart, table, horizon) and list the failures.",
    ),
    (
        "interfaces",
        f"{_C}.interfaces:interfaces",
        "List the interfaces plans can call (grouped by category), or one interface's schema.",
    ),
    (
        "chat",
        f"{_C}.assistants:chat",
        "Chat in the terminal with an assistant; the chat is kept (continue it with --chat). "
        "An empty line or Ctrl-D ends it.",
    ),
    (
        "mcp",
        f"{_C}.mcp:mcp",
        "Serve the tools ask, search_entities, get_prices, get_series and call_interface over "
        "MCP on stdin/stdout (logs go to stderr).",
    ),
    (
        "interpreter",
        f"{_C}.interpreter:interpreter",
        "Ask questions or run Python in a sandboxed kernel (confirm each run with `y`).",
    ),
)
GROUPS = (
    (
        "data",
        f"{_C}.data:app",
        "The local data: status, import your own files, reseed, find entities by name.",
    ),
    (
        "db",
        f"{_C}.accounts:db_app",
        "The platform's SQL store (SQLite in the data dir, or PostgreSQL).",
    ),
    (
        "keys",
        f"{_C}.accounts:keys_app",
        "API keys for the server: create (shown once), list, revoke.",
    ),
    ("users", f"{_C}.accounts:users_app", "Users: every API key belongs to one."),
    (
        "assistants",
        f"{_C}.assistants:assistants_app",
        "Assistants: a prompt, a model and tools, to chat with.",
    ),
    (
        "tools",
        f"{_C}.tools:tools_app",
        "Imported tools: OpenAPI/ai-plugin.json documents and MCP servers.",
    ),
    (
        "kb",
        f"{_C}.kb:kb_app",
        "Knowledge libraries: documents an assistant or `ask --library` cites.",
    ),
    (
        "memories",
        f"{_C}.memories:memories_app",
        "What the assistants remember about you: list, forget.",
    ),
    (
        "watch",
        f"{_C}.watch:watch_app",
        "Watches: scheduled reports and alerts, backtested before trusted.",
    ),
    (
        "design",
        f"{_C}.design:design_app",
        "Interface design: profile sources, self-request, define, merge, implement, accept.",
    ),
)


@hookimpl(tryfirst=True)  # built-ins first: third-party additions come after them
def register_commands(cli: Typer) -> None:
    from datapilot.commands.lazy import LazyCommand, add_lazy

    add_lazy(
        cli,
        *(LazyCommand(*entry, one_shot=entry[0] in ONE_SHOT) for entry in COMMANDS),
        *(LazyCommand(*entry, group=True) for entry in GROUPS),
    )
