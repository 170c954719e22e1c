"""Proof routes tried after the symbolic and interval stages: one registry, in order, each in its own module.

``ROUTES`` maps a name to a ``Route``: ``applies(step)`` says whether the claim has the shape the route
handles, ``prove(step, strict, opts)`` returns an outcome with ``proved``, ``method``, ``reduction`` and
``covered`` (or None: not applicable). A route never refutes (only ``refute.confirm`` does) and decides every
sign with Arb or exact arithmetic. ``prove_by_routes`` runs the applicable routes under the claim's clock and
returns the first proof, with the route's name, its reduction (the argument a reader can follow) and what it
covers.

* ``sums`` (``checks/sums.py``): claims with a sum, mean or product over ``j = 1..k`` for every ``k``;
* ``lattice`` (``checks/minmax.py``): ``small ≤ big`` with Min/Max/Abs, by lattice normal forms and leaf
  inequalities on the box, cut at exact breakpoints where no uniform choice holds;
* ``unbounded`` (``checks/unbounded.py``): a range with an infinite end (proved tails, a bounded middle);
* ``touching`` (``checks/touching.py``): ``gap ≥ 0`` with ``gap = 0`` at isolated points or along a line;
* ``termwise`` (``checks/termwise.py``): ``a_1 + … + a_n ≤ b_1 + … + b_n`` from ``a_i ≤ b_σ(i)``, the terms
  matched by their key symbols, each pair proved by the engine;
* ``touching curve`` (``checks/touching_curve.py``): ``gap ≥ 0`` in 2–3 variables with ``gap = 0`` on a
  closed-form curve or a face of the box (Taylor from the zero set, the chord of a concave section);
* ``taylor`` (``checks/taylor.py``): ``gap ≥ 0`` with ``gap`` vanishing to second order along ``x = x₀`` (two
  of its variables, any number of others, an unbounded integer among them): Taylor with integral remainder in
  ``x``, a case split on the sign of ``x − x₀`` (|·|, max, min), the sign of one derivative proved by the engine.

Adding a route: a module with an entry point of that shape and its own test file (a planted false claim it
must not prove), and one entry below.

``HINTED`` lists the routes a step names itself, with its parameters as data (``Step.route = (name,
params)``; ``check_step`` dispatches on it): their claim shapes need parameters no claim carries (the path of
a mean value, the end a gap grows from). Each module's docstring states the claim shape, the domain and how
every sign is certified; ``prove(step, params, opts)`` returns the step's ``StepResult`` (a refutation only
through ``refute.confirm`` or the falsifier's gate), and a malformed hint raises ``DerivationError`` naming
the parameter.

* ``mean value`` (``checks/mean_value.py``): ``lhs = rhs`` as "(G(b) − G(a))/(b − a) = G'(a + c(b − a)) for
  some c ∈ [0, 1]", or ``|G(b) − G(a)| ≤ L·|b − a|`` from ``|G'| ≤ L`` on the segment (Arb);
* ``monotone`` (``checks/monotone.py``): ``gap ≥ 0`` from ``gap(end) = 0`` and the sign of ``gap'``;
* ``certificate`` (``checks/certificate.py``): ``gap ≥ 0`` from ``gap = certificate`` (symbolic) and the
  certificate's sign (SymPy's deduction or Arb branch and bound), a factored form without the gap's cancellation;
* ``lattice`` (``checks/minmax.py``): an identity with Min/Max/Abs as two inequalities of the ``lattice``
  route above (the identity checker has no routes), after the claim's own checker;
* ``taylor`` (``checks/taylor.py``): the route ``taylor`` above as a hint, before the symbolic stage, with the
  falsifier beside it (a scalar claim of route ``expectation`` names it with ``scalar_route``);
* ``power series`` (``checks/power_series.py``): ``gap ≥ 0`` for ``var > 0`` from ``gap·F = G`` (symbolic), F a
  series of positive terms and G one of nonnegative terms (each term signed by SymPy's deduction);
* ``expectation`` (``checks/expectation.py``): claims about expectations over i.i.d. draws, by monotonicity of
  expectation (a pointwise inequality proved by the engine), Jensen (φ'' signed by the engine) or linearity and
  the i.i.d. moment identities (symbolic), and the classical rules of ``checks/expectation_rules.py``
  (Cauchy–Schwarz, Lyapunov, mean value, ratio, abs, leave-one-out), with an exact-law attack beside;
* ``configuration`` (``checks/configuration.py``): claims over every embedding configuration (every d, k and
  set of vectors with norm hypotheses) by the triangle inequality, Cauchy–Schwarz, bilinear identities and the
  convex-combination rule applied to exact instances, then a scalar claim the engine proves; existence by an
  exact witness configuration; with the configuration attack beside;
* ``integral bound`` (``checks/integral_bound.py``): ``∫_lo^hi f dt ≤ rhs`` by Cauchy–Schwarz (or directly), an
  antiderivative proved by differentiation (a one-sided limit at an end) and a scalar inequality for the
  engine or a cited lemma;
* ``rademacher affine`` (``checks/rademacher_affine.py``): ``R̂(s·F + c) = s·R̂(F)``: the map affine in the
  function's value with constant scale and shift (symbolic), ``E σ c = 0`` (exact), ``s ≥ 0`` (the engine);
* ``classical theorem`` (``checks/classical_theorem.py``): an instance of a theorem of the literature
  (``THEOREMS``, e.g. Maurer's vector contraction), the glue and its conditions proved by the engine, its
  hypotheses discharged, labelled *cited* with the reference; a numeric attack (code) beside it;
* ``conjunction`` (``checks/conjunction.py``): ``small ≤ big`` from parts (claims as data, each checked by the
  engine, keyed by content so a part is proved once per run) and the implication parts ⟹ claim, itself checked;
* ``monotone comparison`` (``checks/monotone_comparison.py``): ``gap ≥ 0`` from ``gap = w·(G(p) − G(q))``
  (symbolic), ``w ≥ 0`` and the order of p, q (the engine), G monotone on their range by the sign of G' or of
  ∂_v h in an integral form G = ∫ h dt proved by an antiderivative (a removable 0/0 of G's closed form allowed);
* ``mean value composition`` (``checks/mean_value_composition.py``): ``|F(b) − F(a)| ≤ R`` from a proved
  ``F(b) − F(a) = ∫₀¹ g dt`` and a proved pointwise bound on ``g`` over a domain the segment stays in (convexity);
* ``quadrature`` (``checks/quadrature.py``): ``lhs = ∫ f dt`` attacked by 30-digit quadrature, refuted only
  where the gate's Arb enclosures (``acb.integral``) are disjoint; never proved;
* ``attack only`` (``checks/custom.py``): the box falsifier alone, with the ``reason`` no stage can settle the
  claim (its sides meet along a curve or on a region); never proved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..ledger import Step, free_names
from .sampling import _sides


@dataclass(frozen=True)
class Route:
    name: str
    applies: Callable[[Step], bool]
    prove: Callable[[Step, bool, Mapping[str, Any]], Any]


def _has_sums(step: Step) -> bool:
    return any(sp.sympify(e).has(sp.Sum, sp.Product, sp.Indexed) for e in (step.lhs, step.rhs))


def _integer_unbounded(step: Step) -> bool:
    """An integer symbol of the claim with an infinite end (``k ≥ 1``, every k): the sums route's relaxations."""
    names = free_names(step.lhs) | free_names(step.rhs)
    return any(
        sym in names and sym.is_integer and not (sp.sympify(lo).is_finite and sp.sympify(hi).is_finite)
        for sym, (lo, hi) in step.domain.ranges.items()
    )


