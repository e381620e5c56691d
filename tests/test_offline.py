"""The dashboard stays on this machine: started as the README starts it (`python -m streamlit run app.py`,
here on a free port), the server listens on localhost only, prints no Network or External URL and makes no
outbound connection (not even the external-IP lookup Streamlit makes by default), and every request a
browser makes while showing each registered page goes to that local server.

The server runs with an audit hook (sys.addaudithook, installed by a sitecustomize.py on PYTHONPATH) that
logs every socket connect, send and name lookup it makes, from start until the end of the browser test.
"""

import ast
import time
import tomllib
from pathlib import Path

import pytest
from e2e_support import OUTPUT, ROOT, assert_no_error, needs_browser, streamlit_server, wait_idle

from ui.registry import PAGES

AUDIT_HOOK = """
import os, sys
_LOG = os.environ["LDPCORE_NET_AUDIT"]
_EVENTS = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "socket.gethostbyname",
           "socket.gethostbyname_ex", "socket.gethostbyaddr", "http.client.connect", "urllib.Request"}

def _hook(event, args):
    if event in _EVENTS:
        where = args[1] if event.startswith(("socket.connect", "socket.send", "http.client")) else args[0]
        with open(_LOG, "a") as log:
            log.write(f"{event}\\t{where!r}\\n")

sys.addaudithook(_hook)
"""
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "::", ""}


def audited(folder: Path) -> tuple[dict, Path]:
    """The environment that installs the audit hook in a server, and the file it logs to."""
    (folder / "sitecustomize.py").write_text(AUDIT_HOOK)
    audit = folder / "network.log"
    audit.touch()
    return {"PYTHONPATH": str(folder), "LDPCORE_NET_AUDIT": str(audit)}, audit


def server_log(url: str) -> Path:
    return OUTPUT / f"streamlit-{url.rsplit(':', 1)[1]}.log"


def printed(url: str, timeout: float = 30.0) -> str:
    """The server's output once it has printed where to point a browser (it may do so after /health answers)."""
    deadline = time.time() + timeout
    while "URL: " not in (output := server_log(url).read_text()) and time.time() < deadline:
        time.sleep(0.2)
    return output


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    """(base URL, audit log) of the README's command, with the audit hook installed."""
    env, audit = audited(tmp_path_factory.mktemp("audit"))
    with streamlit_server(env=env, host="localhost", flags=()) as (url, proc):
        yield url, audit


def outbound(audit: Path) -> list[str]:
    """The audited network events whose address is not this machine (a Unix socket path is local)."""
    found = []
    for line in audit.read_text().splitlines():
        event, where = line.split("\t", 1)
        host = ast.literal_eval(where)  # a repr written by the hook: a (host, port, ...) tuple, a str or None
        if isinstance(host, tuple):
            host = host[0]
        if event.startswith("socket.connect") and isinstance(host, str) and host.startswith("/"):
            continue  # AF_UNIX
        if event == "urllib.Request" or str(host or "") not in LOCAL_HOSTS:
            found.append(line)
    return found


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on port (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_the_config_keeps_the_server_local_and_protected():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "localhost" and config["browser"]["serverAddress"] == "localhost"
    assert config["server"]["enableXsrfProtection"] is True and config["server"]["enableCORS"] is True
    assert config["server"]["maxUploadSize"] == 25 and config["browser"]["gatherUsageStats"] is False
    assert config["client"]["showErrorDetails"] == "none"


@pytest.mark.slow
def test_the_readme_command_listens_on_localhost_and_makes_no_outbound_request(local_server):
    url, audit = local_server
    output = printed(url)
    assert f"URL: {url}" in output, output
    assert "External URL" not in output and "Network URL" not in output, output
    assert "external IP" not in output, output  # Streamlit's warning when its lookup fails
    loopback = {"0100007F", "00000000000000000000000001000000"}  # 127.0.0.1 and ::1 as /proc writes them
    listening = listening_addresses(int(url.rsplit(":", 1)[1]))
    assert listening and listening <= loopback, listening
    assert outbound(audit) == []


@pytest.mark.slow
def test_serving_a_class_as_the_readme_says_makes_no_outbound_request_either(tmp_path):
    """README, "Serving a class": --server.address 0.0.0.0 with the address to print (here 127.0.0.1)."""
    env, audit = audited(tmp_path)
    flags = ("--server.address", "0.0.0.0", "--browser.serverAddress", "127.0.0.1")
    with streamlit_server(env=env, flags=flags) as (url, proc):
        output = printed(url)
        assert f"URL: {url}" in output and "External URL" not in output and "Network URL" not in output, output
        assert outbound(audit) == []


@pytest.mark.browser
@needs_browser()
def test_every_request_of_every_page_goes_to_the_local_server(local_server, browser):
    url, audit = local_server
    requests, websockets, outside = [], [], []

    def only_local(route):
        target = route.request.url
        requests.append(target)
        if target.startswith((url + "/", "data:", "blob:")) or target == url:
            route.continue_()
        else:
            outside.append(target)
            route.abort()

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", only_local)
    page = context.new_page()
    page.on("websocket", lambda ws: websockets.append(ws.url))
    try:
        for entry in PAGES:
            page.goto(f"{url}/{entry.url_path}")
            page.locator("h1").first.wait_for(timeout=120_000)
            wait_idle(page, timeout=120_000)
            assert_no_error(page)
    finally:
        context.close()
    assert outside == [], outside
    assert requests and all(r.startswith(url) for r in requests if not r.startswith(("data:", "blob:")))
    host = url.removeprefix("http://")
    assert websockets and all(w.startswith(f"ws://{host}/") for w in websockets), websockets
    assert outbound(audit) == []  # nor did the server reach out while it served them
