"""The catalogue as the engine's library of cited claims (``checks.library.Library``).

``CatalogueLibrary`` resolves a chain's citations against the catalogue, answers a cited step from the run
cache (its content key: ``keys.step_key``, upstream included), keys parts by content and shares them
across the workers of one ``verify`` (``keys.run_memo_load`` / ``run_memo_store``). It is the package's
``DEFAULT_LIBRARY`` (installed by ``checks.library.current()`` on first use) and ``install_default`` installs
it again before every run (a test may have installed another); the engine itself imports neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..checks import library
from ..ledger import Derivation, DerivationError, Step, StepResult
from .cache import load


class CatalogueLibrary:
    """Citations resolve against the catalogue; cached verdicts come from the run cache."""

    def __init__(self) -> None:
        #: keys of derivations' steps while one chain is checked: (name, trials, seed) → (Derivation, keys)
        self._keys: dict[tuple, tuple[Derivation, list[str]]] = {}

    def derivation(self, name: str) -> Derivation:
        from .. import catalogue

        return catalogue.get(name)

    def _keys_of(self, der: Derivation, opts: Mapping[str, Any]) -> list[str]:
        """The run-cache keys of ``der``'s steps; memoised only while one (outermost) chain is checked, so an
        edited catalogue is never answered with the keys of its previous contents."""
        from . import keys as step_keys

        memo_key = (der.name, opts.get("trials"), opts.get("seed"))
        hit = self._keys.get(memo_key)
        if hit is None or hit[0] is not der:
            key_opts = {"trials": opts["trials"], "seed": opts["seed"]}
            # the running verify computed them before this worker forked: the same keys, without the cost
            keys = step_keys.run_keys(der, key_opts) or step_keys._derivation_keys([der], key_opts)[der.name]
            hit = self._keys[memo_key] = (der, keys)
        return hit[1]

    def cached(self, der: Derivation, step: Step, opts: Mapping[str, Any]) -> StepResult | None:
        from . import keys as step_keys

        keys = self._keys_of(der, opts)
        hit = load(keys[[s.name for s in der.steps].index(step.name)])
        return step_keys.result_from_dict(hit) if hit is not None else None

    def key(self, step: Step, opts: Mapping[str, Any]) -> str | None:
        from . import keys as step_keys

        return step_keys.step_key(step, opts)

    def memo_load(self, key: str) -> StepResult | None:
        from . import keys as step_keys

        hit = step_keys.run_memo_load(key)
        return step_keys.result_from_dict(hit) if hit is not None else None

    def memo_store(self, key: str, result: StepResult) -> None:
        from . import keys as step_keys

        step_keys.run_memo_store(key, result.as_dict())

    def begin(self, step: Step, opts: Mapping[str, Any]) -> None:
        """The keys of every derivation ``step``'s links cite, in one computation (their upstreams overlap)."""
        from . import keys as step_keys

        self._keys.clear()
        key_opts = {"trials": opts["trials"], "seed": opts["seed"]}
        try:
            ders = {}
            for link in step.links:
                if link.cite and link.cited[0] not in ders:
                    try:
                        ders[link.cited[0]] = self.derivation(link.cited[0])
                    except DerivationError:  # the link is refuted as a missing citation later
                        continue
            known = {name: step_keys.run_keys(der, key_opts) for name, der in ders.items()}
            missing = [der for name, der in ders.items() if known[name] is None]
            keys = {**known, **(step_keys._derivation_keys(missing, key_opts) if missing else {})}
        except Exception:  # noqa: BLE001 - the cache is an optimisation: each link then computes its own keys
            return
        for name, der in ders.items():
            self._keys[(name, opts.get("trials"), opts.get("seed"))] = (der, keys[name])

    def end(self) -> None:
        self._keys.clear()


def install_default() -> None:
    """Install a ``CatalogueLibrary`` unless one is installed already (idempotent)."""
    if not isinstance(library.current(), CatalogueLibrary):
        library.install(CatalogueLibrary())
