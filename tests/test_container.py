"""The container recipe: the Dockerfile's entry command serves the dashboard and its HEALTHCHECK passes.

No container engine runs here, so the test runs what the image would run: the ENTRYPOINT and CMD (JSON form)
in a folder laid out as the Dockerfile's COPY instructions lay out its WORKDIR, on a free loopback port, and
the HEALTHCHECK's command against it; Streamlit's script health check then runs app.py there (the default
page), so a folder the recipe forgets to copy fails the test."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

DOCKERFILE = ROOT / "Dockerfile"
PORT = "8501"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined and comments dropped."""
    lines = [line for line in DOCKERFILE.read_text().splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    steps = [line.split(None, 1) for line in joined.splitlines() if line.strip()]
    return [(step[0], step[1] if len(step) > 1 else "") for step in steps]


def last(name: str) -> str:
    found = [args for key, args in instructions() if key.upper() == name]
    assert found, f"the Dockerfile has no {name}"
    return found[-1]


def entry_command() -> list[str]:
    return json.loads(last("ENTRYPOINT")) + json.loads(last("CMD"))


def health_command() -> list[str]:
    options, command = last("HEALTHCHECK").split("CMD", 1)
    assert "--interval" in options and "--timeout" in options
    return json.loads(command)


def local(command: list[str], port: int) -> list[str]:
    """The command as run here: this interpreter, the free port, loopback only."""
    out = [sys.executable if command[0] == "python" else command[0]]
    return out + [a.replace(PORT, str(port)).replace("0.0.0.0", "127.0.0.1") for a in command[1:]]


def test_the_recipe_installs_the_pins_and_serves_the_network_as_a_user():
    steps = instructions()
    assert steps[0][0] == "FROM" and re.fullmatch(r"python:3\.\d+-slim(-\w+)?", steps[0][1])
    runs = " ".join(args for key, args in steps if key == "RUN")
    assert "pip install -r requirements.txt" in runs and "pip install --no-deps ." in runs
    assert last("USER") not in ("root", "0") and last("EXPOSE") == PORT
    command = entry_command()
    assert command[:4] == ["python", "-m", "streamlit", "run"] and "app.py" in command
    assert "--server.address=0.0.0.0" in command and f"--server.port={PORT}" in command
    assert f"127.0.0.1:{PORT}/_stcore/health" in " ".join(health_command())
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {"tests", "benchmarks", ".git"} <= set(ignored)


def image_tree(dest: Path) -> Path:
    """The WORKDIR as the COPY instructions fill it from the checkout (a folder source: its contents)."""
    workdir = dest / last("WORKDIR").lstrip("/")
    for key, args in instructions():
        if key != "COPY":
            continue
        *sources, target = args.split()
        assert not any(s.startswith("--") for s in sources), "the test reads plain COPY src... dest only"
        for source in sources:
            origin = ROOT / source
            if origin.is_dir():
                shutil.copytree(origin, workdir / target, dirs_exist_ok=True)
            else:
                into = workdir / target / origin.name if target.endswith("/") else workdir / target
                into.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(origin, into)
    return workdir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_entry_command_serves_and_the_healthcheck_passes(tmp_path):
    port = free_port()
    check = local(health_command(), port)
    assert subprocess.run(check, capture_output=True, timeout=30).returncode != 0  # nothing serves yet
    workdir = image_tree(tmp_path / "image")
    assert (workdir / "app.py").is_file() and (workdir / "ldpcore" / "__init__.py").is_file()
    log = open(tmp_path / "server.log", "wb")
    command = [*local(entry_command(), port), "--server.scriptHealthCheckEnabled=true"]
    server = subprocess.Popen(command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            if subprocess.run(check, capture_output=True, timeout=30).returncode == 0:
                break
            assert server.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
            if time.monotonic() > deadline:
                pytest.fail("no healthy answer within 120 s:\n" + (tmp_path / "server.log").read_text()[-2000:])
            time.sleep(0.5)
        # app.py with its navigation and the default page, run by the server in the image's folder
        script = urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/script-health-check", timeout=300)
        assert script.status == 200 and script.read() == b"ok"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
    assert f":{port}" in (tmp_path / "server.log").read_text()  # the address Streamlit printed
