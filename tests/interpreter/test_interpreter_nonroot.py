"""The interpreter run by an ordinary user, for real: the test (root here) starts a process as
`nobody` through `setpriv`, which detects the isolation, starts kernels and runs code in them.
With bubblewrap the kernel is in namespaces; without it (bwrap off the PATH) the level is
`audit`, the report says so, the audit hook refuses sockets, and the configured minimum
`namespace` refuses to start at all."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import paths

from datapilot.interpreter.isolation import site_dirs

NOBODY = 65534
PROJECT = paths.ROOT
DROP = [
    "/usr/bin/setpriv",
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    # `env` execs the Python as nobody with no capability left, as a user's shell would.
    "/usr/bin/env",
]
CHILD = """
import json, os
from datapilot.interpreter import isolation
from datapilot.interpreter.isolation import IsolationError
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.settings import Settings

CODE = '''import os, socket
print('uid', os.getuid())
try:
    socket.create_connection(('1.1.1.1', 80), timeout=2)
except Exception as error:
    print('net', type(error).__name__, error)
import _imp, importlib, importlib.util, subprocess, sys
from importlib.machinery import ModuleSpec
SPEC = ModuleSpec('_posixsubprocess', None)
def started(fork_exec):  # the sandbox's stand-in refuses when called; the real one is REACHED
    return fork_exec if 'built-in' in repr(fork_exec) else fork_exec()
def fresh_fork_exec():
    spec = importlib.util.find_spec('_posixsubprocess')
    return started(importlib.util.module_from_spec(spec).fork_exec)
class Disguised(str):  # a name that says it is not '_posixsubprocess'
    __hash__ = str.__hash__
    def __eq__(self, other):
        return False
def disguised_copy():
    origin = sys.modules['_posixsubprocess'].__file__
    spec = ModuleSpec(Disguised('_posixsubprocess'), None, origin=origin)
    return started(_imp.create_dynamic(spec).fork_exec)
def reimported():
    sys.modules.pop('_posixsubprocess', None)
    return started(__import__('_posixsubprocess').fork_exec)
def unlisted():  # the sandbox's own list of modules never imported again, emptied
    _imp.create_builtin.__globals__['_UNCOPYABLE'] = ()
    return reimported()
for name, attempt in [
    ('popen', lambda: subprocess.run(['cat', '/proc/1/environ'])),
    ('fork_exec', lambda: started(__import__('_posixsubprocess').fork_exec)),
    ('fresh fork_exec', fresh_fork_exec),
    # The copy made as for a module built into the interpreter (as in most distributions'
    # Pythons): no audit event at all. None where it is a file: that still ran.
    ('built-in copy', lambda: getattr(_imp.create_builtin(SPEC), 'fork_exec', None)),
    ('fresh _imp', lambda: _imp.create_builtin(ModuleSpec('_imp', None)).create_builtin),
    ('disguised copy', disguised_copy),
    ('reloaded', lambda: started(importlib.reload(sys.modules['_posixsubprocess']).fork_exec)),
    ('imported again', reimported),
    ('imported again, unlisted', unlisted),
    ('subinterpreter', lambda: __import__('_xxsubinterpreters').create()),
    ('gc', lambda: __import__('gc').get_objects()),
]:
    try:
        found = attempt()
        print('process', name, 'REACHED' if 'built-in' in repr(found) else 'ran', repr(found)[:60])
    except Exception as error:
        print('process', name, 'CONTAINED', type(error).__name__)
try:  # a user namespace of its own: capabilities inside it
    made = subprocess.run(['unshare', '-rm', 'true'], capture_output=True).returncode == 0
    print('nested user namespace', 'MADE' if made else 'REFUSED')
except Exception as error:
    print('nested user namespace CONTAINED', type(error).__name__)
'''
rows = []
for path, minimum in json.loads(os.environ["SCENARIOS"]):
    os.environ["PATH"] = path
    isolation.available_level.cache_clear()
    row = {"euid": os.geteuid(), "available": isolation.available_level()}
    try:
        kernel = SandboxKernel(Settings(interpreter_min_isolation=minimum)).start()
    except IsolationError as error:
        row["refused"] = str(error)
    else:
        try:
            chunks = [c.model_dump(exclude_none=True) for c in kernel.run(CODE)]
        finally:
            kernel.close()
        row["printed"] = "".join(
            c["content"] for c in chunks
            if c.get("format") == "output" and isinstance(c.get("content"), str)
        )
        row["isolation"] = chunks[-1]["content"]["isolation"]
    rows.append(row)
