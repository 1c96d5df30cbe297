"""A small client of `lego-studio serve` for the tests in test/studio and bench/studio: starts the server on a
free port, sends requests over plain sockets (HTTP/1.1, one request per connection, as the server speaks),
and reads /proc for its memory. Standard library only.

    python3 studio.py SCENARIO [args]     (see the scenario functions at the bottom)
"""

import asyncio
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib


class Server:
    """`lego-studio serve --port 0 ARGS`; the port is read from its first line of output."""

    def __init__(self, binary="lego-studio", args=(), env=None):
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=None if env is None else {**os.environ, **env},
        )
        line = self.process.stdout.readline()
        match = re.search(r"http://([^/]+):(\d+)/", line)
        if not match:
            self.process.kill()
            raise SystemExit(f"lego-studio serve did not start: {line!r} {self.process.stderr.read()!r}")
        self.host, self.port = match.group(1), int(match.group(2))

    def request(self, method, path, body=None, raw=None, timeout=60):
        """(status, headers, body bytes). `raw`: the exact bytes to send instead of a built request."""
        if raw is None:
            payload = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            raw = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(payload)}\r\n"
                   f"Content-Type: application/json\r\n\r\n").encode() + payload
        with socket.create_connection((self.host, self.port), timeout=timeout) as connection:
            connection.sendall(raw)
            connection.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
        return parse_response(data)

    def api(self, path, body):
        status, _, payload = self.request("POST", path, body)
        return status, json.loads(payload)

    def rss_kib(self):
        """The resident memory of the server and of every process under it: the pipeline runs in its worker
        processes (their MLIR contexts live there), so a leak would not show in the server's own RSS."""
        return sum(process_rss_kib(pid) for pid in [self.process.pid, *descendants(self.process.pid)])

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        self.process.kill()
        self.process.wait()
        return self.process.stderr.read()


