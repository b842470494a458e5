"""The blocked bootstrap draw shared by the pooled and the stratified alpha intervals."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from scoring.calibration.stats._arrays import IntArray


def count_weight_blocks(
    rng: np.random.Generator, n: int, resamples: int, block_cells: int
) -> Iterator[IntArray]:
    """Yield resamples x n matrices of how often each of n blocks was drawn, with replacement.

    A block of resamples at a time (about ``block_cells`` cells each), as the
    bincount of uniform draws: multinomial counts. The draws are the same
    whatever the block size (one generator, read in order).
    """
    block = max(1, min(resamples, block_cells // n))
    done = 0
    while done < resamples:
        b = min(block, resamples - done)
        draws = rng.integers(0, n, size=(b, n))
        draws += np.arange(b, dtype=np.int64)[:, None] * n
        yield np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)
        done += b
