"""Numeric side of infonce-bounds: numba kernels, certified evaluation, experiments, the CLI."""

__all__: list[str] = []