def process_rss_kib(pid):
    """VmRSS of process `pid` in KiB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid):
    """The processes under `pid` (children, their children, ...), from the parent field of /proc/*/stat."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
                parents[int(entry)] = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def parse_response(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0].startswith("HTTP/1.1 ") else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def read(path):
    with open(path) as file:
        return file.read()


def run_tool(argv, text):
    """Runs a lego tool on `text` saved as a file named `input` (the file name the API reports), in a
    temporary directory: (exit status, stdout, stderr)."""
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "input"), "w") as file:
            file.write(text)
        done = subprocess.run([*argv, "input"], cwd=directory, capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr


def tool_diagnostics(stderr):
    """`input:L:C: severity: message` lines of a lego tool, as (line, col, severity, message)."""
    return [(int(l), int(c), s, m) for l, c, s, m in re.findall(r"^input:(\d+):(\d+): (\w+): (.*)$", stderr, re.M)]


def api_diagnostics(answer):
    return [(d["line"], d["col"], d["severity"], d["message"]) for d in answer["diagnostics"]]


def check(condition, message):
    print(("ok: " if condition else "FAIL: ") + message)
    return condition


# ---------------------------------------------------------------------------------------------------- scenarios


def endpoints(inputs):
    """Every endpoint, and every compile stage compared with what lego-opt / lego-translate print."""
    layouts = read(os.path.join(inputs, "layouts.mlir"))
    transpose = read(os.path.join(inputs, "..", "..", "..", "examples", "transpose-smem.mlir"))
    server = Server()
    ok = True
    try:
        status, headers, body = server.request("GET", "/")
        print(f"GET / -> {status} {headers.get('content-type')}")
        status, headers, body = server.request("GET", "/no/such/file.js")
        print(f"GET /no/such/file.js -> {status}")
        status, headers, body = server.request("GET", "/api/stages")
        stages = json.loads(body)
        print(f"GET /api/stages -> {status} {headers.get('content-type')}")
        for stage in stages["stages"]:
            print(f"stage {stage['name']} available={stage['available']}")
        print("languages " + " ".join(language["name"] for language in stages["languages"]))

        status, answer = server.api("/api/parse", {"source": layouts})
        print(f"POST /api/parse -> {status}")
        for layout in answer["layouts"]:
            described = json.dumps(layout.get("layout"), sort_keys=True) if "layout" in layout else \
                f"error {layout['error_line']}:{layout['error_col']} {layout['error']}"
            print(f"layout @{layout['func']} {layout['name']} line {layout['line']} dims {layout.get('dims')}: {described}")

        for stage in [s["name"] for s in stages["stages"] if s["available"]]:
            text = transpose if stage in ("ptx", "memory-cost") else layouts
            status, answer = server.api("/api/compile", {"source": text, "stage": stage})
            if stage == "memory-cost":
                # Listed only once lego-analyze-memory exists: its remarks, as lego-opt prints them.
                stderr = run_tool(["lego-opt", "--lego-analyze-memory"], text)[2]
                expected = "\n".join(re.findall(r"^input:\d+:\d+: .*$", stderr, re.M))
                ok &= check(status == 200 and answer["output"] == expected and expected != "",
                            f"{stage}: the API's output is what the command-line tool prints")
                continue
            if status != 200:
                ok &= check(False, f"{stage}: status {status}: {answer}")
                continue
            expected = None
            if stage == "verify":
                expected = run_tool(["lego-opt"], text)[1]
            elif stage == "lego-lower":
                expected = run_tool(["lego-opt", "--lego-lower"], text)[1]
            elif stage == "llvm":
                expected = run_tool(["lego-opt", "--lego-to-llvm"], text)[1]
            elif stage == "ptx":
                module = run_tool(["lego-opt", "--lego-to-nvvm=format=assembly"], text)[1]
                escaped = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', module)
                expected = "\n".join(re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), e) for e in escaped)
            elif stage.startswith("translate:"):
                expected = run_tool(["lego-translate", f"--lego-to-{stage.split(':')[1]}"], text)[1]
            if expected is not None:
                ok &= check(answer["output"].strip() == expected.strip() and answer["output"].strip() != "",
                            f"{stage}: the API's output is what the command-line tool prints ({len(expected)} bytes)")
            else:
                print(f"{stage}: {len(answer['output'])} bytes")
                print("\n".join(answer["output"].splitlines()[:12]))
            ok &= check(isinstance(answer["ms"], (int, float)) and answer["ms"] >= 0 and answer["stage"] == stage,
                        f"{stage}: ms and stage fields")
    finally:
        server.stop()
    print("ALL OK" if ok else "SOME CHECKS FAILED")


def errors(inputs):
    """Bad input of every kind: 400 with located diagnostics (the same lego-opt prints), the server alive."""
    malformed = read(os.path.join(inputs, "malformed.mlir"))
    layouts = read(os.path.join(inputs, "layouts.mlir"))
    server = Server(args=["--max-body", "100000"])
    ok = True
    try:
        def show(label, status, payload):
            try:
                answer = json.loads(payload)
            except ValueError:
                print(f"{label}: {status} (not JSON: {payload[:80]!r})")
                return None
            diagnostics = "; ".join(f"{d['line']}:{d['col']}: {d['severity']}: {d['message']}" for d in answer["diagnostics"])
            print(f"{label}: {status} {answer['error']} [{diagnostics}]")
            return answer

        # Dialect text that does not parse, or parses and does not verify: the diagnostics lego-opt prints.
        not_verifying = layouts.replace("lego.row [2, 3]", "lego.row [2, 0]", 1)
        undefined = "func.func @f() {\n  %x = lego.row [2, %n] : !lego.layout\n  return\n}\n"
        for label, text in [("malformed", malformed), ("not verifying", not_verifying), ("undefined value", undefined)]:
            for endpoint, body in [("/api/parse", {"source": text}), ("/api/compile", {"source": text, "stage": "lego-lower"})]:
                status, _, payload = server.request("POST", endpoint, body)
                answer = show(f"{label} {endpoint}", status, payload)
                reference = tool_diagnostics(run_tool(["lego-opt"], text)[2])
                ok &= check(status == 400 and answer is not None and api_diagnostics(answer) == reference and bool(reference),
                            f"{label} {endpoint}: 400 with lego-opt's diagnostics {reference}")
        # A stage that fails on valid input: the pipeline's located error.
        status, _, payload = server.request("POST", "/api/compile", {"source": layouts, "stage": "ptx"})
        answer = show("ptx of CPU code", status, payload)
        reference = tool_diagnostics(run_tool(["lego-opt", "--lego-to-nvvm=format=assembly"], layouts)[2])
        ok &= check(status == 400 and api_diagnostics(answer) == reference and bool(reference), f"ptx of CPU code: lego-opt's {reference}")
        # An error reported by a pass that still succeeds (lower-affine on `mod 0`) fails the stage, as it fails
        # lego-opt (studio-fuzz finding 4ce8532ba7: the server answered 200 with the half-converted module).
        mod_zero = ("func.func @f(%a: index) -> index {\n  %b = affine.apply affine_map<(d0) -> (d0 mod 0)>(%a)\n"
                    "  return %b : index\n}\n")
        status, _, payload = server.request("POST", "/api/compile", {"source": mod_zero, "stage": "llvm"})
        answer = show("llvm of mod 0", status, payload)
        code, _, errors = run_tool(["lego-opt", "--lego-to-llvm"], mod_zero)
        reference = tool_diagnostics(errors)
        ok &= check(status == 400 and code == 1 and api_diagnostics(answer) == reference and bool(reference),
                    f"llvm of mod 0: 400 as lego-opt's exit {code}, {reference}")
        # Request-level errors.
        cases = [
            ("malformed JSON", "POST", "/api/parse", b'{"source": "x",\n  oops}'),
            ("JSON not an object", "POST", "/api/parse", b"[1, 2]"),
            ("no source", "POST", "/api/parse", b'{"text": "x"}'),
            ("source not a string", "POST", "/api/compile", b'{"source": 3, "stage": "verify"}'),
            ("unknown stage", "POST", "/api/compile", json.dumps({"source": layouts, "stage": "x86"}).encode()),
            ("unknown language", "POST", "/api/compile", json.dumps({"source": layouts, "stage": "translate:cobol"}).encode()),
            ("not UTF-8", "POST", "/api/parse", b'{"source": "\xff\xfe"}'),
            ("oversize body", "POST", "/api/parse", json.dumps({"source": " " * 200000}).encode()),
            ("wrong method", "GET", "/api/parse", None),
            ("unknown endpoint", "POST", "/api/draw", b"{}"),
        ]
        status, _, payload = server.request("GET", "/api/stages")
        memory_cost = any(s["name"] == "memory-cost" and s["available"] for s in json.loads(payload)["stages"])
        cases.insert(5, ("not yet available stage", "POST", "/api/compile",
                         json.dumps({"source": layouts, "stage": "memory-cost"}).encode()))
        for label, method, path, body in cases:
            if label == "not yet available stage" and memory_cost:
                print("memory-cost: available in this build")
                continue
            status, _, payload = server.request(method, path, body)
            show(label, status, payload)
        raw_cases = [
            ("huge Content-Length", b"POST /api/parse HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"),
            ("bad Content-Length", b"POST /api/parse HTTP/1.1\r\nContent-Length: many\r\n\r\n"),
            ("chunked body", b"POST /api/parse HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
            ("malformed request line", b"HELLO\r\n\r\n"),
            ("short body", b"POST /api/parse HTTP/1.1\r\nContent-Length: 50\r\n\r\n{}"),
            ("endless head", b"GET /" + b"a" * 20000),
        ]
        for label, raw in raw_cases:
            status, _, payload = server.request(None, None, raw=raw)
            show(label, status, payload)
        status, _, _ = server.request("GET", "/api/stages")
        ok &= check(status == 200 and server.alive(), "the server still answers after all of them")
    finally:
        stderr = server.stop()
    ok &= check("panicked" not in stderr, "no panic on the server's stderr")
    print("ALL OK" if ok else "SOME CHECKS FAILED")


async def one_request(host, port, payload, timeout):
    started = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        writer.write(payload)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
        writer.close()
        return parse_response(data)[0], time.monotonic() - started
    except (OSError, asyncio.TimeoutError) as error:
        return f"{type(error).__name__}", time.monotonic() - started


async def burst(server, payloads, timeout):
    return await asyncio.gather(*[one_request(server.host, server.port, payload, timeout) for payload in payloads])


def load(inputs, count=1000, bound=120.0, rss_tolerance_mib=32, queue=None):
    """`count` concurrent requests (lego-lower of a tiled layout, each with a function of its own), twice: every one answered (200, or 503 when
    the queue is full) within `bound` seconds; the server's RSS after the second burst within
    `rss_tolerance_mib` of its RSS after the first (warm-up)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * count)), hard))
    source = read(os.path.join(inputs, "typical.mlir"))

    def payload(serial):
        # Every request differs (a function and a size of its own): what a context uniques accumulates unless
        # contexts are replaced, so this is what would show a leak.
        extra = (f"\nfunc.func @extra_{serial}(%i: index) -> index {{\n  %l = lego.row [{serial}] : !lego.layout\n"
                 f"  %r = lego.apply %l(%i) : !lego.layout\n  return %r : index\n}}\n")
        body = json.dumps({"source": source + extra, "stage": "lego-lower"}).encode()
        return (f"POST /api/compile HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    # Without a queue size: one large enough for the whole burst, and a timeout long enough for it to drain.
    args = ["--workers", "2"] + (["--queue", str(queue)] if queue else ["--queue", str(count), "--timeout", str(int(bound))])
    server = Server(args=args)
    ok = True
    try:
        rss_start = server.rss_kib()
        rss = []
        for round_ in range(2):
            started = time.monotonic()
            results = asyncio.run(burst(server, [payload(round_ * count + i + 1) for i in range(count)], bound))
            elapsed = time.monotonic() - started
            statuses = {}
            for status, _ in results:
                statuses[status] = statuses.get(status, 0) + 1
            slowest = max(seconds for _, seconds in results)
            rss.append(server.rss_kib())
            answered = statuses.get(200, 0) + statuses.get(503, 0)
            print(f"round {round_ + 1}: {count} concurrent requests in {elapsed:.2f} s, slowest {slowest:.2f} s, "
                  f"statuses {dict(sorted(statuses.items(), key=str))}, RSS {rss[-1] / 1024:.1f} MiB")
            busy = sorted(seconds for status, seconds in results if status == 503)
            if busy:
                print(f"round {round_ + 1}: {len(busy)} answered 503, median after {busy[len(busy) // 2] * 1000:.0f} ms")
            ok &= check(answered == count, f"round {round_ + 1}: every request answered (200 or 503)")
            ok &= check(slowest < bound, f"round {round_ + 1}: every answer within {bound:.0f} s")
            if queue is None:
                ok &= check(statuses.get(200, 0) == count, f"round {round_ + 1}: all {count} compiled (queue large enough)")
        growth = (rss[1] - rss[0]) / 1024
        print(f"RSS: {rss_start / 1024:.1f} MiB at start, {rss[0] / 1024:.1f} MiB after round 1, "
              f"{rss[1] / 1024:.1f} MiB after round 2 (growth {growth:+.1f} MiB)")
        ok &= check(growth < rss_tolerance_mib, f"RSS growth from round 1 to round 2 under {rss_tolerance_mib:g} MiB")
        status, _, _ = server.request("GET", "/api/stages")
        ok &= check(status == 200 and server.alive(), "the server still answers")
    finally:
        stderr = server.stop()
    ok &= check("panicked" not in stderr, "no panic on the server's stderr")
    print("ALL OK" if ok else "SOME CHECKS FAILED")


def nested_text(depth):
    """A function whose layout is row [2] wrapped in DEPTH lego.order_by, one op a line: %lK is on line K + 2
    at column 8 + len(str(K)) (`  %lK = lego.order_by(…)`)."""
    lines = ["func.func @deep(%i: index) -> index {", "  %l0 = lego.row [2] : !lego.layout"]
    lines += [f"  %l{k} = lego.order_by(%l{k - 1}) : !lego.layout" for k in range(1, depth + 1)]
    lines += [f"  %r = lego.apply %l{depth}(%i) : !lego.layout", "  return %r : index", "}"]
    return "\n".join(lines) + "\n"


def nested(depth):
    """Prints nested_text(DEPTH) (for lego-studio draw in the lit tests)."""
    sys.stdout.write(nested_text(int(depth)))


def robustness(inputs):
    """Requests that used to take the server down (issue 35): a layout nested 5 000 deep, a panic, a fatal
    error and an endless computation inside a request (the test hooks' stages); each is answered with its
    message and the next request is served."""
    typical = read(os.path.join(inputs, "typical.mlir"))
    hooks = {"LEGO_STUDIO_TEST_HOOKS": "1"}
    server = Server(args=["--workers", "1", "--compute-timeout", "3"], env=hooks)
    ok = True

    def still_serving(label):
        status, answer = server.api("/api/parse", {"source": typical})
        return check(status == 200 and len(answer["layouts"]) == 4 and server.alive(), f"{label}: the next request is served")

    try:
        deep = nested_text(5000)
        print(f"5000 nested order_by: {len(deep)} bytes")
        status, answer = server.api("/api/parse", {"source": deep})
        diagnostics = [f"{d['line']}:{d['col']}: {d['severity']}: {d['message']}" for d in answer.get("diagnostics", [])]
        print(f"deep /api/parse: {status} {answer.get('error')} {diagnostics}")
        # The first op past 1 000 levels: %l1000 (row [2] is level 1), line 1002, column 12.
        ok &= check(status == 400 and diagnostics[:1] == [
            "1002:12: error: layout constructors nested more than 1000 deep: too deep to draw (at most 1000 levels)"],
            "deep /api/parse: 400 located at the op past the limit")
        ok &= still_serving("deep /api/parse")
        # The twin: 999 order_by (1 000 levels) are read; the page draws at most 60 levels, so deeper layouts
        # are entries with an error at their op, shallower ones are described.
        status, answer = server.api("/api/parse", {"source": nested_text(999)})
        entries = answer.get("layouts", [])
        by_name = {entry["name"]: entry for entry in entries}
        print(f"999 nested /api/parse: {status}, {len(entries)} layouts")
        for name in ["%l59", "%l60"]:
            print(f"{name}: {'layout' if 'layout' in by_name[name] else by_name[name].get('error')}")
        print(f"%l999: {by_name['%l999'].get('error_line')}:{by_name['%l999'].get('error_col')}: {by_name['%l999'].get('error')}")
        ok &= check(status == 200 and len(entries) == 1000, "999 nested /api/parse: 200 with every layout")
        # The pipeline does not read the layouts into the algebra: a compile of the deep text succeeds.
        status, answer = server.api("/api/compile", {"source": deep, "stage": "lego-lower"})
        ok &= check(status == 200 and "lego." not in answer.get("output", "lego."), "deep /api/compile lego-lower: 200, lowered")

        # A real LLVM fatal error (instruction selection), not a hook: the worker process dies, not the server.
        status, answer = server.api("/api/compile", {"source": read(os.path.join(inputs, "llvm-fatal.mlir")), "stage": "ptx"})
        print(f"LLVM fatal error in ptx: {status} {answer.get('error')}")
        ok &= check(status == 500 and "LLVM ERROR: Cannot select" in answer.get("error", ""), "LLVM fatal error: 500 with LLVM's message")
        ok &= still_serving("LLVM fatal error")

        for stage in ["test:panic", "test:fatal", "test:hang"]:
            started = time.time()
            status, answer = server.api("/api/compile", {"source": typical, "stage": stage})
            print(f"{stage}: {status} {answer.get('error')}")
            ok &= check(status == 500 and bool(answer.get("error")), f"{stage}: 500 with a message")
            ok &= check(time.time() - started < 30, f"{stage}: answered in bounded time")
            ok &= still_serving(stage)
    finally:
        stderr = server.stop()
    ok &= check("overflowed its stack" not in stderr, "no stack overflow on the server's stderr")
    # Without LEGO_STUDIO_TEST_HOOKS=1 the hooks do not exist.
    server = Server(args=["--workers", "1"])
    try:
        status, answer = server.api("/api/compile", {"source": typical, "stage": "test:panic"})
        print(f"test:panic without hooks: {status} {answer.get('error', '')[:40]}")
    finally:
        server.stop()
    print("ALL OK" if ok else "SOME CHECKS FAILED")


def text_in(path, box):
    """Prints whether the PNG has text pixels in the box `x0,y0,x1,y1`: pixels darker (r + g + b < 450) than
    any cell fill (at least 86% lightness) or the cells' #999999 borders (459) — what a label draws there."""
    _, _, rows = png_pixels(path)
    x0, y0, x1, y1 = map(int, box.split(","))
    dark = sum(1 for row in rows[y0:y1] for r, g, b, _ in row[x0:x1] if r + g + b < 450)
    print(f"text in {box}: {'yes' if dark else 'no'}")


def png_size(path):
    """Prints a PNG's size from its header (for pictures too large for png_pixels' pure-Python decoding)."""
    data = open(path, "rb").read(24)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    print(f"png {width} x {height}, longer side {max(width, height)}")


def png_pixels(path):
    """(width, height, rows of (r, g, b, a)) of an 8-bit RGBA or RGB, non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + channels]) + ((255,) if channels == 3 else ()) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def png(path, *pixels):
    """Prints the PNG's size and the colour at each `x,y`."""
    width, height, rows = png_pixels(path)
    print(f"png {width} x {height}")
    for pixel in pixels:
        x, y = map(int, pixel.split(","))
        print(f"pixel {x},{y}: rgba{rows[y][x]}")
    dark = sum(1 for row in rows for r, g, b, _ in row if r + g + b < 150)
    print(f"dark pixels (text and lines): {'some' if dark > 100 else 'none'}")


if __name__ == "__main__":
    scenario, arguments = sys.argv[1], sys.argv[2:]
    if scenario == "load":
        inputs, count, bound, tolerance = arguments[0], int(arguments[1]), float(arguments[2]), float(arguments[3])
        load(inputs, count, bound, tolerance, int(arguments[4]) if len(arguments) > 4 else None)
    else:
        globals()[scenario](*arguments)
