"""Every answer as code: writing each answer's script, and whether running it reproduces it.

    python bench/code.py [CORPUS.jsonl ...] [--limit N] [--sandbox]

Asks every answerable question of the corpora offline (their `today`), times rendering the
executed plan as a script (`answer_script`, p50/p95), then runs every script in one fresh
Python process and counts the answers whose charts, tables and texts the script makes exactly
(the whole output compared). Also times one script run cold as `python answer.py`. Targets:
script rendering p95 < 1 ms; every script reproduces its answer.

`--sandbox` runs the scripts inside one sandboxed kernel instead (the interpreter's, whose
`from datapilot import interfaces as dp` calls the server through the data channel): kernel
start, each script's run p50/p95, and the answers reproduced exactly there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from datapilot.brains import answer as ask
from datapilot.core.context import QuestionContext
from datapilot.core.plan import Plan
from datapilot.engine.context import RequestContext
from datapilot.render.code import answer_script
from datapilot.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [ROOT / "tests" / "corpus" / f"{name}.jsonl" for name in ("offline", "heldout")]
DEFAULTS += [ROOT / "tests" / "corpus" / f"{name}.jsonl" for name in ("heldout2", "numeric")]
TARGET_P95_MS = 1.0

CHECK = """
import contextlib, io, json, os, runpy, sys
from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput

index, same, failed = json.load(open(sys.argv[1])), 0, []
for script, answer in index.items():
    os.chdir(os.path.dirname(script))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace = runpy.run_path(script, run_name="__main__")
    except Exception as error:
        failed.append(f"{script}: {type(error).__name__}: {error}")
        continue
    made = [v.model_dump(mode="json") for v in namespace.values()
            if isinstance(v, ChartOutput | TableOutput | TextOutput)]
    wanted = [o.model_dump(mode="json")
              for o in Answer.model_validate_json(open(answer).read()).outputs]
    if made == wanted:
        same += 1
    else:
        failed.append(f"{script}: different outputs")
print(json.dumps({"same": same, "failed": failed}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="Ask at most N questions.")
    parser.add_argument("--sandbox", action="store_true", help="Run in the sandboxed kernel.")
    args = parser.parse_args()
    cases = [
        case
        for path in args.corpus or DEFAULTS
        for line in path.read_text(encoding="utf-8").splitlines()
        if (case := json.loads(line))["expect"].get("status", "ok") == "ok"
    ]
    cases = cases[: args.limit] if args.limit else cases
    settings = get_settings()
    work = Path(tempfile.mkdtemp(prefix="datapilot-code-bench-"))
    index: dict[str, str] = {}
    timings: list[float] = []
    for number, case in enumerate(cases):
        context = QuestionContext(today=date.fromisoformat(case["today"]), brain="offline")
        request = RequestContext.for_request(context, settings)
        answer = asyncio.run(ask(case["query"], request))
        if answer.status != "ok" or not answer.code or answer.plan is None:
            continue
        timings.append(_render_ms(answer.plan, answer.query, context.today))
        folder = work / f"{number:04d}"
        folder.mkdir()
        (folder / "answer.py").write_text(answer.code, encoding="utf-8")
        (folder / "answer.json").write_text(answer.model_dump_json(), encoding="utf-8")
        index[str(folder / "answer.py")] = str(folder / "answer.json")
    (work / "index.json").write_text(json.dumps(index), encoding="utf-8")

    values = sorted(timings)
    p50, p95 = statistics.median(values), values[int(0.95 * (len(values) - 1))]
    print(f"{len(index)} of {len(cases)} answerable questions answered with a script")
    print(f"script rendering: p50 {p50:.3f} ms, p95 {p95:.3f} ms (target p95 < {TARGET_P95_MS} ms)")

    if args.sandbox:
        _sandbox(index, settings)
        return
    env = {**os.environ, "MPLBACKEND": "Agg"}
    first = next(iter(index))
    started = time.perf_counter()
    command = [sys.executable, first]
    subprocess.run(command, cwd=Path(first).parent, env=env, check=True, capture_output=True)
    cold = time.perf_counter() - started
    print(f"one script run cold (python answer.py, PNG included): {cold:.1f} s")
    started = time.perf_counter()
    ran = subprocess.run(
        [sys.executable, "-c", CHECK, str(work / "index.json")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(ran.stdout)
    elapsed = time.perf_counter() - started
    same = result["same"]
    print(f"scripts reproducing their answer exactly: {same} of {len(index)} ({elapsed:.0f} s)")
    for line in result["failed"][:20]:
        print("  ", line)
    met = p95 < TARGET_P95_MS and result["same"] == len(index)
    print("targets met" if met else "TARGETS MISSED")


SANDBOX_CELL = """
import json as _json, os as _os
from datapilot.interfaces import Output as _Output
_os.chdir(_os.environ["HOME"]); _os.makedirs({folder!r}); _os.chdir({folder!r})
_ns = {{"__name__": "__main__"}}
exec(compile({script!r}, "answer.py", "exec"), _ns)
print("@@RESULT@@" + _json.dumps([v.model_dump(mode="json") for v in _ns.values()
                                  if isinstance(v, _Output)]))
"""


def _sandbox(index: dict[str, str], settings: Settings) -> None:
    """Every script run in one sandboxed kernel; its outputs compared with the answer's."""
    from datapilot.core.answer import Answer
    from datapilot.interpreter.channel import data_channel
    from datapilot.interpreter.kernel import SandboxKernel

    question = QuestionContext(today=settings.effective_today(), offline=True)
    limits = settings.model_copy(update={"interpreter_output_chars": 50_000_000})
    kernel = SandboxKernel(limits, data_channel(RequestContext.for_request(question, settings)))
    kernel.start()
    print(f"sandboxed kernel ({kernel.isolation.level}) started in {kernel.started_ms:.0f} ms")
    same, failed, times = 0, [], []
    try:
        for script, answer_path in index.items():
            folder = Path(script).parent.name
            cell = SANDBOX_CELL.format(folder=folder, script=Path(script).read_text())
            started = time.perf_counter()
            chunks = list(kernel.run(cell, timeout_s=120))
            times.append((time.perf_counter() - started) * 1000)
            text = "".join(str(c.content) for c in chunks if c.format == "output" and c.content)
            marked = [line for line in text.splitlines() if line.startswith("@@RESULT@@")]
            wanted = [
                o.model_dump(mode="json")
                for o in Answer.model_validate_json(Path(answer_path).read_text()).outputs
            ]
            if marked and json.loads(marked[0][len("@@RESULT@@") :]) == wanted:
                same += 1
            else:
                failed.append(f"{script}: {text[-300:]!r}")
    finally:
        kernel.close()
    values = sorted(times)
    p50, p95 = statistics.median(values), values[int(0.95 * (len(values) - 1))]
    print(f"one script run in the sandbox: p50 {p50:.0f} ms, p95 {p95:.0f} ms")
    print(f"scripts reproducing their answer exactly in the sandbox: {same} of {len(index)}")
    for line in failed[:20]:
        print("  ", line)
    print("targets met" if same == len(index) else "TARGETS MISSED")


def _render_ms(plan: Plan, query: str, today: date) -> float:
    started = time.perf_counter()
    answer_script(plan, query=query, today=today, shown={}, offline=True)
    return (time.perf_counter() - started) * 1000


if __name__ == "__main__":
    main()
