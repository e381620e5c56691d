"""Moved to ldpcore.experiment.protocol.spec: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, default_delta, plan

__all__ = ["Plan", "ProtocolSpec", "default_delta", "plan"]
