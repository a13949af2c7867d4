"""PNGs of charts someone else specified, drawn in worker processes with a time limit.

Sandboxed code sends the server charts to draw (the interpreter's `dp` channel). `to_png`
bounds what it draws, but it renders one chart at a time in the server process and cannot be
stopped once started; here each chart is drawn by a worker process of its own, so it holds up
no other tenant's charts, and a worker past the time limit is killed (the next chart starts a
new one). Run as `python -m datapilot.render.png_worker`, a worker reads one JSON request per
line on stdin (`{"chart": <ChartOutput>, "dpi": 110}`) and answers one line on stdout:
`{"png": <base64>}` or `{"error": "what went wrong"}`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from datapilot.core.outputs import ChartOutput

WORKERS = 2  # charts drawn at once; more requests wait (within their time limit)
MAX_REQUEST_CHARS = 10_000_000  # a chart of `charts.MAX_CELLS` values, as JSON
_START_S = 60.0  # a worker's start (imports matplotlib and pandas) is not the chart's time
_READY = b"ready\n"


class RenderError(RuntimeError):
    """The chart was not drawn; the message says why and what to do."""


class _Worker:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "MPLBACKEND": "Agg"},
        )
        if _line(self._stdout, time.monotonic() + _START_S) != _READY:
            self.close()
            raise RenderError("the chart renderer did not start; see the server log")

    @property
    def _stdout(self) -> IO[bytes]:
        assert self.process.stdout is not None
        return self.process.stdout

    def draw(self, request: bytes, deadline: float) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(request + b"\n")
        self.process.stdin.flush()
        reply = _line(self._stdout, deadline)
        if reply is None and self.process.poll() is None and time.monotonic() >= deadline:
            raise TimeoutError
        if reply is None:
            raise OSError("the chart renderer ended")
        return dict(json.loads(reply))

    def close(self) -> None:
        self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def _line(stream: IO[bytes], deadline: float) -> bytes | None:
    """One line from `stream`, or None when `deadline` passes (or the worker died) first."""
    fd = stream.fileno()
    parts: list[bytes] = []
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            parts.append(chunk)
            if chunk.endswith(b"\n"):
                return b"".join(parts)


class _Pool:
    """Up to `WORKERS` idle workers, started when first needed."""

    def __init__(self, size: int) -> None:
        self.idle: queue.LifoQueue[_Worker | None] = queue.LifoQueue()
        for _ in range(size):
            self.idle.put(None)  # a place for a worker not started yet

    def draw(self, request: bytes, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        try:
            worker = self.idle.get(timeout=timeout_s)
        except queue.Empty:
            raise RenderError(
                f"the chart renderer was busy for {timeout_s:g} s; try again"
            ) from None
        try:
            if worker is None or worker.process.poll() is not None:
                worker = _Worker()
                deadline = time.monotonic() + timeout_s
            reply = worker.draw(request, deadline)
        except TimeoutError:
            assert worker is not None
            worker.close()
            worker = None
            raise RenderError(
                f"the chart took longer than {timeout_s:g} s to draw; draw fewer points, "
                "panels or words"
            ) from None
        except (OSError, ValueError):
            if worker is not None:
                worker.close()
            worker = None
            raise RenderError("the chart renderer stopped; try again") from None
        finally:
            self.idle.put(worker)
        if "error" in reply:
            raise RenderError(str(reply["error"]))
        return base64.b64decode(reply["png"])

    def prestart(self) -> None:
        try:
            worker = self.idle.get_nowait()
        except queue.Empty:
            return  # all busy: started already
        try:
            if worker is None or worker.process.poll() is not None:
                worker = _Worker()
        except RenderError:
            worker = None
        finally:
            self.idle.put(worker)


_pool = _Pool(WORKERS)


def prestart() -> None:
    """Start a worker in the background unless one is ready (its start takes a few seconds:
    the first chart of a kernel starting now then finds it ready)."""
    threading.Thread(target=_pool.prestart, name="png-worker-start", daemon=True).start()


def draw_png(chart: ChartOutput, dpi: int, timeout_s: float) -> bytes:
    """The chart as PNG bytes, drawn by a worker process within `timeout_s` seconds.

    Raises `charts.ChartTooLarge` for a chart past what a PNG draws, `RenderError` when it
    took too long or the renderer failed."""
    from datapilot.render.charts import ChartTooLarge, check_drawable

    check_drawable(chart, dpi)  # refused here at once, without a worker
    request = json.dumps({"chart": chart.model_dump(mode="json"), "dpi": dpi}).encode()
    if len(request) > MAX_REQUEST_CHARS:
        raise ChartTooLarge(
            f"the chart is {len(request):,} characters as JSON; a PNG draws at most "
            f"{MAX_REQUEST_CHARS:,}: send fewer rows or shorter texts"
        )
    return _pool.draw(request, timeout_s)


def _serve() -> None:
    """The worker: draw each request read on stdin, answer on stdout."""
    from datapilot.render.charts import to_png

    out = sys.stdout.buffer
    out.write(_READY)
    out.flush()
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
            chart = ChartOutput.model_validate(request["chart"])
            with tempfile.TemporaryDirectory(prefix="dp-png-") as folder:
                drawn = to_png(chart, Path(folder) / "chart.png", dpi=int(request["dpi"]))
                reply = {"png": base64.b64encode(drawn.read_bytes()).decode("ascii")}
        except Exception as error:  # said to the caller, which raises it
            reply = {"error": f"the chart could not be drawn: {str(error)[:500]}"}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    _serve()
