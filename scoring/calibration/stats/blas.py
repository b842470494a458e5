"""Keep OpenBLAS on the calling thread for the small dense systems of the models."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@functools.cache
def _openblas() -> tuple[Any, ...]:
    """Return the OpenBLAS libraries loaded in this process that can limit their threads.

    numpy's and scipy's wheels each bundle one. Found by path in the process's
    memory map (Linux); elsewhere, or with another BLAS, none.
    """
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return ()
    libraries = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(library, "openblas_set_num_threads_local"):
            libraries.append(library)
    return tuple(libraries)


@contextmanager
def _serial_blas() -> Iterator[None]:
    """Run BLAS and LAPACK on this thread alone while inside.

    The dense systems here are a few hundred wide: one thread factorises one
    in tens of milliseconds, while OpenBLAS's worker threads, each waiting for
    the others at every block step, took from 0.1 to 6 seconds for the same
    factorisation on a busy two-core machine. The limit is OpenBLAS's
    per-thread one (0.3.27 and later), so other threads are unaffected.
    """
    libraries = _openblas()
    previous = [library.openblas_set_num_threads_local(1) for library in libraries]
    try:
        yield
    finally:
        for library, threads in zip(libraries, previous, strict=True):
            library.openblas_set_num_threads_local(threads)
