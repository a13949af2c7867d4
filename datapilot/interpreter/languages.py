"""The languages an LMC code message may carry, and how each one runs.

- `python` runs in the session's kernel.
- `shell` (bash) and `javascript` (Node.js) run as programs the kernel starts inside its own
  sandbox: the same isolation level, uid, limits, scratch directory and environment, their
  output streamed as the cell's console output; a shell's running line comes as
  `console/active_line`, like Python's. They need the `namespace` level (or `none`, where
  nothing is fenced in anyway): the `audit` level's hook refuses processes, so there the run is
  refused with the reason.
- `html` does not run on the server: it comes back as a `computer/code/html` output for the
  client to render (it asks for confirmation all the same: its scripts run in the user's browser).

Anything else is refused, naming the languages that run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from datapilot.core.messages import LmcChunk
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.interpreter.sessions import arun
from datapilot.render.lmc import Blocks

# What a code message's `format` (or a fenced block's tag) may say, and the language it means.
ALIASES = {
    "python": "python",
    "py": "python",
    "python3": "python",
    "shell": "shell",
    "bash": "shell",
    "sh": "shell",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "html": "html",
}
SUPPORTED = ("python", "shell", "javascript", "html")
# Where a program may live: only these directories are mounted in the sandbox's root.
_PROGRAMS = {
    "shell": ("bash", ("/usr/bin/bash", "/bin/bash")),
    "javascript": ("Node.js", ("/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs")),
}
_ARGS = {"shell": ["--noprofile", "--norc"], "javascript": []}
_SUFFIX = {"shell": ".sh", "javascript": ".js"}
# The kernel-side call's start (boot.PROGRAM_CELL): a cell starting so is not traced as Python.
PROGRAM_CELL = "__import__('_dp_boot')._run_program("
HTML_NOTE = "HTML is shown to the user as it is; nothing ran on the server."


class LanguageError(ValueError):
    """Code in a language that does not run here, or cannot run on this server."""


def canonical(fmt: str | None) -> str:
    """The language `fmt` names (no format means Python), or an error naming those that run."""
    name = (fmt or "python").strip().lower()
    if name in ALIASES:
        return ALIASES[name]
    raise LanguageError(
        f"{fmt!r} code does not run here; send python, shell (bash), javascript (Node.js) or "
        "html (shown to the user, not run)."
    )


def program(language: str) -> str:
    """The program that runs `language` in the sandbox, or an error naming what is missing."""
    what, paths = _PROGRAMS[language]
    for path in paths:
        if Path(path).is_file():
            return path
    raise LanguageError(
        f"{language} code runs with {what}, which this server does not have (looked for "
        f"{', '.join(paths)}); install it (e.g. `apt-get install "
        f"{'nodejs' if language == 'javascript' else 'bash'}`), or send python."
    )


def program_cell(language: str, code: str, kernel: SandboxKernel) -> str:
    """The Python cell that runs `code` as a `language` program inside `kernel`'s sandbox."""
    if kernel.level == "audit":
        raise LanguageError(
            f"{language} code needs the `namespace` isolation level, and this server's kernels "
            "run at `audit` (an audit hook cannot fence in a program that is not Python): "
            "install bubblewrap (`bwrap`) and allow namespaces, or send python."
        )
    argv = [program(language), *_ARGS[language]]
    arguments = [argv, code, _SUFFIX[language], language == "shell", language]
    return f"{PROGRAM_CELL}{', '.join(repr(value) for value in arguments)})"


def html_chunks(code: str) -> list[LmcChunk]:
    """HTML as the output a client renders, and the run's report (no sandbox was needed)."""
    report = {"status": "ok", "elapsed_ms": 0.0, "notes": [HTML_NOTE]}
    return [
        *Blocks().block("computer", "code", code, "html"),
        LmcChunk(role="server", type="status", format="execution", content=report),
    ]


async def execute(
    kernel: Callable[[], Awaitable[SandboxKernel]], code: str, language: str
) -> AsyncIterator[LmcChunk]:
    """Run approved `code` in `language` (canonical): its chunks, ending with the run's report.
    A language that cannot run here ends with `server/error` saying why."""
    if language == "html":
        for chunk in html_chunks(code):
            yield chunk
        return
    sandbox = await kernel()
    try:
        cell = code if language == "python" else program_cell(language, code, sandbox)
    except LanguageError as error:
        yield LmcChunk(role="server", type="error", content=str(error))
        return
    async for chunk in arun(sandbox, cell):
        yield chunk
