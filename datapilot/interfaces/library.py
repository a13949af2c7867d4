"""The installed interface library: every interface the plugins register, built once."""

from __future__ import annotations

import os
from functools import cache

from datapilot.interfaces.registry import Registry


@cache
def default_registry() -> Registry:
    """The library: every interface the installed plugins register, built-ins included (BLAS
    then single-threaded)."""
    from datapilot.plugins import plugin_manager

    registry = Registry()
    plugin_manager().hook.register_interfaces(registry=registry)
    _one_blas_thread()
    return registry


def _one_blas_thread() -> None:
    """One thread per BLAS library (numpy's, scipy's), process-wide.

    Calls already run in parallel threads and their matrices are small, so BLAS threads only
    oversubscribe the cores: a quarterly ARIMA fit took 17 ms single-threaded but 80 ms (p95
    ~900 ms) with OpenBLAS threads on a busy two-core machine.
    """
    from threadpoolctl import threadpool_limits

    # Libraries loaded later (scipy's, with the first forecast) read these when they load.
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = "1"
    threadpool_limits(limits=1, user_api="blas")