def _unbounded(step: Step) -> bool:
    names = free_names(step.lhs) | free_names(step.rhs)
    for sym, (lo, hi) in step.domain.ranges.items():
        if sym in names and not (sp.sympify(lo).is_finite and sp.sympify(hi).is_finite):
            return True
    return False


def _gap(step: Step) -> sp.Expr:
    small, big, _ = _sides(step)
    return sp.sympify(big) - sp.sympify(small)


def _sums(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .sums import prove_sums

    return prove_sums(step, opts)


def _unbounded_route(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .unbounded import prove_unbounded

    return prove_unbounded(_gap(step), step.domain, strict, opts)


def _minmax(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .minmax import prove_lattice

    small, big, _ = _sides(step)
    return prove_lattice(small, big, step.domain, strict, opts)


def _has_minmax(step: Step) -> bool:
    return any(sp.sympify(e).has(sp.Min, sp.Max, sp.Abs) for e in (step.lhs, step.rhs))


def _touching(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .touching import prove_touching

    return prove_touching(_gap(step), step.domain, strict, opts)


def _touching_curve(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .touching_curve import prove_touching_curve

    return prove_touching_curve(_gap(step), step.domain, strict, opts)


def _taylor_applies(step: Step) -> bool:
    from .taylor import applies

    return not _has_sums(step) and applies(_gap(step), step.domain)


def _taylor(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .taylor import prove_taylor

    return prove_taylor(_gap(step), step.domain, strict, opts)


def _two_or_three(step: Step) -> bool:
    return 2 <= len(free_names(_gap(step))) <= 3


def _termwise(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    from .termwise import prove_termwise

    return prove_termwise(step, strict, opts)


def _termwise_applies(step: Step) -> bool:
    from .termwise import applies

    return applies(step)


ROUTES: dict[str, Route] = {
    # first: it applies only where the gap vanishes along x = x₀ exactly, and its derivative claims are capped
    "taylor": Route("taylor", _taylor_applies, _taylor),
    "sums": Route("sums", lambda s: _has_sums(s) or _integer_unbounded(s), _sums),
    "lattice": Route("lattice", lambda s: not _has_sums(s) and _has_minmax(s), _minmax),
    "unbounded": Route("unbounded", lambda s: not _has_sums(s) and _unbounded(s), _unbounded_route),
    "touching": Route("touching", lambda s: not _has_sums(s) and not _unbounded(s), _touching),
    "touching curve": Route(
        "touching curve", lambda s: not _has_sums(s) and not _unbounded(s) and _two_or_three(s), _touching_curve
    ),
    "termwise": Route("termwise", _termwise_applies, _termwise),
}


@dataclass(frozen=True)
class RouteProof:
    route: str
    method: str
    reduction: str
    covered: dict[str, tuple[str, str]]


def prove_by_routes(step: Step, strict: bool, opts: Mapping[str, Any], run: Callable[..., Any]) -> tuple[Any, list]:
    """The first route that proves ``step`` (a ``RouteProof``) or None, and notes on the routes that did not.

    ``run(stage, fn, *args)`` runs one route under the claim's budget (``inequality.check_inequality``'s
    ``symbolic`` helper); a route that runs out or raises is a note, never a verdict."""
    notes: list[str] = []
    for route in ROUTES.values():
        try:
            if not route.applies(step):
                continue
        except Exception as exc:  # noqa: BLE001 - a shape the test cannot read: the route does not apply
            notes.append(f"{route.name}: shape not read ({exc.__class__.__name__})")
            continue
        try:
            out = run(f"route {route.name}", route.prove, step, strict, opts)
        except Exception as exc:  # noqa: BLE001 - a failing route proves nothing; the others still run
            notes.append(f"{route.name}: {exc.__class__.__name__}: {str(exc)[:120]}")
            continue
        if out is None or getattr(out, "stage", None) or not getattr(out, "proved", False):
            if out is not None and getattr(out, "method", ""):
                notes.append(f"{route.name}: no proof ({str(out.method)[:160]})")
            continue
        covered = dict(out.covered or {})
        in_gap = {str(s_) for s_ in free_names(_gap(step))}
        for name in sorted(str(s_) for s_ in free_names(step.lhs) | free_names(step.rhs)):
            if name not in in_gap:  # a symbol the gap cancelled: the proof holds for any value of it
                covered.setdefault(name, ("-oo", "oo"))
        return RouteProof(route.name, str(out.method), str(out.reduction), covered), notes
    return None, notes


@dataclass(frozen=True)
class HintedRoute:
    name: str
    #: the parameter names a hint must give, and those it may give
    required: tuple[str, ...]
    optional: tuple[str, ...]
    prove: Callable[[Step, Mapping[str, Any], Mapping[str, Any]], Any]
    #: the parameters that may be code: the numeric attack on what SymPy cannot state (a law search over
    #: every finite law of the draws), never the proof; the run cache keys them by their bytecode
    code: tuple[str, ...] = ()


def _mean_value(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .mean_value import prove_mean_value

    return prove_mean_value(step, params, opts)


def _monotone(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .monotone import prove_monotone

    return prove_monotone(step, params, opts)


def _certificate(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .certificate import prove_certificate

    return prove_certificate(step, params, opts)


def _minmax_hinted(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .minmax import prove_minmax

    return prove_minmax(step, params, opts)


def _integral_bound(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .integral_bound import prove_integral_bound

    return prove_integral_bound(step, params, opts)


def _rademacher_affine(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .rademacher_affine import prove_rademacher_affine

    return prove_rademacher_affine(step, params, opts)


def _classical(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .classical_theorem import prove_classical

    return prove_classical(step, params, opts)


def _power_series(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .power_series import prove_power_series

    return prove_power_series(step, params, opts)


def _expectation(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from . import expectation_rules  # noqa: F401 - registers the classical rules with the route
    from .expectation import prove_expectation

    return prove_expectation(step, params, opts)


def _configuration(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .configuration import prove_configuration

    return prove_configuration(step, params, opts)


def _conjunction(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .conjunction import prove_conjunction

    return prove_conjunction(step, params, opts)


def _mean_value_composition(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .mean_value_composition import prove_mean_value_composition

    return prove_mean_value_composition(step, params, opts)


def _taylor_hinted(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .taylor import prove_taylor_hinted

    return prove_taylor_hinted(step, params, opts)


def _attack_only(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .custom import prove_attack_only

    return prove_attack_only(step, params, opts)


def _monotone_comparison(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .monotone_comparison import prove_monotone_comparison

    return prove_monotone_comparison(step, params, opts)


def _integral_enclosure(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .monotone_comparison import prove_integral_enclosure

    return prove_integral_enclosure(step, params, opts)


def _quadrature(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from .quadrature import prove_quadrature

    return prove_quadrature(step, params, opts)


HINTED: dict[str, HintedRoute] = {
    "mean value": HintedRoute(
        "mean value", ("path", "var"), ("point", "bound", "start", "end", "points", "pieces"), _mean_value
    ),
    "monotone": HintedRoute("monotone", ("end", "derivative", "var"), ("side",), _monotone),
    "certificate": HintedRoute("certificate", ("certificate",), ("reduction",), _certificate),
    "quadrature": HintedRoute("quadrature", (), ("points", "floor", "antiderivative", "reduction"), _quadrature),
    "attack only": HintedRoute("attack only", ("reason",), (), _attack_only),
    "lattice": HintedRoute("lattice", (), (), _minmax_hinted),
    "classical theorem": HintedRoute(
        "classical theorem", ("theorem", "with"), ("discharge", "attack"), _classical, code=("attack",)
    ),
    "rademacher affine": HintedRoute(
        "rademacher affine", ("complexity", "value", "map"), ("per_point", "points"), _rademacher_affine
    ),
    "integral bound": HintedRoute(
        "integral bound", ("rule", "antiderivative"), ("uses", "with", "points"), _integral_bound
    ),
    "conjunction": HintedRoute(
        "conjunction", ("parts",), ("reason", "multipliers", "subs", "implication"), _conjunction
    ),
    "mean value composition": HintedRoute(
        "mean value composition",
        ("var", "integral", "pointwise", "at"),
        ("reason", "attack"),
        _mean_value_composition,
        code=("attack",),
    ),
    "power series": HintedRoute("power series", ("series", "var"), ("factor",), _power_series),
    "monotone comparison": HintedRoute(
        "monotone comparison",
        ("G", "weight", "p", "q", "direction"),
        ("integral", "antiderivative", "removable", "name"),
        _monotone_comparison,
    ),
    "taylor": HintedRoute("taylor", (), ("x", "x0"), _taylor_hinted),
    "integral enclosure": HintedRoute(
        "integral enclosure",
        ("G", "integral", "antiderivative"),
        ("removable", "direction", "name", "mode", "then", "pieces"),
        _integral_enclosure,
    ),
    "expectation": HintedRoute(
        "expectation",
        ("rule",),
        ("defs", "facts", "bounds", "integrand", "remainder", "phi", "inner", "shape", "draws", "attack")
        + ("pointwise_route", "scalar_route", "remainder_route")
        + ("x", "y", "p", "q", "f", "L", "u", "v", "then"),  # the classical rules (checks/expectation_rules.py)
        _expectation,
        code=("attack",),
    ),
    "configuration": HintedRoute(
        "configuration",
        (),
        ("rule", "vectors", "claim", "realise", "at", "scalars", "split", "witness", "quantity", "attack"),
        _configuration,
        code=("attack",),
    ),
}


def prove_hinted(step: Step, opts: Mapping[str, Any]) -> Any:
    """The verdict of the route ``step.route`` names, with its parameters (``HINTED``)."""
    from ..ledger import DerivationError

    name, params = step.route
    route = HINTED.get(name)
    if route is None:
        raise DerivationError(f"step {step.name!r}: route {name!r} is not one of {sorted(HINTED)}")
    missing = [p for p in route.required if p not in params]
    unknown = sorted(set(params) - set(route.required) - set(route.optional))
    if missing or unknown:
        raise DerivationError(
            f"step {step.name!r}: route {name!r} needs parameters {list(route.required)} (optional "
            f"{list(route.optional)}); missing {missing}, unknown {unknown}"
        )
    return route.prove(step, params, opts)
