"""Shared fixtures: a seeded generator per test (no global seed), mpmath precision."""

from __future__ import annotations

import zlib

from infonce_bounds.numerics._env import apply_cli_defaults

# the same settings as the CLI, before numpy and numba load: passive OpenMP waits, OpenBLAS workers
# that sleep, and a numba cache keyed on the kernel sources (so an edited helper never runs stale)
apply_cli_defaults()

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded from the test's name: reproducible, independent across tests."""
    seed = zlib.crc32(request.node.nodeid.encode())  # stable across processes, unlike hash()
    return np.random.default_rng(seed)


@pytest.fixture
def mp50():
    """50-digit mpmath precision for the duration of one test."""
    with mpmath.workdps(50):
        yield
