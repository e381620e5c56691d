"""Serving a class: N sessions stepping through one server, measured at the server without browsers.

Each session is a websocket client speaking Streamlit's own protocol (the BackMsg / ForwardMsg protobufs the
browser exchanges with /_stcore/stream): it opens the page, then changes eps_c on Reconstruct again and again,
each time to a value nobody asked for before (no session is served another's result from the cache), after a
think time drawn from an exponential law (seeded; --think 0: back to back). A step's latency is the time from
sending the change to the server's "script finished" message: the server's whole part of a step (script,
simulation, images, protobufs, the socket), without the browser's drawing. The server's CPU per step is the
server process's CPU seconds (/proc, all its threads) over the steps, divided by their number.

For each N (--sessions), on one server process (or --processes servers, the sessions dealt round-robin as a
proxy with sticky sessions would), rows of the latency median (90th percentile, maximum and steps per second as
notes; goals: benchmarks/goals.toml) and of the server CPU per step; with --markdown, the same as a table for
README's "Serving a class" after the rows.
Usage: python benchmarks/bench_class.py [--sessions 8 16 30] [--steps 6] [--think 3] [--dataset horse]
       [--processes 1] [--markdown] [--json]
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, Bench  # first: it puts the repository on sys.path

sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import streamlit_server  # noqa: E402

ROWS = ("step", "server-cpu")

PAGE, KEY = "reconstruct", "eps_c"  # the step: Reconstruct's eps_c box (a number input)
TIMEOUT = 600.0  # s: a step's answer, however loaded the server


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far, all its threads (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Session:
    """One browser tab's conversation with the server: reruns with a query string and widget values."""

    def __init__(self, url: str, query: str):
        self.url, self.query = url, query
        self.ws: Any = None  # the websocket, once entered
        self.widgets: dict[str, str] = {}  # widget key -> its id

    async def __aenter__(self) -> Session:
        import websockets
        from websockets.typing import Origin, Subprotocol

        stream = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self.ws = await websockets.connect(
            stream, subprotocols=[Subprotocol("streamlit")], origin=Origin(self.url), max_size=None
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def rerun(self, values: dict[str, float] | None = None) -> float:
        """Seconds from asking for a rerun (with these widget values, by key) to the script's end."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        back = BackMsg()
        back.rerun_script.query_string, back.rerun_script.page_name = self.query, PAGE
        for key, value in (values or {}).items():
            back.rerun_script.widget_states.widgets.append(WidgetState(id=self.widgets[key], double_value=value))
        start = time.perf_counter()
        await self.ws.send(back.SerializeToString())
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                widget_id = getattr(getattr(element, element.WhichOneof("type") or "", None), "id", "")
                if widget_id.startswith("$$ID-"):
                    self.widgets[widget_id.rsplit("-", 1)[1]] = widget_id  # key -> the widget's id
            elif kind == "script_finished":
                return time.perf_counter() - start


async def student(url: str, query: str, index: int, steps: int, think: float, ready, go, out: list) -> None:
    """Open the page, wait for the class, then take `steps` eps_c steps to values no one else asks for."""
    rng = np.random.default_rng(index)
    async with Session(url, query) as s:
        await s.rerun()
        ready.release()
        await go.wait()
        for i in range(steps):
            if think:
                await asyncio.sleep(rng.exponential(think))
            out.append(await s.rerun({KEY: round(0.2 + 0.0007 * (index * steps + i + 1), 6)}))  # index: unique


async def lesson(
    urls: list[str], pids: list[int], query: str, sessions: int, steps: int, think: float, first: int
) -> dict:
    ready, go = asyncio.Semaphore(0), asyncio.Event()
    latencies: list[float] = []
    tasks = [  # numbered after the earlier lessons' sessions: their eps_c values are new to the server too
        asyncio.create_task(student(urls[i % len(urls)], query, first + i, steps, think, ready, go, latencies))
        for i in range(sessions)
    ]
    for _ in range(sessions):  # every first view done (the data loaded, the page's modules warm)
        await ready.acquire()
    cpu, start = sum(cpu_seconds(p) for p in pids), time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    wall, cpu = time.perf_counter() - start, sum(cpu_seconds(p) for p in pids) - cpu
    q = np.quantile(latencies, [0.5, 0.9])
    return {
        "sessions": sessions,
        "steps": len(latencies),
        "median": float(q[0]),
        "p90": float(q[1]),
        "max": max(latencies),
        "cpu_per_step": cpu / len(latencies),
        "steps_per_s": len(latencies) / wall,
    }


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__)
    parser = bench.parser
    parser.add_argument("--sessions", type=int, nargs="*", default=[8, 16, 30])
    parser.add_argument("--steps", type=int, default=6, help="eps_c steps per session")
    parser.add_argument("--think", type=float, default=3.0, help="mean seconds between a session's steps (0: none)")
    parser.add_argument("--dataset", default="horse")
    parser.add_argument("--processes", type=int, default=1, help="servers, the sessions dealt round-robin")
    parser.add_argument("--markdown", action="store_true")
    args = bench.parse()
    query = f"dataset={args.dataset}"
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(streamlit_server()) for _ in range(args.processes)]
        urls, pids = [u for u, _ in servers], [p.pid for _, p in servers]
        bench.note(
            f"{args.processes} server process(es), Reconstruct {args.dataset}: {args.steps} eps_c steps per session, "
            f"think time exponential, mean {args.think:g} s"
        )
        rows = []
        for k, n in enumerate(args.sessions):
            row = asyncio.run(lesson(urls, pids, query, n, args.steps, args.think, sum(args.sessions[:k])))
            rows.append(row)
            notes = {"p90": row["p90"], "max": row["max"], "steps/s": row["steps_per_s"]}
            bench.record("step", f"{n} sessions: a step", row["median"], repeats=row["steps"], notes=notes)
            bench.record("server-cpu", f"{n} sessions: server CPU per step", row["cpu_per_step"], unit="s")
    status = bench.finish()
    if args.markdown and not args.json:
        print("\n| sessions | steps | median (s) | 90th percentile (s) | max (s) | server CPU per step (s) |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['sessions']} | {r['steps']} | {r['median']:.2f} | {r['p90']:.2f} | {r['max']:.2f} "
                f"| {r['cpu_per_step']:.3f} |"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
