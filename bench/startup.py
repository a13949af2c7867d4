"""First impressions against the import floor: a terminal answer, a server's start, the doctor.

Each round runs, one after the other on the same machine, the floor every answer pays
(`python -c "import pandas, numpy, pyarrow, pydantic"`), then:

- `datapilot ask "Apple closing price in 2020" --json` (offline): wall and CPU of the whole
  process, and the answer's own stages (`timings_ms`);
- `datapilot serve` on a warm data dir and on an empty one: the time until `/health` answers 200,
  then the first `POST /api/v1/ask` ("Apple's return in 2021");
- `datapilot doctor` on the warm data dir: wall and CPU, and when its first line came.

Every figure is divided by the floor of its own round, and the medians of the ratios are
compared with the targets. The machine is shared: rounds alternate the commands, and the load
average is printed at the start and the end (quote it with the figures).

    python bench/startup.py                 # 5 rounds
    python bench/startup.py --rounds 3 --skip-empty
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

FLOOR = [sys.executable, "-c", "import pandas, numpy, pyarrow, pydantic"]
DATAPILOT = [sys.executable, "-c", "from datapilot.cli import app; app()"]
ASK = "Apple closing price in 2020"
FIRST_QUESTION = "Apple's return in 2021"
# Targets of issue 43: ask within 1.4x the floor (wall and CPU); serve healthy within 5.5x the
# floor's wall on a warm data dir, 11x on an empty one, its first answer within 1 s; doctor 3 s.
ASK_RATIO, WARM_RATIO, EMPTY_RATIO, FIRST_ANSWER_S, DOCTOR_S = 1.4, 5.5, 11.0, 1.0, 3.0


@dataclass
class Run:
    wall: float
    cpu: float
    out: str = ""
    first_line: float | None = None


@dataclass
class Round:
    floor: Run
    ask: Run
    stages: dict[str, float]
    doctor: Run
    # data dir -> (seconds to healthy, the server's CPU seconds by then, seconds to first answer)
    serve: dict[str, tuple[float, float, float]] = field(default_factory=dict)


def run(command: list[str], env: dict[str, str]) -> Run:
    """`command` to its end: wall time, CPU (user + system, from its rusage), stdout, and when
    its first line of output came."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    first = process.stdout.readline()
    first_at = time.perf_counter() - started if first else None
    rest = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    out = (first + rest).decode()
    return Run(wall, usage.ru_utime + usage.ru_stime, out, first_at)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tree_cpu(process: psutil.Process) -> float:
    """CPU seconds (user + system) of `process` and its children so far."""
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            times = each.cpu_times()
            total += times.user + times.system
    return total


