"""The MCP Inspector CLI (npm) the client tests drive, installed on first use into the user's cache
(outside the tree, kept between runs), once for all xdist workers. Where npm is missing or the
install fails, the test fails naming the command to run."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from filelock import FileLock
from platformdirs import user_cache_dir

# The release whose CLI runs on Node 20 (later ones need Node 22).
INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"
CACHE = Path(user_cache_dir("datapilot-tests")) / "inspector-0.15.0"


def _install_args(cache: Path) -> list[str]:
    return ["install", "--prefix", str(cache), "--no-audit", "--no-fund", INSPECTOR]


def inspector_cli(cache: Path = CACHE) -> Path:
    """The `mcp-inspector` command of the install in `cache`, installing it first if absent."""
    command = cache / "node_modules" / ".bin" / "mcp-inspector"
    cache.mkdir(parents=True, exist_ok=True)
    # One worker installs; the others wait on the lock and then find the command.
    with FileLock(str(cache.parent / f"{cache.name}.lock"), timeout=900):
        if command.is_file():
            return command
        npm = shutil.which("npm")
        install = shlex.join(["npm", *_install_args(cache)])
        assert npm, f"the MCP Inspector CLI needs npm (Node.js 20+): install it, then `{install}`"
        done = subprocess.run(
            [npm, *_install_args(cache)], capture_output=True, text=True, timeout=900, check=False
        )
        assert done.returncode == 0 and command.is_file(), (
            f"`{install}` failed:\n{done.stderr[-2000:]}"
        )
    return command
