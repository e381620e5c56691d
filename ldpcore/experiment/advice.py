"""Moved to ldpcore.experiment.protocol.advice: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.advice import impractical

__all__ = ["impractical"]
