"""Runs INSIDE the kernel once at start (its source is sent as a silent cell; the server never
imports it): the read-only `dp` helper, DataFrames as tables, the running line, the end of
what a run started (`stop_background`), and at the `audit` level the audit hook of
`kernel_audit.py` (sent as source too). It imports nothing of Datapilot: the kernel cannot see
it.

`dp` asks the server through the kernel's own stdin channel (an `input_request` whose prompt
starts with `DP_PREFIX`); the server answers with JSON. No file, socket or warehouse is opened.
`_install` also makes the modules an answer's script imports (`datapilot.interfaces`,
`datapilot.render.charts`) from `kernel_facade.py`, with frames sent by `framecodec.py` (both
sent as source along with this one; the kernel holds nothing else of Datapilot).
"""

from __future__ import annotations

import base64
import json
import sys
import types
from typing import Any

import pandas as pd
from IPython import get_ipython

DP_PREFIX = "\x1edp:"
TABLE_MIME = "application/vnd.datapilot.table+json"
ACTIVE_LINE = "dp_active_line"
EXIT_STATUS = "dp_exit_status"
PROGRAM_CELL = "__import__('_dp_boot')._run_program("
_TABLE_ROWS = 200


class DataError(Exception):
    """The data channel refused or failed a request; the message says why."""


# Set by `_install` from the server's caps.
_limits = {"request_chars": 16_000_000, "output_chars": 100_000}


def _ask(request: dict[str, Any]) -> Any:
    kernel = get_ipython().kernel
    text = json.dumps(request, default=str)
    if len(text) > _limits["request_chars"]:  # the server checks too; this saves sending it
        raise DataError(
            f"the request is {len(text):,} characters, over the channel's "
            f"{_limits['request_chars']:,}; send fewer or smaller arguments"
        )
    reply = json.loads(kernel.raw_input(DP_PREFIX + text))
    if "error" in reply:
        raise DataError(reply["error"])
    if "frame" in reply:
        return sys.modules["_dp_framecodec"].decode(reply["frame"])
    if "output" in reply:
        return sys.modules["datapilot.interfaces"].Output(reply["output"])
    if "png" in reply:
        return base64.b64decode(reply["png"])
    return reply.get("value")


class _Interfaces:
    """`dp.interfaces.<name>(**arguments)`: any interface the channel allows (frames as
    DataFrames), the same calls as `dp.<name>` of the script facade."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return sys.modules["datapilot.interfaces"].function(name)

    def __dir__(self) -> list[str]:
        return list(sys.modules["datapilot.interfaces"].names())


class DP:
    """Read-only access to Datapilot's data: `dp.prices`, `dp.series`, `dp.interfaces.<name>`,
    and everything of `from datapilot import interfaces as dp` (`dp.get_prices(...)`)."""

    interfaces = _Interfaces()
    DataError = DataError

    def __getattr__(self, name: str) -> Any:
        return getattr(sys.modules["datapilot.interfaces"], name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *sys.modules["datapilot.interfaces"].names()})

    def prices(
        self, ids: str | list[str], start: str | None = None, end: str | None = None, **more: Any
    ) -> pd.DataFrame:
        """Daily prices, one column per id (`field="adj_close"` for returns)."""
        wanted = [ids] if isinstance(ids, str) else list(ids)
        return _ask(
            {
                "op": "call",
                "name": "get_prices",
                "args": {"ids": wanted, "start": start, "end": end, **more},
            }
        )

    def series(
        self, ids: str | list[str], start: str | None = None, end: str | None = None, **more: Any
    ) -> pd.DataFrame:
        """Macro, commodity or factor series (FRED-style ids), one column per id."""
        wanted = [ids] if isinstance(ids, str) else list(ids)
        return _ask(
            {
                "op": "call",
                "name": "get_series",
                "args": {"ids": wanted, "start": start, "end": end, **more},
            }
        )


def _table(frame: pd.DataFrame) -> dict[str, Any]:
    shown = frame.head(_TABLE_ROWS).reset_index()
    rows = json.loads(shown.to_json(orient="values", date_format="iso"))
    return {
        TABLE_MIME: {
            "columns": [str(c) for c in shown.columns],
            "rows": rows,
            "total_rows": len(frame),
        }
    }


def _modules(codec_source: str, facade_source: str) -> None:
    """`datapilot`, `datapilot.interfaces` (the facade over the channel), `datapilot.render`
    and `datapilot.render.charts` (`to_png`) as the script's imports find them."""

    def module(name: str, source: str | None = None, package: bool = False) -> types.ModuleType:
        made = types.ModuleType(name)
        if package:
            made.__path__ = []  # a package with nothing else in it: other imports fail
        sys.modules[name] = made
        if source is not None:
            exec(compile(source, name, "exec"), made.__dict__)
        return made

    module("_dp_framecodec", codec_source)
    facade = module("datapilot.interfaces", facade_source)
    render = module("datapilot.render", package=True)
    charts = module("datapilot.render.charts")
    top = module("datapilot", package=True)
    for owner, name, value in (
        (facade, "InterfaceError", DataError),
        (facade, "DataError", DataError),
        # The kernel's own `dp` helpers too: either `dp` offers everything the other does.
        (facade, "prices", DP.prices.__get__(DP())),
        (facade, "series", DP.series.__get__(DP())),
        (facade, "interfaces", DP.interfaces),
        (charts, "to_png", facade.__dict__["to_png"]),
        (render, "charts", charts),
        (top, "interfaces", facade),
        (top, "render", render),
    ):
        setattr(owner, name, value)


