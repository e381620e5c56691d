"""Work that nobody waits for stops (issue 24 item 6), in a real server and Chromium: a session that starts the
Trade-offs sweep on Map with the count-min sketch (cells of minutes each) and leaves stops using the server's CPU
within 5 s; a view opened a second time is served from the caches (a fraction of the first's CPU)."""

import os
import time
from pathlib import Path

import pytest
from e2e_support import assert_no_error, needs_browser, streamlit_server, wait_idle

pytestmark = [pytest.mark.browser, needs_browser()]

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) the process has used so far, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def cores_used(pid: int, seconds: float) -> float:
    start = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - start) / seconds


@pytest.fixture(scope="module")
def server():
    with streamlit_server(timeout=180) as (url, proc):
        yield url, proc.pid


def test_a_session_that_leaves_a_map_sweep_stops_its_work_within_5_s(server, browser):
    url, pid = server
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/tradeoffs?dataset=map&encoding=cms&sweep_points=25", timeout=180_000)
    page.get_by_text("Measuring the points").first.wait_for(timeout=300_000)  # the sweep's cells are running
    time.sleep(5)
    assert cores_used(pid, 3.0) > 0.1  # the server is computing them (on a busy machine it gets less than a core)
    context.close()  # the tab is closed: the websocket goes, Streamlit asks the session's script to stop
    time.sleep(5)
    assert cores_used(pid, 3.0) < 0.1  # nothing runs for the session that left


def test_the_same_view_a_second_time_is_served_from_the_caches(server, browser):
    url, pid = server
    view = f"{url}/tradeoffs?dataset=child&max_side=64&sweep_points=4&seed=5"
    used = []
    for _ in range(2):
        page = browser.new_page()
        start = cpu_seconds(pid)
        page.goto(view, timeout=180_000)
        wait_idle(page, timeout=300_000)
        assert_no_error(page)
        used.append(cpu_seconds(pid) - start)
        page.close()
    assert used[1] < 0.5 * used[0], used  # the second view runs none of the sweep's cells
