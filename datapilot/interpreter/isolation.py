"""How a kernel is fenced in, detected when a kernel starts (the probe is kept briefly) and
reported with every result.

Layers, strongest first:

- `namespace`: bubblewrap puts the kernel in fresh network, PID, IPC and UTS namespaces (no
  network at all, the server's processes invisible) with a root file system holding only the
  system libraries and the Python installation, read-only; the working directory and `/tmp` are
  size-capped tmpfs mounts. The data dir, the store and the environment are simply not there.
  Run by root, bubblewrap needs no user namespace and the kernel then drops to a per-session
  unprivileged uid (`setpriv`), so process limits bind; run by another user, a user namespace
  maps it to `nobody`. Either way the sandbox makes no user namespace of its own
  (`syscall_filter`, and `--disable-userns` where bubblewrap made one).
- `audit`: no namespaces on this host; the kernel runs in a private directory with a clean
  environment and a Python audit hook that refuses sockets, processes, `ctypes` and files
  outside its directory (weaker: native code can get around it).
- `none`: resource limits only.

Resource limits (CPU seconds, address space, file size, processes, open files) apply at every
level. `DATAPILOT_INTERPRETER_MIN_ISOLATION` refuses to start a kernel below the configured level.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from datapilot.interpreter import syscall_filter
from datapilot.settings import Settings

Level = Literal["none", "audit", "namespace"]
LEVELS: tuple[Level, ...] = ("none", "audit", "namespace")
SANDBOX_HOME = "/sandbox"
_UID_BASE = 200_000  # per-session uids when the server runs as root; nobody else uses them
_UID_SPAN = 50_000
_PR_SET_PDEATHSIG = 1


class IsolationError(RuntimeError):
    """The host cannot isolate kernels as well as the settings demand."""


class Limits(BaseModel):
    cpu_s: int
    memory_mb: int
    file_mb: int
    processes: int
    disk_mb: int
    wall_s: float
    output_chars: int


class Isolation(BaseModel):
    """What fences a kernel in: sent with every result so a client can judge it."""

    level: Level
    network: str = Field(description="namespace (no interfaces) | audit-hook | open")
    filesystem: str = Field(description="private root | private directory | host")
    user: str = Field(description="The uid the kernel runs as, and how.")
    limits: Limits


def limits_of(settings: Settings) -> Limits:
    return Limits(
        cpu_s=settings.interpreter_cpu_s,
        memory_mb=settings.interpreter_memory_mb,
        file_mb=min(settings.interpreter_disk_mb, 64),
        processes=settings.interpreter_processes,
        disk_mb=settings.interpreter_disk_mb,
        wall_s=settings.interpreter_timeout_s,
        output_chars=settings.interpreter_output_chars,
    )


# A probe starts a process in the namespaces (~50 ms): kept this long, so installing bubblewrap
# (or allowing namespaces) takes effect without restarting the server. A change of the `bwrap`
# found on PATH probes again at once.
PROBE_TTL_S = 30.0


class Probe(BaseModel):
    """The strongest level this host supports now, and why not `namespace` when it is not."""

    level: Level
    reason: str = ""
    fix: str = ""


class _Prober:
    """`available_level()` / `probe()`: the host's level, probed again after `PROBE_TTL_S`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[str | None, float, Probe] | None = None

    def probe(self) -> Probe:
        bwrap = _bwrap()
        with self._lock:
            held = self._held
            if held and held[0] == bwrap and time.monotonic() - held[1] < PROBE_TTL_S:
                return held[2]
            found = _probe(bwrap)
            self._held = (bwrap, time.monotonic(), found)
            return found

    def __call__(self) -> Level:
        return self.probe().level

    def cache_clear(self) -> None:
        with self._lock:
            self._held = None


def _probe(bwrap: str | None) -> Probe:
    """Start this very Python in the namespaces with the kernel's mounts: a host where
    bubblewrap runs but this user cannot mount the Python (say, installed in another user's
    private home) is not `namespace`."""
    if bwrap is None:
        return Probe(
            level="audit",
            reason="bubblewrap (`bwrap`) is not installed on the server's PATH",
            fix="install bubblewrap (e.g. `apt install bubblewrap` or `dnf install bubblewrap`); "
            "no restart is needed",
        )
    if not _setpriv_ok():
        return Probe(
            level="audit",
            reason="the server runs as root and /usr/bin/setpriv is missing",
            fix="install util-linux (it provides setpriv), or run the server as an ordinary user",
        )
    mounts, _ = _python_mounts()
    try:
        with syscall_filter.filter_fd() as fd:
            probe = [*_bwrap_base(user_namespace=os.geteuid() != 0, seccomp_fd=fd), *mounts]
            probe += ["--", sys.executable, "-S", "-c", "pass"]
            fds = () if fd is None else (fd,)
            done = subprocess.run(probe, capture_output=True, timeout=20, check=False, pass_fds=fds)
    except (OSError, subprocess.TimeoutExpired) as error:
        said = str(error)
    else:
        if done.returncode == 0:
            return Probe(level="namespace")
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        said = lines[-1] if lines else "no output"
    return Probe(
        level="audit",
        reason=f"bubblewrap is installed but cannot create namespaces here ({said})",
        fix="allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or "
        "kernel.apparmor_restrict_unprivileged_userns=0), or give the container the right to "
        "create them",
    )


