"""One sandboxed Python kernel (ipykernel, driven by jupyter_client over unix sockets) and its
outputs as LMC chunks.

`SandboxKernel.run(code)` is a blocking generator (the CLI and tests use it as is; the server
wraps it in a worker thread, see `sessions.arun`). Console output streams as one
`computer/console/output` block with `computer/console/active_line` marks between deltas;
matplotlib figures come as `computer/image/base64.png`, HTML (Plotly) as `computer/code/html`,
DataFrames as `computer/table/json`, errors as console output. Every block opens with `start` and
closes with `end`. A run past the wall clock is interrupted, and if it ignores the interrupt the
kernel is killed (the next run starts a new one). The last chunk of every run is
`server/status/execution` with the outcome and the isolation report (a `server` chunk: not part
of the message list a client rebuilds).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from datapilot.core.messages import LmcChunk
from datapilot.interpreter import isolation, syscall_filter
from datapilot.interpreter.isolation import Isolation, Level
from datapilot.settings import Settings

if TYPE_CHECKING:  # jupyter_client and zmq load with the first kernel, not with the server
    from jupyter_client.blocking import BlockingKernelClient

log = logging.getLogger(__name__)

_BOOT = Path(__file__).with_name("boot.py")
# Kernel-side sources sent with boot.py: frames over the channel, the script facade.
_CODEC = Path(__file__).with_name("framecodec.py")
_FACADE = Path(__file__).with_name("kernel_facade.py")
_AUDIT = Path(__file__).with_name("kernel_audit.py")  # the `audit` level's hook
DP_PREFIX = "\x1edp:"
TABLE_MIME = "application/vnd.datapilot.table+json"
ACTIVE_LINE = "dp_active_line"
EXIT_STATUS = "dp_exit_status"  # a shell or Node program's exit status (see boot._run_program)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# One message bigger than this (a runaway print) drops the connection instead of the server's
# memory; the run then reports the kernel lost.
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_GRACE_S = 5.0
# The `dp` channel's caps: a request (arguments, frames sent along) and a reply (a result).
MAX_REQUEST_CHARS = 16_000_000
MAX_REPLY_CHARS = 32_000_000

DataChannel = Callable[[dict[str, Any]], dict[str, Any]]
# Per-process ranges, so kernels of several server processes never share a uid (and its limits).
_slots = iter(range((os.getpid() % 49) * 1000 + 1, 10**9))
# Kernels die with the thread that started them (bubblewrap's --die-with-parent is a per-thread
# death signal), so one thread that lives as long as the process starts them all.
_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernel-launcher")
_slot_lock = threading.Lock()


class KernelError(RuntimeError):
    """The kernel could not start or was lost; the message says what to do."""


class SandboxKernel:
    """A kernel process in the sandbox, with its own uid, scratch and limits."""

    def __init__(self, settings: Settings, channel: DataChannel | None = None) -> None:
        self.settings = settings
        self.channel = channel
        self.level: Level = isolation.choose_level(settings)
        with _slot_lock:
            self.uid = isolation.session_uid(next(_slots))
        self.isolation: Isolation = isolation.describe(self.level, self.uid, settings)
        self.started_ms = 0.0
        self.last_used = time.monotonic()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._client: BlockingKernelClient | None = None
        self._dir: Path | None = None

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> SandboxKernel:
        import zmq
        from jupyter_client.blocking import BlockingKernelClient
        from jupyter_client.connect import write_connection_file

        started = time.perf_counter()
        self._dir = Path(tempfile.mkdtemp(prefix="dp-kernel-"))
        runtime = self._dir
        root = os.geteuid() == 0
        if root:  # the kernel (another uid, unless it cannot drop root) makes its sockets here
            os.chown(runtime, self.uid, self.uid)
        runtime.chmod(0o700)
        conn_file, info = write_connection_file(
            str(runtime / "connection.json"), transport="ipc", ip=str(runtime / "k")
        )
        Path(conn_file).chmod(0o644)
        if root:
            os.chown(conn_file, self.uid, self.uid)
        sites = list(isolation.site_dirs())
        launch = (
            "import site\n"
            f"for p in {sites!r}: site.addsitedir(p)\n"
            "from ipykernel.kernelapp import launch_new_instance\n"
            "launch_new_instance()"
        )
        args = ["-c", launch, "-f", conn_file, "--HistoryManager.enabled=False", "--quiet"]
        home = SANDBOX_HOME = isolation.SANDBOX_HOME
        env = isolation.kernel_env(SANDBOX_HOME)
        cwd = None
        if self.level != "namespace":
            home = str(runtime / "home")
            Path(home).mkdir()
            if root:
                os.chown(home, self.uid, self.uid)
            env = isolation.kernel_env(home)
            cwd = home
        drop = root and self.level != "namespace" and isolation.others_can_run_python()
        drop_uid = self.uid if drop else None
        try:
            with syscall_filter.filter_fd(self.level == "namespace") as seccomp:
                command = isolation.kernel_command(
                    self.level,
                    args,
                    uid=self.uid,
                    ipc_dir=runtime,
                    settings=self.settings,
                    seccomp_fd=seccomp,
                )
                self._proc = _LAUNCHER.submit(
                    subprocess.Popen,
                    command,
                    env=env,
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    pass_fds=() if seccomp is None else (seccomp,),
                    preexec_fn=isolation.preexec(self.settings, uid=drop_uid),
                ).result()
        except (OSError, subprocess.SubprocessError) as error:  # e.g. Python not executable
            self.close()
            raise KernelError(
                f"The sandboxed kernel could not be started ({error}); the server's user must "
                "be able to run its own Python."
            ) from None
        client = BlockingKernelClient()
        client.load_connection_info(info)
        client.start_channels(hb=False)  # liveness is the process itself, not a heartbeat
        self._client = client
        for channel in (client.iopub_channel, client.stdin_channel):
            channel.socket.setsockopt(zmq.MAXMSGSIZE, _MAX_MESSAGE_BYTES)
        if not self._wait_ready(client, timeout_s=60):
            problem = self._stderr_tail() or "it did not answer within 60 s"
            self.close()
            raise KernelError(f"The sandboxed kernel did not start: {problem}")
        audit = None
        if self.level == "audit":
            denied = [str(self.settings.data_dir.expanduser().resolve())]
            readable = ["/usr", "/lib", "/etc", "/proc/self", "/dev", "/tmp/ipykernel", *sites]
            import sys

            readable += [sys.prefix, sys.base_prefix]
            audit = {"home": home, "denied": denied, "readable": readable}
        boot = (
            "import sys as _s, types as _t\n"
            "_m = _s.modules['_dp_boot'] = _t.ModuleType('_dp_boot')\n"
            f"exec(compile({_BOOT.read_text()!r}, 'dp_boot', 'exec'), _m.__dict__)\n"
            f"_m._install({audit!r}, {_CODEC.read_text()!r}, {_FACADE.read_text()!r}, "
            f"{_AUDIT.read_text()!r}, "
            f"{MAX_REQUEST_CHARS}, {self.settings.interpreter_output_chars}, "
            f"{self.level == 'namespace'})\n"
            "del _s, _t, _m\n"
        )
        outcome = [c for c in self.run(boot, silent=True)]
        failed = [c for c in outcome if c.type == "console" and c.content and c.end is None]
        if outcome and outcome[-1].content.get("status") != "ok":
            self.close()
            raise KernelError(f"The kernel's helpers failed to load: {failed[:3]}")
        self.started_ms = (time.perf_counter() - started) * 1000
        return self

    def _wait_ready(self, client: BlockingKernelClient, timeout_s: float) -> bool:
        """Ask for kernel_info until it answers (its sockets appear once it is up)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            msg_id = client.kernel_info()
            try:
                while True:
                    reply = client.get_shell_msg(timeout=1.0)
                    if reply["parent_header"].get("msg_id") == msg_id:
                        break
            except queue.Empty:
                continue
            # Drain iopub until it is connected: status messages of a probe arrive there.
            probe = client.execute("", silent=False, store_history=False)
            try:
                while True:
                    msg = client.get_iopub_msg(timeout=1.0)
                    if msg["parent_header"].get("msg_id") == probe and (
                        msg["content"].get("execution_state") == "idle"
                    ):
                        return True
            except queue.Empty:
                continue
        return False

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self._client is not None

    def close(self) -> None:
        """Stop the kernel and everything it started; remove its sockets."""
        client, self._client = self._client, None
        if client is not None:
            client.stop_channels()
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                proc.kill()
            proc.wait(timeout=10)
        if proc is not None and proc.stderr is not None:
            proc.stderr.close()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    # -- running code -----------------------------------------------------------------------

    def run(
        self, code: str, *, silent: bool = False, timeout_s: float | None = None
    ) -> Iterator[LmcChunk]:
        """Run `code`; yield its outputs as LMC chunks, ending with the `execution` report."""
        with self._lock:
            self.last_used = time.monotonic()
            yield from self._run(code, silent, timeout_s or self.settings.interpreter_timeout_s)
            self.last_used = time.monotonic()

    def _run(self, code: str, silent: bool, timeout_s: float) -> Iterator[LmcChunk]:
        import zmq

        client = self._client
        if client is None or not self.alive:
            raise KernelError("The kernel is not running; start a new session.")
        started = time.perf_counter()
        msg_id = client.execute(code, silent=silent, allow_stdin=True, stop_on_error=True)
        blocks = _Blocks()
        cap = self.settings.interpreter_output_chars
        written = 0
        status = "ok"
        notes: list[str] = []
        deadline = started + timeout_s
        interrupted_at: float | None = None
        poller = zmq.Poller()
        poller.register(client.iopub_channel.socket, zmq.POLLIN)
        poller.register(client.stdin_channel.socket, zmq.POLLIN)
        idle = False
        while not idle:
            now = time.perf_counter()
            if interrupted_at is None and now > deadline:
                interrupted_at = now
                status = "timeout"
                notes.append(f"Stopped: the run took longer than {timeout_s:g} s.")
                self._interrupt()
            elif interrupted_at is not None and now > interrupted_at + _GRACE_S:
                notes.append("The code ignored the interrupt; the kernel was stopped.")
                self.close()
                break
            if self._proc is None or self._proc.poll() is not None:
                status = "error" if status == "ok" else status
                notes.append(self._lost_reason())
                self.close()
                break
            ready = dict(poller.poll(100))
            if client.stdin_channel.socket in ready:
                self._answer_input(client, msg_id)
            if client.iopub_channel.socket not in ready:
                continue
            while client.iopub_channel.msg_ready():
                msg = client.iopub_channel.get_msg(timeout=0)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "status" and content.get("execution_state") == "idle":
                    idle = True
                    break
                if kind == "stream":
                    text = _ANSI.sub("", content.get("text", ""))
                    if written >= cap:
                        continue
                    if written + len(text) > cap:
                        text = text[: cap - written]
                        notes.append(f"Output was cut at {cap} characters.")
                    written += len(text)
                    yield from blocks.delta("computer", "console", text, "output")
                elif kind == ACTIVE_LINE:
                    yield from blocks.keep(
                        LmcChunk(
                            role="computer",
                            type="console",
                            format="active_line",
                            content=content.get("line"),
                        )
                    )
                elif kind == EXIT_STATUS and content.get("status") not in (0, None):
                    status = "error" if status == "ok" else status
                    exit_code = int(content["status"])
                    how = f"signal {-exit_code}" if exit_code < 0 else f"status {exit_code}"
                    notes.append(f"The {content.get('program', 'program')} exited with {how}.")
                elif kind in ("display_data", "execute_result"):
                    yield from self._display(blocks, content.get("data", {}))
                elif kind == "error":
                    status = "error" if status == "ok" else status
                    trace = _ANSI.sub("", "\n".join(content.get("traceback", [])))
                    text = trace or f"{content.get('ename')}: {content.get('evalue')}"
                    yield from blocks.delta("computer", "console", text + "\n", "output")
        yield from blocks.close()
        if status == "ok" and interrupted_at is None and not self.alive:
            status = "error"
        report = {
            "status": status,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
            "notes": notes,
            "isolation": self.isolation.model_dump(),
        }
        yield LmcChunk(role="server", type="status", format="execution", content=report)

    def _display(self, blocks: _Blocks, data: dict[str, Any]) -> Iterator[LmcChunk]:
        if TABLE_MIME in data:
            yield from blocks.block("computer", "table", data[TABLE_MIME], "json")
        elif "image/png" in data:
            yield from blocks.block("computer", "image", data["image/png"], "base64.png")
        elif "image/jpeg" in data:
            yield from blocks.block("computer", "image", data["image/jpeg"], "base64.jpeg")
        elif "text/html" in data:
            yield from blocks.block("computer", "code", data["text/html"], "html")
        elif "text/plain" in data:
            yield from blocks.delta("computer", "console", data["text/plain"] + "\n", "output")

    def _answer_input(self, client: BlockingKernelClient, msg_id: str) -> None:
        """The kernel asked on stdin: a `dp` request for the data channel, or `input()`."""
        msg = client.stdin_channel.get_msg(timeout=0)
        if msg["msg_type"] != "input_request":
            return
        prompt = str(msg["content"].get("prompt", ""))
        if not prompt.startswith(DP_PREFIX):
            client.input("\x04")  # EOF: nobody types into a sandboxed run
            return
        try:
            if len(prompt) > MAX_REQUEST_CHARS:
                raise ValueError(
                    f"the request is {len(prompt):,} characters, over the channel's "
                    f"{MAX_REQUEST_CHARS:,}; send fewer or smaller arguments"
                )
            request = json.loads(prompt[len(DP_PREFIX) :])
            if self.channel is None:
                raise RuntimeError("this kernel has no data channel")
            text = json.dumps(self.channel(request), default=str)
            if len(text) > MAX_REPLY_CHARS:
                raise ValueError("the result is too large to send; ask for a shorter window")
        except Exception as error:  # said to the code, which raises it: never a lost run
            text = json.dumps({"error": f"{type(error).__name__}: {str(error)[:2000]}"})
        client.input(text)

    def _interrupt(self) -> None:
        client = self._client
        if client is None:
            return
        msg = client.session.msg("interrupt_request", {})
        client.control_channel.send(msg)

    def _lost_reason(self) -> str:
        code = self._proc.poll() if self._proc is not None else None
        tail = self._stderr_tail()
        why = {-9: "killed", -24: "CPU time limit", 137: "killed"}.get(code or 0, f"exit {code}")
        return (
            f"The kernel stopped ({why}), e.g. at a memory, CPU or process limit; the next run "
            f"starts a fresh one.{' ' + tail if tail else ''}"
        )

    def _stderr_tail(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None or proc.poll() is None:
            return ""
        try:
            return proc.stderr.read()[-400:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""


class _Blocks:
    """Open/close bookkeeping so streamed blocks never interleave."""

    def __init__(self) -> None:
        self.open: tuple[str, str, str | None] | None = None

    def delta(self, role: Any, kind: Any, content: Any, fmt: str | None) -> Iterator[LmcChunk]:
        if self.open != (role, kind, fmt):
            yield from self.close()
            yield LmcChunk(role=role, type=kind, format=fmt, start=True)
            self.open = (role, kind, fmt)
        yield LmcChunk(role=role, type=kind, format=fmt, content=content)

    def block(self, role: Any, kind: Any, content: Any, fmt: str | None) -> Iterator[LmcChunk]:
        yield from self.delta(role, kind, content, fmt)
        yield from self.close()

    def keep(self, chunk: LmcChunk) -> Iterator[LmcChunk]:
        """A mark that is not content (active_line): inside a console block it stays there."""
        yield chunk

    def close(self) -> Iterator[LmcChunk]:
        if self.open is not None:
            role, kind, fmt = self.open
            self.open = None
            yield LmcChunk(role=role, type=kind, format=fmt, end=True)  # type: ignore[arg-type]