def serve(env: dict[str, str], data_dir: Path) -> tuple[float, float, float]:
    """Seconds from `datapilot serve` to `/health` 200 and the server's CPU seconds by then,
    then seconds to the first answer."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [*DATAPILOT, "serve", "--port", str(port), "--offline", "--log-level", "warning"]
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        env={**env, "DATAPILOT_DATA_DIR": str(data_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = started + 300
        while True:
            if process.poll() is not None:
                raise SystemExit(f"datapilot serve ended with code {process.returncode}")
            try:
                # A long timeout: a connection made while the server starts waits in its port's
                # queue and is answered as soon as it serves.
                if httpx.get(f"{url}/health", timeout=60).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.perf_counter() > deadline:
                raise SystemExit("datapilot serve was not healthy within 300 s")
            time.sleep(0.02)
        healthy = time.perf_counter() - started
        cpu = tree_cpu(psutil.Process(process.pid))
        asked = time.perf_counter()
        body = {"question": FIRST_QUESTION, "today": "2022-06-01"}
        reply = httpx.post(f"{url}/api/v1/ask", json=body, timeout=120)
        first = time.perf_counter() - asked
        if reply.status_code != 200 or reply.json().get("status") != "ok":
            raise SystemExit(f"the first answer failed: {reply.status_code} {reply.text[:200]}")
        return healthy, cpu, first
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def one_round(env: dict[str, str], warm_dir: Path, empty: bool) -> Round:
    floor = run(FLOOR, env)
    ask = run([*DATAPILOT, "ask", ASK, "--json"], {**env, "DATAPILOT_DATA_DIR": str(warm_dir)})
    answer = json.loads(ask.out)
    if answer.get("status") != "ok":
        raise SystemExit(f"the terminal answer failed: {ask.out[:300]}")
    doctor = run([*DATAPILOT, "doctor"], {**env, "DATAPILOT_DATA_DIR": str(warm_dir)})
    result = Round(floor, ask, answer.get("timings_ms", {}), doctor)
    result.serve["warm"] = serve(env, warm_dir)
    if empty:
        with tempfile.TemporaryDirectory(prefix="datapilot-empty-") as folder:
            result.serve["empty"] = serve(env, Path(folder))
    return result


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-empty", action="store_true", help="no serve on an empty data dir")
    args = parser.parse_args()
    env = {**os.environ, "DATAPILOT_OFFLINE": "true"}
    # A user's Python writes bytecode beside the modules it imports (pip compiles a regular
    # install's); a shell that forbids it would measure compiling the package on every start.
    for name in (
        "DATAPILOT_LLM_BASE_URL",
        "DATAPILOT_LLM_API_KEY",
        "DATAPILOT_DATA_DIR",
        "PYTHONDONTWRITEBYTECODE",
    ):
        env.pop(name, None)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    with tempfile.TemporaryDirectory(prefix="datapilot-warm-") as folder:
        warm = Path(folder)
        # Seed the warm data dir and write every cache (bytecode included) before measuring.
        run([*DATAPILOT, "ask", ASK, "--json"], {**env, "DATAPILOT_DATA_DIR": str(warm)})
        serve(env, warm)
        rounds = [one_round(env, warm, not args.skip_empty) for _ in range(args.rounds)]
    load_after = Path("/proc/loadavg").read_text().split()[:3]

    def ratio(values: list[float], floors: list[float]) -> float:
        return median([v / f for v, f in zip(values, floors, strict=True)])

    floor_wall = [r.floor.wall for r in rounds]
    floor_cpu = [r.floor.cpu for r in rounds]
    print(f"load average: {' '.join(load_before)} at the start, {' '.join(load_after)} at the end")
    print(f"{len(rounds)} rounds; medians (ratios: each round against its own floor)\n")
    print(f"{'':34}{'wall s':>8}{'CPU s':>8}{'x wall':>8}{'x CPU':>8}  target")
    print(f"{'floor (import pandas, numpy, ...)':34}{median(floor_wall):8.2f}", end="")
    print(f"{median(floor_cpu):8.2f}")
    ask_wall = ratio([r.ask.wall for r in rounds], floor_wall)
    ask_cpu = ratio([r.ask.cpu for r in rounds], floor_cpu)
    ok = ask_wall <= ASK_RATIO and ask_cpu <= ASK_RATIO
    print(f"{'ask --json':34}{median([r.ask.wall for r in rounds]):8.2f}", end="")
    print(f"{median([r.ask.cpu for r in rounds]):8.2f}{ask_wall:8.2f}{ask_cpu:8.2f}", end="")
    print(f"  <= {ASK_RATIO}x: {'met' if ok else 'NOT met'}")
    doctor_wall = median([r.doctor.wall for r in rounds])
    print(f"{'doctor':34}{doctor_wall:8.2f}{median([r.doctor.cpu for r in rounds]):8.2f}", end="")
    print(f"{ratio([r.doctor.wall for r in rounds], floor_wall):8.2f}", end="")
    print(f"{ratio([r.doctor.cpu for r in rounds], floor_cpu):8.2f}", end="")
    print(f"  <= {DOCTOR_S:g} s: {'met' if doctor_wall <= DOCTOR_S else 'NOT met'}", end="")
    firsts = [r.doctor.first_line for r in rounds if r.doctor.first_line is not None]
    print(f" (first line after {median(firsts):.2f} s)" if firsts else "")
    for kind, target in (("warm", WARM_RATIO), ("empty", EMPTY_RATIO)):
        measured = [r for r in rounds if kind in r.serve]
        if not measured:
            continue
        healthy = [r.serve[kind][0] for r in measured]
        cpu = [r.serve[kind][1] for r in measured]
        first = median([r.serve[kind][2] for r in measured])
        times = ratio(healthy, [r.floor.wall for r in measured])
        cpu_times = ratio(cpu, [r.floor.cpu for r in measured])
        print(
            f"{f'serve, {kind} data dir: healthy':34}{median(healthy):8.2f}{median(cpu):8.2f}",
            end="",
        )
        print(f"{times:8.2f}{cpu_times:8.2f}  <= {target:g}x wall: ", end="")
        print("met" if times <= target else "NOT met")
        print(f"{'  then the first answer':34}{first:8.2f}{'':24}", end="")
        print(f"  <= {FIRST_ANSWER_S:g} s: {'met' if first <= FIRST_ANSWER_S else 'NOT met'}")
    stages = sorted({name for r in rounds for name in r.stages})
    print("\nthe answer's own stages (timings_ms, medians): ", end="")
    print(
        ", ".join(
            f"{name} {median([r.stages.get(name, 0.0) for r in rounds]):.1f}" for name in stages
        )
    )


if __name__ == "__main__":
    main()
