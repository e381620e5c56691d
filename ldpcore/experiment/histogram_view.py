"""Moved to ldpcore.experiment.protocol.histogram_view: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.histogram_view import bin_std, ranked

__all__ = ["bin_std", "ranked"]
