"""Moved to ldpcore.experiment.protocol.local_only: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.local_only import local_only_oracle, without_shuffler

__all__ = ["local_only_oracle", "without_shuffler"]
