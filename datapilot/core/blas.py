"""One thread per BLAS library (numpy's, scipy's), process-wide.

Calls already run in parallel threads and their matrices are small, so BLAS threads only
oversubscribe the cores: a quarterly ARIMA fit took 17 ms single-threaded but 80 ms (p95
~900 ms) with OpenBLAS threads on a busy two-core machine.

A BLAS library reads its thread count from the environment when it loads. The `datapilot`
command sets it before anything loads one (`one_thread_from_start`), and nothing more is needed
then; a process that loaded one first (a test runner, a program embedding Datapilot) has its
libraries limited through threadpoolctl, which inspects every loaded shared library (~8 ms).
"""

from __future__ import annotations

import os
import sys

_ENVIRONMENT = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# The dependencies that load a BLAS library when imported.
_BLAS_MODULES = ("numpy", "scipy")
_set_before_loading = False


def one_thread_from_start() -> None:
    """One BLAS thread for every library this process loads from now on (and for the processes
    it starts). Called first thing by the command line."""
    global _set_before_loading
    for name in _ENVIRONMENT:
        os.environ[name] = "1"
    _set_before_loading = _set_before_loading or not any(m in sys.modules for m in _BLAS_MODULES)


def one_blas_thread() -> None:
    """One thread for every BLAS library, those already loaded included."""
    for name in _ENVIRONMENT:  # libraries loaded later (scipy's, with the first forecast)
        os.environ[name] = "1"
    if _set_before_loading:  # every library loaded so far read it
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