_prober = _Prober()
#: The strongest level this host supports (`available_level.cache_clear()` probes again).
available_level = _prober
probe_host = _prober.probe


def choose_level(settings: Settings) -> Level:
    """The level kernels start at, or an error saying why the host falls short."""
    level = available_level()
    wanted = settings.interpreter_min_isolation
    if LEVELS.index(level) < LEVELS.index(wanted):
        raise IsolationError(
            f"This host can isolate code only at level {level!r}, below the configured minimum "
            f"{wanted!r}: install bubblewrap (`bwrap`) and allow namespaces, or lower "
            "DATAPILOT_INTERPRETER_MIN_ISOLATION."
        )
    if level != "namespace" and os.geteuid() == 0 and not others_can_run_python():
        # Without namespaces the kernel could only stay root: process limits would not bind and
        # anything the audit hook misses would act as the server's superuser.
        raise IsolationError(
            "The server runs as root and this host has no namespaces for the kernel, which "
            "would then run as root too: install bubblewrap (`bwrap`), run the server as an "
            "ordinary user, or make this Python readable by other users so the kernel can drop "
            "to an unprivileged uid."
        )
    return level


class Readiness(BaseModel):
    """Whether kernels can start now: the level they would start at, or why not and the fix."""

    available: bool
    level: Level
    reason: str = ""
    fix: str = ""


def readiness(settings: Settings) -> Readiness:
    """`choose_level` without raising: what `/api/v1/features` and `datapilot doctor` report."""
    try:
        return Readiness(available=True, level=choose_level(settings))
    except IsolationError as error:
        found = probe_host()
        level = available_level()
        if found.level != "namespace" and LEVELS.index(level) < LEVELS.index(
            settings.interpreter_min_isolation
        ):
            wanted = settings.interpreter_min_isolation
            fix = f"{found.fix}, or lower DATAPILOT_INTERPRETER_MIN_ISOLATION (now {wanted!r})"
            return Readiness(available=False, level=level, reason=found.reason, fix=fix)
        return Readiness(available=False, level=level, reason=str(error), fix=found.fix)


def session_uid(slot: int) -> int:
    return _UID_BASE + slot % _UID_SPAN


def describe(level: Level, uid: int, settings: Settings) -> Isolation:
    limits = limits_of(settings)
    if level == "namespace":
        how = "dropped from root" if os.geteuid() == 0 else "user namespace, nobody inside"
        shown = uid if os.geteuid() == 0 else os.geteuid()
        return Isolation(
            level=level,
            network="namespace (no interfaces)",
            filesystem="private root (system and Python read-only, scratch size-capped)",
            user=f"uid {shown} ({how})",
            limits=limits,
        )
    if os.geteuid() != 0:
        user = f"uid {os.geteuid()}"
    elif others_can_run_python():
        user = f"uid {uid} (dropped from root)"
    else:  # said plainly: process limits do not bind root
        user = "uid 0 (Python is not readable by other users; process limits do not bind)"
    return Isolation(
        level=level,
        network="audit-hook" if level == "audit" else "open",
        filesystem="private directory",
        user=user,
        limits=limits,
    )


def kernel_command(
    level: Level,
    python_args: list[str],
    *,
    uid: int,
    ipc_dir: Path,
    settings: Settings,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The command that starts the kernel at `level`, `python_args` run by this Python;
    `seccomp_fd` (from `syscall_filter.filter_fd`, passed to the process) is the sandbox's
    system call filter."""
    python = [sys.executable, *python_args]
    if level != "namespace":
        return python
    root = os.geteuid() == 0
    args = _bwrap_base(user_namespace=not root, seccomp_fd=seccomp_fd)
    # The scratch tmpfs first: a Python or virtual environment that lives under /tmp is then
    # mounted on top of it instead of being hidden by it.
    size = settings.interpreter_disk_mb * 1024 * 1024
    args += ["--size", str(size), "--perms", "1777", "--tmpfs", SANDBOX_HOME]
    args += ["--size", str(16 * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp"]
    mounts, roots = _python_mounts()
    args += mounts + _mask(settings, roots)
    args += ["--bind", str(ipc_dir), str(ipc_dir), "--chdir", SANDBOX_HOME, "--clearenv"]
    for name, value in kernel_env(SANDBOX_HOME).items():
        args += ["--setenv", name, value]
    if root:
        drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        drop += ["--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
        return [*args, "--", "/usr/bin/setpriv", *drop, *python]
    return [*args, "--uid", "65534", "--gid", "65534", "--", *python]


def kernel_env(home: str) -> dict[str, str]:
    """The kernel's whole environment: nothing of the server's (no keys, no settings)."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "USER": "sandbox",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp" if home == SANDBOX_HOME else home,
        "MPLCONFIGDIR": f"{home}/.matplotlib",
        "IPYTHONDIR": f"{home}/.ipython",
        "JUPYTER_RUNTIME_DIR": f"{home}/.jupyter",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        # pandas' strings are Arrow's, whose default allocator reserves ~1 GB of address space
        # up front: under the memory cap (RLIMIT_AS) that left a script half the limit and
        # aborted kernels at random. The system allocator reserves nothing.
        "ARROW_DEFAULT_MEMORY_POOL": "system",
    }


