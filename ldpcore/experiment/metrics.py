"""Moved to ldpcore.experiment.protocol.metrics: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.metrics import analytic_rmse, clip_estimate, error_metrics

__all__ = ["analytic_rmse", "clip_estimate", "error_metrics"]
