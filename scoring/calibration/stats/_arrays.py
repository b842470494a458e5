"""Shared private helpers: input checks, integer codes and grouped counting.

Every public function takes parallel per-rating arrays; these check them
(one-dimensional, integer codes, equal lengths) and provide the few grouping
primitives (renumbering, distinct pairs, stable orders) the families share.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy import sparse, special

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CONFIDENCE = 0.95
# The normal quantile of a two-sided CONFIDENCE interval (1.96).
Z95 = float(special.ndtri(0.5 + CONFIDENCE / 2))


def as_codes(x: npt.ArrayLike, name: str) -> IntArray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
            raise ValueError(f"{name} must hold integer codes")
    elif a.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integer codes")
    out = a.astype(np.int64, copy=False)
    if out.min() < 0:
        raise ValueError(f"{name} codes must be non-negative")
    return out


def as_floats(x: npt.ArrayLike, name: str) -> FloatArray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    return a


def same_length(**arrays: np.ndarray) -> int:
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"arrays must have equal lengths, got {lengths}")
    return next(iter(lengths.values()), 0)


def code_count(codes: IntArray, given: int | None) -> int:
    needed = int(codes.max()) + 1 if codes.size else 0
    if given is None:
        return needed
    if given < needed:
        raise ValueError(f"size {given} is smaller than the largest code + 1 ({needed})")
    return given


def compact_codes(codes: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """Return codes renumbered 0..m-1 (in code order) and the used codes.

    When every code below ``size`` is used, that is ``codes`` itself (no copy).
    """
    present = np.zeros(size, dtype=bool)
    present[codes] = True
    if present.all():
        return codes, np.arange(size, dtype=np.int64)
    new_index = np.cumsum(present) - 1
    return new_index[codes].astype(np.int64), np.flatnonzero(present).astype(np.int64)


def kept_where(keep: BoolArray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Return each array's entries where ``keep`` holds: the arrays themselves
    (no copy) when it holds everywhere, as it does for data without gaps."""
    if keep.all():
        return arrays
    return tuple(a[keep] for a in arrays)


def dense_keys(n_keys: int, size: int) -> bool:
    """Whether keys in [0, size) are few enough for a table of that size.

    A presence table costs O(size) and no sort; sorting costs O(n log n). Up
    to 16 table slots per key (and any table under 4 M slots) it is faster.
    """
    return size < 2**31 and size <= max(16 * n_keys, 1 << 22)


def unique_inverse(key: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """Return np.unique(key, return_inverse=True) for keys in [0, size).

    A table of ``size`` slots (five bytes each) costs no sort, but memory a
    process touches for the first time is slow to get (page faults: about
    0.3 s for the 100 MB of 1.25 M keys over 20 M slots on a virtual
    machine), so the table serves only up to four slots per key. Otherwise
    a stable sort: keys read from a database come in runs (a scorecard's
    ratings are stored together), which it merges rather than sorts.
    """
    if size < 2**31 and size <= max(4 * key.size, 1 << 20):
        present = np.zeros(size, dtype=bool)
        present[key] = True
        distinct = np.flatnonzero(present)
        rank = np.zeros(size, dtype=np.int32)
        rank[distinct] = np.arange(distinct.size, dtype=np.int32)
        return distinct.astype(np.int64), rank[key].astype(np.int64)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(key.size, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first].astype(np.int64, copy=False), inverse


def distinct_per(group: IntArray, member: IntArray, n_groups: int, n_members: int) -> IntArray:
    """Return per group (0..n_groups-1) the number of distinct members it has."""
    size = n_groups * n_members
    if dense_keys(group.size, size):
        seen = np.zeros(size, dtype=bool)
        seen[group * n_members + member] = True
        return seen.reshape(n_groups, n_members).sum(axis=1).astype(np.int64)
    keys = np.unique(group * n_members + member)
    return np.bincount(keys // n_members, minlength=n_groups).astype(np.int64)


def unique_categories(values: FloatArray) -> tuple[FloatArray, IntArray]:
    """Return np.unique(values, return_inverse=True): few distinct values, found without argsort."""
    categories = np.unique(values)
    return categories, np.searchsorted(categories, values).astype(np.int64)


def group_extremes(group: IntArray, values: FloatArray, size: int) -> tuple[FloatArray, FloatArray]:
    """Return per group 0..size-1 the smallest and largest of its values (inf and -inf
    for a group without values).

    Ratings and scales are small whole numbers: then one count per (group, value)
    finds both, several times faster than np.minimum.at and np.maximum.at on a
    million values. Anything else takes those.
    """
    low, high = np.full(size, np.inf), np.full(size, -np.inf)
    if values.size == 0:
        return low, high
    bottom, top = float(np.min(values)), float(np.max(values))
    whole = np.isfinite(bottom) and np.isfinite(top) and top - bottom < 64
    steps = (values - bottom).astype(np.int64) if whole else None
    if steps is None or not np.array_equal(steps, values - bottom):
        np.minimum.at(low, group, values)
        np.maximum.at(high, group, values)
        return low, high
    width = int(top - bottom) + 1
    seen = np.bincount(group * width + steps, minlength=size * width).reshape(size, width) > 0
    some = seen.any(axis=1)
    low[some] = bottom + np.argmax(seen[some], axis=1)
    high[some] = top - np.argmax(seen[some, ::-1], axis=1)
    return low, high


def safe_div(num: npt.ArrayLike, den: npt.ArrayLike) -> FloatArray:
    den_a = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den_a).shape, np.nan)
    np.divide(num, den_a, out=out, where=den_a != 0)
    return out


