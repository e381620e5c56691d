"""The dashboard's Streamlit layer, organised by page: `ui.kit` holds what several pages share (URL-bound
controls, the data and protocol sidebars, the shared caches and runs, the error helper, formatting, axes and
colours, chart export), and one module per page (`ui.reconstruct`, `ui.tradeoffs`, `ui.plan`, `ui.adversary`,
...) holds that page's cached calls and figures. The page scripts are in app_pages/, listed in ui/registry.py.

No privacy or estimation logic lives here; everything is computed by ldpcore.
"""

import ctypes


def _release_freed_memory() -> None:
    """Have glibc give freed arrays back to the system (the server's memory then follows its caches):
    every allocation of 1 MB or more gets its own pages, returned when freed (by default the threshold
    grows to 32 MB, so freed arrays of a few MB stay in the heap), in at most two malloc arenas (else
    each session's script thread may keep one of its own). Other C libraries are left as they are."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


_release_freed_memory()
