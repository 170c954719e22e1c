"""Shared fixtures: a seeded generator per test (no global seed), mpmath precision."""

from __future__ import annotations

import zlib

import mpmath
import numpy as np
import pytest


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
