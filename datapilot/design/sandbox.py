"""Run designed code and its tests under limits: a separate process with CPU, memory, file and
time limits, no network (its own empty network namespace where the system allows one, and an
audit hook refusing sockets in any case), on a snapshot of the warehouse."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field


class Limits(BaseModel):
    cpu_s: int = Field(default=20, description="CPU seconds.")
    wall_s: float = Field(default=40.0, description="Seconds of wall-clock time.")
    memory_mb: int = Field(default=2048, description="Address space, MB.")


class TestResult(BaseModel):
    name: str
    passed: bool
    error: str | None = None


class SandboxResult(BaseModel):
    """What running the tests gave: ok only when every test passed."""

    ok: bool
    reason: str | None = None
    tests: list[TestResult] = Field(default_factory=list)
    isolation: str = ""


@functools.cache
def _no_network_prefix() -> tuple[str, ...]:
    """`unshare -rn` when this system lets a process have its own (empty) network namespace."""
    tool = shutil.which("unshare")
    if tool is None:
        return ()
    try:
        done = subprocess.run([tool, "-rn", "true"], capture_output=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ()
    return (tool, "-rn") if done.returncode == 0 else ()


def _limit(limits: Limits) -> None:  # runs in the child, before exec
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s))
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024, 256 * 1024 * 1024))
    os.setsid()  # its own process group: a timeout kills everything it started


def run_tests(
    code: str,
    tests: str,
    *,
    name: str,
    category: str,
    returns: str,
    warehouse: Path,
    today: date,
    limits: Limits | None = None,
) -> SandboxResult:
    """Run `tests` against `code` in a limited process; never raises for what the code does."""
    limits = limits or Limits()
    with tempfile.TemporaryDirectory(prefix="datapilot-design-") as folder:
        root = Path(folder)
        (root / "interface.py").write_text(code, encoding="utf-8")
        (root / "test_interface.py").write_text(tests, encoding="utf-8")
        job = {"name": name, "category": category, "returns": returns, "today": today.isoformat()}
        (root / "run.json").write_text(json.dumps(job), encoding="utf-8")
        if warehouse.exists():
            shutil.copyfile(warehouse, root / "warehouse.duckdb")
        prefix = _no_network_prefix()
        command = [*prefix, sys.executable, "-m", "datapilot.design.harness", str(root)]
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("DATAPILOT_LLM_") and "PROXY" not in key.upper()
        }
        env |= {
            "DATAPILOT_DATA_DIR": str(root),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
        isolation = ("network namespace + " if prefix else "") + "audit hook, rlimits"
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=functools.partial(_limit, limits),
        )
        try:
            out, err = process.communicate(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            _kill(process)
            return SandboxResult(
                ok=False,
                reason=f"the tests ran longer than {limits.wall_s:g} s and were stopped",
                isolation=isolation,
            )
        return _result(process.returncode, out, err, limits, isolation)


def _kill(process: subprocess.Popen[str]) -> None:
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _result(code: int, out: str, err: str, limits: Limits, isolation: str) -> SandboxResult:
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if lines:
        try:
            data: dict[str, Any] = json.loads(lines[-1])
            return SandboxResult(isolation=isolation, **data)
        except (ValueError, TypeError):
            pass
    if code in (-9, -24, 137, 152):  # SIGKILL / SIGXCPU: the CPU limit
        reason = f"the tests used more than {limits.cpu_s} s of CPU and were stopped"
    elif "MemoryError" in err:
        reason = f"the tests used more than {limits.memory_mb} MB of memory"
    else:
        tail = err.strip().splitlines()[-1:] or ["no output"]
        reason = f"the test process ended with code {code}: {tail[0][:300]}"
    return SandboxResult(ok=False, reason=reason, isolation=isolation)