def _install(
    audit: dict[str, Any] | None,
    codec_source: str,
    facade_source: str,
    audit_source: str,
    request_chars: int,
    output_chars: int,
    own_pids: bool = False,
) -> None:
    """Set up the kernel; `own_pids`: it has a PID namespace of its own (the `namespace`
    level), whose other processes end with each run."""
    from ipykernel.compiler import get_tmp_directory

    _limits["request_chars"] = request_chars
    _limits["output_chars"] = output_chars
    _modules(codec_source, facade_source)

    cell_dir = get_tmp_directory()
    shell = get_ipython()
    shell.user_ns["dp"] = DP()
    shell.user_ns["pd"] = pd
    formatter = shell.display_formatter.mimebundle_formatter
    formatter.for_type(pd.DataFrame, lambda frame, include=None, exclude=None: _table(frame))
    _trace_cells(shell, cell_dir)
    if own_pids:  # /proc lists the sandbox and nothing else (never the host's processes)
        shell.events.register("post_run_cell", lambda *_: stop_background())
    if audit is not None:  # where no process can start
        guard = types.ModuleType("_dp_audit")  # not in sys.modules: nothing needs it again
        exec(compile(audit_source, "dp_audit", "exec"), guard.__dict__)
        guard.install(**audit)


def stop_background() -> None:
    """Kill every process of the sandbox but its init (pid 1) and this kernel: whatever the run
    started ends with it, also what left its session and process group (`setsid`), whose
    orphans go to the init, not to the kernel. Runs after every cell (at the `namespace` level,
    where the kernel has a PID namespace of its own)."""
    import os
    import signal
    import time

    me = os.getpid()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        alive = [pid for pid in _sandbox_pids() if pid not in (1, me)]
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # gone already, or not ours to stop
                continue
        _reap()
        if not alive:  # another round finds what was forked meanwhile
            return
        time.sleep(0.01)


def _sandbox_pids() -> list[int]:
    """The live (not zombie) processes /proc lists."""
    import os

    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                state = stat.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            found.append(int(name))
    return found