def preexec(settings: Settings, *, uid: int | None) -> Callable[[], None]:
    """Runs in the child before exec: its own session and the resource limits (inherited by
    everything the kernel starts)."""
    limits = limits_of(settings)
    nproc = limits.processes
    if os.geteuid() != 0:
        # Without a uid of its own the kernel shares this user's process count.
        nproc += _processes_of(os.geteuid())
    pairs = {
        resource.RLIMIT_CPU: limits.cpu_s,
        resource.RLIMIT_AS: limits.memory_mb * 1024 * 1024,
        resource.RLIMIT_FSIZE: limits.file_mb * 1024 * 1024,
        resource.RLIMIT_NPROC: nproc,
        resource.RLIMIT_NOFILE: 256,
        resource.RLIMIT_CORE: 0,
    }

    prctl = _prctl()

    def apply() -> None:
        os.setsid()
        for which, value in pairs.items():
            resource.setrlimit(which, (value, value))
        if uid is not None:  # audit level run by root: still an unprivileged uid
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        # After the uid change, which clears it: the kernel is killed when the server's
        # launcher thread (and so the server) dies, however it dies (bubblewrap does the same
        # with --die-with-parent).
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return apply


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's `prctl`, looked up before any fork (nothing may be imported in a forked child)."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: the server's shutdown stops its kernels
        return None


def others_can_run_python() -> bool:
    """Whether another uid could start this Python: without namespaces, the kernel only drops
    root when every directory up to the interpreter and its packages is open to others."""
    paths = [Path(os.path.realpath(sys.executable)), *(Path(p) for p in site_dirs())]
    for path in paths:
        for part in [path, *path.parents]:
            try:
                if not part.stat().st_mode & 0o001:
                    return False
            except OSError:
                return False
    return True


def _bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.cache
def _can_disable_userns(bwrap: str) -> bool:
    """Whether this bubblewrap knows `--disable-userns` (asked once per bubblewrap)."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--disable-userns" in done.stdout + done.stderr


def _setpriv_ok() -> bool:
    return os.geteuid() != 0 or Path("/usr/bin/setpriv").exists()


def _bwrap_base(*, user_namespace: bool = False, seccomp_fd: int | None = None) -> list[str]:
    bwrap = _bwrap() or "bwrap"
    args = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc"]
    args += ["--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if user_namespace:
        args.append("--unshare-user")
        if _can_disable_userns(bwrap):  # no user namespace inside this one (bubblewrap 0.8+)
            args.append("--disable-userns")
    if seccomp_fd is not None:  # nor any at all, where bubblewrap made none (run by root)
        args += ["--seccomp", str(seccomp_fd)]
    for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--perms", "0755", "--dir", "/etc"]  # created parents would be private
    for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "fonts", "mime.types"):
        path = Path("/etc") / name
        if path.exists():
            args += ["--ro-bind", str(path), str(path)]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def _python_mounts() -> tuple[list[str], list[Path]]:
    """This Python and its packages, read-only, at the same paths; the directories above them
    are created world-readable (bubblewrap would copy a private parent's mode)."""
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    roots |= {Path(p) for p in site_dirs()}
    roots.add(Path(os.path.realpath(sys.executable)).parent.parent)
    kept = sorted(p for p in roots if not str(p).startswith(("/usr", "/bin", "/lib")))
    kept = [p for p in kept if not any(p != q and p.is_relative_to(q) for q in kept)]
    args: list[str] = []
    made: set[Path] = set()
    for root in kept:
        for parent in reversed(root.parents):
            if parent != Path("/") and parent not in made:
                args += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        args += ["--ro-bind", str(root), str(root)]
    return args, kept


@functools.cache
def site_dirs() -> tuple[str, ...]:
    """Where this Python's packages live (the kernel adds them: it is started by path)."""
    found = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    found += [p for p in sys.path if p.endswith("site-packages")]
    return tuple(dict.fromkeys(p for p in found if Path(p).is_dir()))


def _mask(settings: Settings, roots: list[Path]) -> list[str]:
    """Hide the data dir (warehouse, SQLite store) should it lie inside a mounted directory."""
    data = settings.data_dir.expanduser().resolve()
    if data.is_dir() and any(data.is_relative_to(root) for root in roots):
        return ["--tmpfs", str(data)]
    return []


def _processes_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                continue
    return count
