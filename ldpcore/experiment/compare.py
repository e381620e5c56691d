"""Moved to ldpcore.experiment.protocol.compare: this path re-exports it while the rest of the code base still
imports it here (to be removed once nothing does)."""

from ldpcore.experiment.protocol.compare import cell_on_notion, cells_on_notion, neighbourings

__all__ = ["cell_on_notion", "cells_on_notion", "neighbourings"]
