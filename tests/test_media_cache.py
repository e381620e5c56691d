"""ui.serve.ImmutableMedia: Streamlit's media files (named by a hash of their content) answer with immutable
caching; every other answer passes through unchanged."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from ui.serve import IMMUTABLE, ImmutableMedia, is_media


def _answer(path: str, status: int = 200) -> dict:
    """The response-start message a request for path gets through the middleware (an app answering status)."""

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status, "headers": [(b"cache-control", b"no-cache")]})
        await send({"type": "http.response.body", "body": b"x"})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    # on a thread of its own: a worker that ran the browser tests has Playwright's event loop on this thread
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, ImmutableMedia(app)({"type": "http", "path": path}, None, send)).result()
    assert sent[1]["body"] == b"x"
    return dict(sent[0]["headers"])


@pytest.mark.parametrize("path", ["/media/cf12f819dd79b4c12cf742a277f9f1c2.png", "/class/media/ab12.png"])
def test_media_files_are_immutable(path):
    assert is_media(path)
    assert _answer(path)[b"cache-control"] == IMMUTABLE


@pytest.mark.parametrize("path", ["/", "/reconstruct", "/static/media/font.woff2", "/_stcore/health", "/media"])
def test_other_answers_pass_through(path):
    assert not is_media(path)
    assert _answer(path)[b"cache-control"] == b"no-cache"


def test_only_successful_media_answers_are_kept():
    assert _answer("/media/gone.png", status=404)[b"cache-control"] == b"no-cache"