print(json.dumps(rows))
"""


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="dp-nonroot-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def python_dirs() -> list[Path]:
    """Where this Python, its packages and the project live."""
    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    found.add(Path(os.path.realpath(sys.executable)).parent.parent)
    return sorted({*found, *(Path(p) for p in site_dirs()), PROJECT})


def opened_for_nobody(needed: list[Path], stash: Path) -> list[str]:
    """A command prefix that opens, in a mount namespace of its own, the private directories
    above `needed` (root's home holding this Python, say): each becomes a world-readable tmpfs
    holding only the `needed` directories below it, bound from the real ones. Empty where
    nothing is private. Whatever Python the suite runs on, `nobody` then runs the same one."""
    tops: dict[Path, list[Path]] = {}
    for path in needed:
        private = [p for p in reversed(path.parents) if not p.stat().st_mode & 0o001]
        if private:
            tops.setdefault(private[0], []).append(path)
    lines = ["umask 022"]
    for number, (top, below) in enumerate(sorted(tops.items())):
        kept = stash / str(number)
        kept.mkdir(parents=True, exist_ok=True)
        lines += [f"mount --bind '{top}' '{kept}'", f"mount -t tmpfs -o mode=0755 dp '{top}'"]
        below = [p for p in below if not any(p != q and p.is_relative_to(q) for q in below)]
        for path in sorted(set(below)):
            inner = path.relative_to(top)
            lines += [f"mkdir -p '{path}'", f"mount --rbind '{kept / inner}' '{path}'"]
    if len(lines) == 1:
        return []
    script = "; ".join([*lines, 'exec "$@"'])
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", script, "sh"]


@pytest.fixture(scope="module")
def opened(home: Path) -> list[str]:
    """The prefix under which `nobody` can run this very Python with the project importable."""
    if os.geteuid() != 0:
        pytest.skip("already an ordinary user: every other interpreter test takes this path")
    assert Path("/usr/bin/setpriv").exists(), "util-linux's setpriv is needed (as by the server)"
    return opened_for_nobody(python_dirs(), home / "stash")


def as_nobody(
    opened: list[str], args: list[str], home: Path, **env: str
) -> subprocess.CompletedProcess:
    base = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "DATAPILOT_DATA_DIR": str(home / "data"),
        "DATAPILOT_CONFIG": str(home / "absent.toml"),
        "PYTHONPATH": os.pathsep.join([str(PROJECT), *site_dirs()]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [*opened, *DROP, sys.executable, *args],
        env={**base, **env},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def namespaces_for_nobody(opened: list[str]) -> bool:
    """Whether bubblewrap gives nobody a user and network namespace with this Python in it:
    asked of bwrap directly, not of the code under test."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    command = [bwrap, "--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc"]
    command += ["--dev", "/dev", sys.executable, "-S", "-c", "pass"]
    done = subprocess.run([*opened, *DROP, *command], capture_output=True, timeout=60, check=False)
    return done.returncode == 0


def test_nobody_runs_the_suites_own_python(opened: list[str], home: Path) -> None:
    probe = "import datapilot.interpreter.kernel, pandas, ipykernel"
    done = as_nobody(opened, ["-c", probe], home)
    assert done.returncode == 0, done.stderr[-2000:]


def test_an_ordinary_user_gets_an_honest_level_and_its_minimum(
    opened: list[str], home: Path
) -> None:
    scenarios = [
        ("/usr/bin:/bin", "namespace"),  # bubblewrap where the host has it
        (str(home / "no-bwrap"), "namespace"),  # no bubblewrap, a minimum it cannot meet
        (str(home / "no-bwrap"), "audit"),  # no bubblewrap, a minimum it can
    ]
    done = as_nobody(opened, ["-c", CHILD], home, SCENARIOS=json.dumps(scenarios))
    assert done.returncode == 0, done.stderr[-3000:]
    with_bwrap, refused, audited = json.loads(done.stdout.strip().splitlines()[-1])
    assert {row["euid"] for row in (with_bwrap, refused, audited)} == {NOBODY}

    if namespaces_for_nobody(opened):
        report: dict[str, Any] = with_bwrap["isolation"]
        assert report["level"] == "namespace"
        assert report["user"].startswith(f"uid {NOBODY} (user namespace")
        assert "uid 65534" in with_bwrap["printed"]
        assert "Network is unreachable" in with_bwrap["printed"]  # no interface at all
        assert "nested user namespace REFUSED" in with_bwrap["printed"]
    else:  # the host does not give nobody namespaces: said, and the minimum holds
        assert with_bwrap["available"] == "audit"
        assert "DATAPILOT_INTERPRETER_MIN_ISOLATION" in with_bwrap["refused"]

    assert refused["available"] == "audit"
    assert "below the configured minimum 'namespace'" in refused["refused"]
    assert "isolation" not in refused

    report = audited["isolation"]
    assert report["level"] == "audit" and report["network"] == "audit-hook"
    assert report["user"] == f"uid {NOBODY}"  # no claim of a uid it did not drop to
    assert f"uid {NOBODY}" in audited["printed"]
    assert "PermissionError sandbox: socket" in audited["printed"]
    # No way to start a process: not subprocess, nor the function behind it (which raises no
    # audit event), nor a fresh copy of its module, nor the collector's list of every object.
    assert "REACHED" not in audited["printed"] and " ran " not in audited["printed"]
    assert audited["printed"].count("CONTAINED") == 12, audited["printed"]