def _reap() -> None:
    """Collect the kernel's own children that have ended (the orphans' go to the init)."""
    import os

    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _trace_cells(shell: Any, cell_dir: str) -> None:
    """Report the running top-level line of the cell (not of functions it calls)."""
    kernel = shell.kernel
    state = {"line": 0}

    import time

    seen: set[int] = set()
    last = {"at": 0.0}

    def local(frame: Any, event: str, arg: Any) -> Any:
        # A new line always; a loop's lines at most every 0.1 s (a message per iteration
        # would slow the loop down and flood the stream).
        line = frame.f_lineno
        now = time.monotonic()
        if (
            event == "line"
            and line != state["line"]
            and (line not in seen or now - last["at"] > 0.1)
        ):
            state["line"] = line
            seen.add(line)
            last["at"] = now
            sys.stdout.flush()
            sys.stderr.flush()
            parent = kernel.get_parent("shell")
            content = {"line": frame.f_lineno}
            kernel.session.send(kernel.iopub_socket, ACTIVE_LINE, content, parent=parent)
        return local

    def outer(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if event == "call" and code.co_name == "<module>" and code.co_filename.startswith(cell_dir):
            return local
        return None

    def start(info: Any = None, *_: Any) -> None:
        state["line"] = 0
        seen.clear()
        # A program's cell (shell, javascript) reports the program's lines, not its own.
        if not str(getattr(info, "raw_cell", "")).startswith(PROGRAM_CELL):
            sys.settrace(outer)

    def stop(*_: Any) -> None:
        sys.settrace(None)

    shell.events.register("pre_run_cell", start)
    shell.events.register("post_run_cell", stop)


def _run_program(argv: list[str], source: str, suffix: str, traced: bool, program: str) -> None:
    """Run `source` (a shell or Node script) with `argv` + its file, in this kernel's sandbox:
    its output streams as the cell's, a traced shell's running line as `ACTIVE_LINE`, and its
    exit status as `EXIT_STATUS`. The script's own process group is killed when it ends or the
    run is interrupted; what left that group is stopped after the cell (`stop_background`)."""
    import codecs
    import contextlib
    import os
    import selectors
    import signal
    import subprocess
    import tempfile
    import time

    kernel = get_ipython().kernel
    parent = kernel.get_parent("shell")
    folder = tempfile.mkdtemp(prefix="dp-run-")
    script = os.path.join(folder, "code" + suffix)
    with open(script, "w") as handle:
        handle.write(source)
    env = dict(os.environ)
    marks_read, marks_write = os.pipe()
    if traced:  # bash reads BASH_ENV before the script: a trap reports each top-level line
        prelude = os.path.join(folder, "prelude.sh")
        with open(prelude, "w") as handle:
            handle.write(
                f'unset BASH_ENV; trap \'printf "%d\\n" "$LINENO" >&{marks_write}\' DEBUG\n'
            )
        env["BASH_ENV"] = prelude
    process = subprocess.Popen(
        [*argv, script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        pass_fds=(marks_write,),
        start_new_session=True,
    )
    os.close(marks_write)
    assert process.stdout is not None
    out = process.stdout.fileno()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    selector = selectors.DefaultSelector()
    selector.register(out, selectors.EVENT_READ)
    selector.register(marks_read, selectors.EVENT_READ)
    state: dict[str, Any] = {"line": 0, "at": 0.0, "pending": b"", "written": 0}
    seen: set[int] = set()
    # The server shows at most this much; the rest is read and dropped here, so a flood
    # neither fills the kernel's memory nor its message queue.
    room = _limits["output_chars"] + 1

    def mark(data: bytes) -> None:
        # The same pace as Python's lines: a new line always, a loop's at most every 0.1 s.
        lines = (state["pending"] + data).split(b"\n")
        state["pending"] = lines.pop()
        for raw in lines:
            try:  # the script may write to the marks' descriptor too: not a line, ignored
                line, now = int(raw), time.monotonic()
            except ValueError:
                continue
            if line and line != state["line"] and (line not in seen or now - state["at"] > 0.1):
                state["line"], state["at"] = line, now
                seen.add(line)
                sys.stdout.flush()
                kernel.session.send(kernel.iopub_socket, ACTIVE_LINE, {"line": line}, parent=parent)

    def pump(timeout: float) -> bool:
        """Read what is ready; False once both pipes are closed."""
        # Marks before output: a line's mark was written before what the line prints.
        for key, _ in sorted(selector.select(timeout), key=lambda ready: ready[0].fd == out):
            data = os.read(key.fd, 65536)
            if not data:
                selector.unregister(key.fd)
            elif key.fd != out:
                mark(data)
            elif state["written"] < room:
                text = decoder.decode(data)[: room - state["written"]]
                state["written"] += len(text)
                sys.stdout.write(text)
                sys.stdout.flush()
        return bool(selector.get_map())

    status = None
    try:
        while process.poll() is None and pump(0.1):
            pass
        status = process.wait()
        # What it printed last; a background child that keeps the pipes open is not waited for.
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline and pump(0.05):
            pass
    except KeyboardInterrupt:  # the server's timeout: the program stops, not the kernel
        status = -signal.SIGINT
    finally:
        with contextlib.suppress(OSError):  # already gone
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        sys.stdout.write(decoder.decode(b"", final=True))
        sys.stdout.flush()
        selector.close()
        process.stdout.close()
        os.close(marks_read)
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    content = {"status": status, "program": program}
    kernel.session.send(kernel.iopub_socket, EXIT_STATUS, content, parent=parent)
