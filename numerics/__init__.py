"""Numeric side of infonce-bounds: numba kernels, certified evaluation, experiments, the CLI."""

__all__: list[str] = []

# --- kernel API (numerics.api), imported lazily so that `import numerics` does not load numba ------
_KERNEL_API = (
    "infonce_loss",
    "infonce_risk",
    "risk",
    "Risk",
    "similarities",
    "softmax_weights",
    "search_kernel",
    "search_cross_entropy",
    "log_mean_exp",
    "data_continuity_factor",
    "data_continuity_factor_segment",
    "infonce_gradient",
    "Gradient",
    "infonce_loss_pooled",
    "softmax_weights_pooled",
    "infonce_gradient_pooled",
    "infonce_loss_in_batch",
    "infonce_gradient_in_batch",
    "b_tau",
    "BTau",
    "prop4_bound",
    "Prop4Bound",
)
__all__ += list(_KERNEL_API)


def __getattr__(name):  # PEP 562: numerics.infonce_loss → numerics.api.infonce_loss on first use
    if name in _KERNEL_API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'infonce_bounds.numerics' has no attribute {name!r}")
