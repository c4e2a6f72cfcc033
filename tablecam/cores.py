"""How the audit and the live loop share the CPU's cores.

The detector runs a frame's zone crops side by side, one ONNX Runtime thread per core (``Detector.many``). NumPy's
BLAS (OpenBLAS) starts a thread per core too, for matrix products as small as the deck's comparisons
(``models.deckmatch``: every window of a card's neighbourhood against every picture), and its threads keep spinning
after each product: on this 2-core machine they took a core from the detector for nothing (rendered Spit 2p s7:
46 s of CPU for 26 s of audit; with BLAS on one thread 25 s of CPU, 0.87x -> 1.08x real time, the same log).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def one_blas_thread(fn: F) -> F:
    """``fn`` run with NumPy's BLAS on one thread (as it was before, after it returns or raises)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
