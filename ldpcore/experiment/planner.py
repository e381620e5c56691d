"""Moved to ldpcore.experiment.planning: this path re-exports its public names while the rest of the code base
still imports them here (to be removed once nothing does)."""

from ldpcore.experiment.planning import *  # noqa: F403
from ldpcore.experiment.planning import __all__  # noqa: F401
