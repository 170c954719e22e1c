"""A dependency-free progress bar on stderr, shown only on a terminal (never in logs or tests)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, enabled: bool = True, stream=None):
        self.total, self.label, self.n = max(total, 1), label, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = time.perf_counter()

    def update(self, k: int = 1, what: str = "") -> None:
        self.n += k
        if not self.enabled:
            return
        frac = self.n / self.total
        bar = "#" * int(30 * frac)
        el = time.perf_counter() - self.t0
        eta = el / frac - el if frac > 0 else 0.0
        self.stream.write(
            f"\r{self.label} [{bar:<30}] {self.n}/{self.total} {el:5.0f}s eta {eta:4.0f}s {what[:40]:<40}"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