def stable_order(major: IntArray, minor: IntArray) -> IntArray:
    """Return the stable order by (major, minor) of non-negative codes.

    One stable argsort of major * (max minor + 1) + minor (a radix-friendly
    single key) is several times faster than lexsort on two keys; lexsort
    remains for codes too large to combine in 63 bits.
    """
    if major.size == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(minor.max()) + 1
    if (int(major.max()) + 1) * width < 2**62:
        return np.argsort(major * width + minor, kind="stable")
    return np.lexsort((minor, major))


def distinct_pairs(
    major: IntArray, minor: IntArray, n_minor: int
) -> tuple[IntArray, IntArray, IntArray]:
    """Return the distinct (major, minor) pairs in order, as two arrays, and each entry's pair."""
    key, inverse = unique_inverse(major * n_minor + minor, (int(major.max()) + 1) * n_minor)
    return key // n_minor, key % n_minor, inverse


def distinct_rows(rows: FloatArray) -> tuple[FloatArray, IntArray]:
    """Return the distinct rows of a 2-D array and how often each occurs.

    np.unique(axis=0) sorts rows as opaque records, several times slower than
    a lexsort on the columns.
    """
    if rows.shape[0] == 0:
        return rows, np.zeros(0, dtype=np.int64)
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.flatnonzero(np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)])
    return ordered[starts], np.diff(np.r_[starts, rows.shape[0]]).astype(np.int64)


def label_members(labels: npt.NDArray[np.integer], n_labels: int) -> list[IntArray]:
    """Return the indices holding each label 0..n_labels-1."""
    order = np.argsort(labels, kind="stable")
    return np.split(order, np.cumsum(np.bincount(labels, minlength=n_labels))[:-1])


def nan_to_zero(a: FloatArray) -> FloatArray:
    return np.where(np.isfinite(a), a, 0.0)


def counts_matrix(
    rows: npt.NDArray[np.integer],
    columns: npt.NDArray[np.integer],
    shape: tuple[int, int],
    weights: FloatArray | None = None,
) -> sparse.csr_matrix:
    """Return the sparse matrix counting (or summing ``weights`` over) each (row, column).

    Coordinates go in as int32 when the shape allows, as scipy keeps them:
    int64 ones would be copied down, a third more memory and twice the time
    on a million entries.
    """
    small = max(shape) < 2**31
    if small:
        rows, columns = rows.astype(np.int32, copy=False), columns.astype(np.int32, copy=False)
    data = np.ones(rows.size) if weights is None else weights
    return sparse.csr_matrix((data, (rows, columns)), shape=shape)
