"""tablecam.cores: the audit's BLAS on one thread while it runs, as before after."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from tablecam.cores import one_blas_thread


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_blas_on_one_thread_inside_and_restored_after():
    np.ones((4, 4)) @ np.ones((4, 4))  # (BLAS loaded)
    before = _blas_threads()
    assert before, "numpy has a BLAS threadpoolctl can see"

    @one_blas_thread
    def inside(x: int) -> list[int]:
        """Say so."""
        return [x, *_blas_threads()]

    got = inside(7)
    assert got[0] == 7 and set(got[1:]) == {1}
    assert inside.__doc__ == "Say so."
    assert _blas_threads() == before


def test_restored_when_it_raises():
    before = _blas_threads()

    @one_blas_thread
    def fails() -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fails()
    assert _blas_threads() == before
