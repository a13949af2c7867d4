"""`datapilot interpreter`: a terminal REPL over the sandboxed kernel.

Type Python (a line that parses as code, or a block pasted between lines of three backticks) or
a question (anything else). With a model configured, the model answers a question by writing
code: it is shown, runs after you press `y`, and the model reads its output and goes on; without
one, the data workflow answers. Code runs only after `y` (`--yes` runs unasked). `exit` or
Ctrl-D leaves.
"""

from __future__ import annotations

import ast
import asyncio
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape


def _is_code(text: str) -> bool:
    """Python that is more than a bare name or a sentence (`apple 2021` parses as nothing)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return bool(tree.body) and not (
        len(tree.body) == 1
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Name)
    )


def interpreter(
    yes: Annotated[bool, typer.Option("--yes", help="Run code without asking.")] = False,
) -> None:
    """Ask questions or run Python in a sandboxed kernel (confirm each run with `y`)."""
    from rich.console import Console
    from rich.syntax import Syntax

    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext
    from datapilot.interpreter.channel import data_channel
    from datapilot.interpreter.isolation import IsolationError
    from datapilot.interpreter.kernel import KernelError, SandboxKernel
    from datapilot.interpreter.protocol import LmcMessage
    from datapilot.model_client import resolve_config
    from datapilot.settings import get_settings

    console = Console()
    settings = get_settings()
    request = RequestContext.for_request(
        QuestionContext(today=settings.effective_today(), offline=settings.offline), settings
    )
    try:
        kernel = SandboxKernel(settings, data_channel(request)).start()
    except (IsolationError, KernelError) as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        raise typer.Exit(1) from None
    model = None if settings.offline else resolve_config(settings, request.question)
    history: list[LmcMessage] = []  # what the model reads: questions, its code, the outputs
    iso = kernel.isolation
    console.print(
        f"Sandbox: {iso.level} (network: {iso.network}; {iso.user}); kernel up in "
        f"{kernel.started_ms:.0f} ms. Type Python or a question; `exit` leaves."
    )
    try:
        while True:
            text = _read(console)
            if text is None or text.strip() in ("exit", "quit"):
                break
            if not text.strip():
                continue
            if _is_code(text):
                console.print(Syntax(text, "python"))
                if not yes and not _approved(console):
                    console.print("[dim]Not run.[/dim]")
                    continue
                _show_run(console, kernel.run(text))
            elif model is not None:
                history.append(LmcMessage(role="user", type="message", content=text))
                asyncio.run(_converse(console, history, model, kernel, yes))
            else:
                asyncio.run(_answer(console, text, request))
    finally:
        kernel.close()


def _read(console: object) -> str | None:
    try:
        first = input(">>> ")
    except EOFError:
        return None
    if first.strip() != "```":
        return first
    lines: list[str] = []
    while True:
        try:
            line = input("... ")
        except EOFError:
            break
        if line.strip() == "```":
            break
        lines.append(line)
    return "\n".join(lines)


def _approved(console: object) -> bool:
    """One key press: y runs, anything else does not."""
    sys.stdout.write("Run this code? [y/N] ")
    sys.stdout.flush()
    if not sys.stdin.isatty():  # piped input: read a line
        return sys.stdin.readline().strip()[:1].lower() == "y"
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setraw(fd)
        key = sys.stdin.read(1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    print(key)
    return key.lower() == "y"


async def _converse(
    console: object, history: list[Any], model: Any, kernel: Any, yes: bool
) -> None:
    """The model's rounds on the last question: its code waits for `y` (unless `--yes`), then
    it reads the output and goes on. `history` grows by what was said and shown."""
    from datapilot.interpreter.protocol import LmcMessage, rebuild, respond

    async def the_kernel() -> Any:
        return kernel

    while True:
        chunks = []
        show = _Shower(console)
        # Each chunk is shown as it arrives: the model's words, its code, what the run prints.
        async for chunk in respond(history, kernel=the_kernel, auto_run=yes, model=model):
            chunks.append(chunk)
            show(chunk)
        history.extend(rebuild(chunks))
        if yes or not history or history[-1].type != "confirmation":
            return
        if not _approved(console):
            print("Not run.")
            return
        history.append(LmcMessage(role="user", type="command", content="run"))


def _show_run(console: object, chunks: object) -> None:
    show = _Shower(console)
    for chunk in chunks:  # type: ignore[attr-defined]
        show(chunk)


class _Shower:
    """Prints chunks one by one as they come (a code block once it is whole, to colour it)."""

    def __init__(self, console: object) -> None:
        from rich.console import Console

        assert isinstance(console, Console)
        self.console = console
        self.code: list[str] = []

    def __call__(self, chunk: Any) -> None:
        from rich.syntax import Syntax

        console = self.console
        if chunk.role == "assistant" and chunk.type == "message" and chunk.content:
            console.out(str(chunk.content), end="", highlight=False)
        elif chunk.role == "assistant" and chunk.type == "message" and chunk.end:
            console.out("")
        elif chunk.role == "assistant" and chunk.type == "code":
            if chunk.end:  # coloured as its language (rich calls the shell's lexer bash)
                lexer = {"shell": "bash"}.get(chunk.format or "python", chunk.format or "python")
                console.print(Syntax("".join(self.code), lexer))
                self.code = []
            elif chunk.content:
                self.code.append(str(chunk.content))
        elif chunk.role == "server" and chunk.type == "error":
            console.print(f"[red]{escape(str(chunk.content))}[/red]")
        elif chunk.type == "console" and chunk.format == "output" and chunk.content:
            console.out(str(chunk.content), end="", highlight=False)
        elif chunk.type == "image" and chunk.content:
            console.print("[dim][figure: PNG image][/dim]")
        elif chunk.type == "table" and isinstance(chunk.content, dict):
            table = chunk.content
            console.print(f"[dim][table: {table.get('total_rows')} rows][/dim]")
            for row in [table["columns"], *table["rows"][:10]]:
                console.out("  ".join(str(cell) for cell in row), highlight=False)
        elif chunk.type == "code" and chunk.format == "html":
            console.print("[dim][HTML output][/dim]")
        elif chunk.role == "server" and chunk.format == "execution":
            report = chunk.content
            extra = "; ".join(report.get("notes", []))
            console.print(f"[dim]{report['status']} in {report['elapsed_ms']:.0f} ms {extra}[/dim]")


async def _answer(console: object, question: str, request: object) -> None:
    from rich.console import Console

    from datapilot.brains import run
    from datapilot.core.events import Done

    assert isinstance(console, Console)
    async for event in run(question, request):  # type: ignore[arg-type]
        if isinstance(event, Done):
            answer = event.answer
            console.print(answer.summary or answer.message or answer.status, markup=False)
