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
import importlib.util, subprocess
def fresh_fork_exec():
    spec = importlib.util.find_spec('_posixsubprocess')
    return importlib.util.module_from_spec(spec).fork_exec
for name, attempt in [
    ('popen', lambda: subprocess.run(['cat', '/proc/1/environ'])),
    ('fork_exec', lambda: __import__('_posixsubprocess').fork_exec(*range(23))),
    ('fresh fork_exec', fresh_fork_exec),
    ('gc', lambda: __import__('gc').get_objects()),
]:
    try:
        found = attempt()
        print('process', name, 'REACHED' if 'built-in' in repr(found) else 'ran', repr(found)[:60])
    except Exception as error:
        print('process', name, 'CONTAINED', type(error).__name__)
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


def as_nobody(python: str, args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess:
    base = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "DATAPILOT_DATA_DIR": str(home / "data"),
        "DATAPILOT_CONFIG": str(home / "absent.toml"),
        "PYTHONPATH": os.pathsep.join([str(PROJECT), *site_dirs()]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [*DROP, python, *args],
        env={**base, **env},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def python(home: Path) -> str:
    """A Python `nobody` can run with the project's packages: this one, or the system's of the
    same version (this one may live in root's private home)."""
    if os.geteuid() != 0:
        pytest.skip("already an ordinary user: every other interpreter test takes this path")
    if not Path("/usr/bin/setpriv").exists():
        pytest.skip("no setpriv to become another user")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, f"/usr/bin/python{version}"):
        probe = "import datapilot.interpreter.kernel, pandas, ipykernel"
        if as_nobody(candidate, ["-c", probe], home).returncode == 0:
            return candidate
    pytest.skip(f"no Python {version} that nobody can run with the project importable")


def namespaces_for_nobody(python: str) -> bool:
    """Whether bubblewrap gives nobody a user and network namespace with this Python in it:
    asked of bwrap directly, not of the code under test."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    command = [bwrap, "--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "--proc", "/proc"]
    command += ["--dev", "/dev", python, "-S", "-c", "pass"]
    done = subprocess.run([*DROP, *command], capture_output=True, timeout=60, check=False)
    return done.returncode == 0


def test_an_ordinary_user_gets_an_honest_level_and_its_minimum(python: str, home: Path) -> None:
    scenarios = [
        ("/usr/bin:/bin", "namespace"),  # bubblewrap where the host has it
        (str(home / "no-bwrap"), "namespace"),  # no bubblewrap, a minimum it cannot meet
        (str(home / "no-bwrap"), "audit"),  # no bubblewrap, a minimum it can
    ]
    done = as_nobody(python, ["-c", CHILD], home, SCENARIOS=json.dumps(scenarios))
    assert done.returncode == 0, done.stderr[-3000:]
    with_bwrap, refused, audited = json.loads(done.stdout.strip().splitlines()[-1])
    assert {row["euid"] for row in (with_bwrap, refused, audited)} == {NOBODY}

    if namespaces_for_nobody(python):
        report: dict[str, Any] = with_bwrap["isolation"]
        assert report["level"] == "namespace"
        assert report["user"].startswith(f"uid {NOBODY} (user namespace")
        assert "uid 65534" in with_bwrap["printed"]
        assert "Network is unreachable" in with_bwrap["printed"]  # no interface at all
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
    assert audited["printed"].count("CONTAINED") == 4, audited["printed"]
