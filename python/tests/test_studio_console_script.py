"""`lego-studio serve` as the Python package's console script (lego/_tools.py) runs its requests in worker
processes started through the command the package passes (this interpreter with `-m lego._tools lego-studio`):
there `std::env::current_exe()` is the Python interpreter, so a worker started from it would be
`python __serve-worker` and every API request would fail (issue 35). A fatal error inside one request (the
test hook `test:fatal`: `LLVM ERROR: …`, then abort, as LLVM's report_fatal_error does) ends its worker
process only: that request is a 500 carrying the message, and the next one is served by a new worker.

Standard library only: the server is spoken to over a plain socket, one request per connection.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys

import pytest

# row [2, 3]: dims [2, 3] (semantics.md; checked by hand, nothing computed by our code).
SOURCE = (
    "func.func @f(%i: index, %j: index) -> index {\n"
    "  %rows = lego.row [2, 3] : !lego.layout\n"
    "  %r = lego.apply %rows(%i, %j) : !lego.layout\n"
    "  return %r : index\n"
    "}\n"
)


@pytest.fixture
def server():
    command = [sys.executable, "-m", "lego._tools", "lego-studio", "serve", "--port", "0", "--workers", "1"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "LEGO_STUDIO_TEST_HOOKS": "1"})
    try:
        line = process.stdout.readline()
        match = re.search(r"http://([^/]+):(\d+)/", line)
        assert match, f"lego-studio serve did not start: {line!r}"
        yield process, match.group(1), int(match.group(2))
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def post(host: str, port: int, path: str, body: dict) -> tuple[int, dict]:
    payload = json.dumps(body).encode()
    request = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(payload)}\r\n"
               "Content-Type: application/json\r\n\r\n").encode() + payload
    with socket.create_connection((host, port), timeout=120) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, answer = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(answer)


def test_console_script_workers_serve_and_survive_a_fatal_error(server):
    process, host, port = server
    status, answer = post(host, port, "/api/parse", {"source": SOURCE})
    assert status == 200, answer
    assert [(layout["name"], layout["dims"]) for layout in answer["layouts"]] == [("%rows", [2, 3])]

    status, answer = post(host, port, "/api/compile", {"source": SOURCE, "stage": "test:fatal"})
    assert status == 500
    assert "died" in answer["error"] and "LLVM ERROR: test hook: a fatal error inside a request" in answer["error"]

    status, answer = post(host, port, "/api/parse", {"source": SOURCE})
    assert status == 200, answer
    assert answer["layouts"][0]["dims"] == [2, 3]
    assert process.poll() is None, "the server ended"
