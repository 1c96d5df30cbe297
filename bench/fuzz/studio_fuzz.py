#!/usr/bin/env python3
"""studio-fuzz: the LEGO Studio door of lego-fuzz (issue 35, item 5). Starts `lego-studio serve` on 127.0.0.1 (a
free port; nothing else is contacted) and sends it, one connection per request:

* ``parse`` / ``compile`` — the lit corpus (test/**/*.mlir, examples/*.mlir), mutated as lego-fuzz mutates it,
  and lego-fuzz's generated extreme layouts (deep chains, huge and symbolic sizes, gen_p, views, launches), to
  ``POST /api/parse`` and to ``POST /api/compile`` with a random stage (every stage ``GET /api/stages`` lists,
  and names it does not);
* ``deep``  — layouts nested 10 to 20 000 deep (order_by chains, brackets), as far as the body limit allows;
* ``huge``  — layouts whose element count or sizes are huge (``row [2^40, 1024]``, 2^62, symbolic gen_p);
* ``json``  — bodies that are not the JSON object asked for: truncated, wrong types, deep arrays, lone
  surrogates, bytes that are not UTF-8, a JSON source that is not UTF-8 after unescaping;
* ``http``  — requests that are not good HTTP: garbage request lines, wrong methods and paths, missing, lying,
  negative and huge Content-Length, header floods, chunked bodies, bodies over the limit, a request cut short.

A finding is: a response slower than ``--timeout`` (hang); a connection closed without a response to a complete
request; a response that is not HTTP; a 5xx whose JSON body has no non-empty ``error`` (a 500 with its message
is what the server promises for a request that kills its worker: counted, not a finding); an API response that
is not JSON; the server process exiting; the server not answering ``GET /api/stages`` within 10 s after a case;
and, for the ``verify`` / ``lego-lower`` / ``llvm`` stages of sources under 64 KiB, a verdict or an output that
differs from ``lego-opt`` run on the same text (the server promises to parse, verify and lower exactly as
lego-opt does). Each distinct finding is written to ``--out`` as a JSON reproducer (its ``replay`` field reruns
the case against a fresh server).

    python3 bench/fuzz/studio_fuzz.py --seconds 1200 --seed 1 --out target/fuzz-studio
    python3 bench/fuzz/studio_fuzz.py --cases 150 --seed 15 --out target/fuzz-studio-smoke    # make fuzz-smoke
    python3 bench/fuzz/studio_fuzz.py --replay 12345

Exit status: 0 when no finding, 1 otherwise."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lego_fuzz  # noqa: E402  (the corpus, its mutator and the layout generator)

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["parse", "parse", "compile", "compile", "compile", "deep", "huge", "json", "http"]
BODY_LIMIT = 1 << 20  # serve's default --max-body
DIFFERENTIAL = {"verify": [], "lego-lower": ["--lego-lower"], "llvm": ["--lego-to-llvm"]}


class Finding(Exception):
    pass


# --- the server -------------------------------------------------------------------------------------------------


class Server:
    def __init__(self, binary: str, compute_timeout: int) -> None:
        self.binary, self.compute_timeout = binary, compute_timeout
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--workers", "2", "--timeout", "5",
             "--compute-timeout", str(compute_timeout)],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"http://(127\.0\.0\.1):(\d+)/", line)
        if not match:
            self.process.kill()
            raise SystemExit(f"lego-studio serve did not start: {line!r}")
        self.port = int(match.group(2))

    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, raw: bytes, timeout: float, half_close: bool = True) -> Tuple[Optional[bytes], float]:
        """The raw response (None: the connection closed without one) and the seconds it took."""
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as connection:
            connection.settimeout(timeout)
            try:
                connection.sendall(raw)
                if half_close:
                    connection.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the server may answer (413, 400) and close before the body is all sent
            data = b""
            while True:
                try:
                    chunk = connection.recv(65536)
                except socket.timeout:
                    raise Finding(f"hang: no complete response within {timeout:.0f} s") from None
                except OSError:  # reset by the server after its answer
                    break
                if not chunk:
                    break
                data += chunk
        return (data or None), time.monotonic() - started

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-4000:].decode("utf-8", "replace")

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
        self.process.wait()
        self.stderr.close()


def request(method: str, path: str, payload: bytes, headers: Optional[List[str]] = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(payload)}",
             "Content-Type: application/json"] if headers is None else [f"{method} {path} HTTP/1.1", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def parse_response(data: bytes) -> Tuple[int, bytes]:
    head, sep, body = data.partition(b"\r\n\r\n")
    match = re.match(rb"HTTP/1\.[01] (\d{3}) ", head)
    if not sep or not match:
        raise Finding(f"not an HTTP response: {data[:200]!r}")
    return int(match.group(1)), body


# --- cases ------------------------------------------------------------------------------------------------------


def nested(rng: random.Random, depth: int) -> str:
    lines = ["func.func @f(%i: index) -> index {", "  %l0 = lego.row [2] : !lego.layout"]
    for level in range(1, depth + 1):
        lines.append(f"  %l{level} = lego.order_by(%l{level - 1}) : !lego.layout")
    lines += [f"  %r = lego.apply %l{depth}(%i) : !lego.layout", "  return %r : index", "}"]
    text = "\n".join(lines)
    if rng.random() < 0.3:  # brackets instead: lego-opt's parser nesting
        text = "func.func @f() {\n  %l = lego.row " + "[" * depth + "4" + "]" * depth + " : !lego.layout\n  return\n}"
    return text


HUGE = ["lego.row [1099511627776, 1024]", "lego.row [4611686018427387904]", "lego.row [9223372036854775807, 2]",
        "lego.col [65536, 65536, 65536]", "lego.row [%n, %n]", "lego.row [%n, 4611686018427387904]",
        "lego.reg_p [1048576, 1048576] [1, 0]"]


def huge(rng: random.Random) -> str:
    layout = rng.choice(HUGE)
    rank = layout.count(",") + 1 if "reg_p" not in layout else 2
    indices = ", ".join(f"%i{k}" for k in range(rank))
    params = ", ".join(["%n: index"] + [f"%i{k}: index" for k in range(rank)])
    return (f"func.func @f({params}) -> index {{\n  %l = {layout} : !lego.layout\n"
            f"  %r = lego.apply %l({indices}) : !lego.layout\n  return %r : index\n}}")


def bad_json(rng: random.Random, source: str) -> bytes:
    choice = rng.randrange(12)
    if choice == 0:
        return json.dumps({"source": source}).encode()[: rng.randrange(1, 40)]
    if choice == 1:
        return json.dumps({"source": rng.choice([5, None, [], {}, True, 1e308])}).encode()
    if choice == 2:
        depth = rng.choice([100, 129, 10000, 200000])
        return ("[" * depth + "]" * depth).encode()
    if choice == 3:
        return b'{"source": "\\ud800 lone surrogate", "stage": "verify"}'
    if choice == 4:
        return b'{"source": "' + bytes(rng.randrange(128, 256) for _ in range(16)) + b'", "stage": "verify"}'
    if choice == 5:
        return json.dumps({"source": source, "stage": rng.choice(["", "x" * 100000, "translate:", "verify\0"])}).encode()
    if choice == 6:
        return json.dumps([source]).encode()
    if choice == 7:
        return b"\xff\xfe" + source.encode("utf-16-le")
    if choice == 8:
        return json.dumps({"source": source, "source ": 1, "stage": "verify", "extra": [1] * 1000}).encode()
    if choice == 9:
        return json.dumps({"source": "\0" * 10 + source + "\0"}).encode()
    if choice == 10:
        return b'{"source": "' + b"\\u0000" * 5000 + b'"}'
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000)))


def bad_http(rng: random.Random, body: bytes) -> Tuple[bytes, bool]:
    """(raw bytes, whether the request is complete: a server may close a cut request without answering)."""
    choice = rng.randrange(14)
    path = rng.choice(["/api/parse", "/api/compile", "/api/stages", "/", "/index.html", "/lego_algebra.wasm"])
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 500))) + b"\r\n\r\n", True
    if choice == 1:
        method = rng.choice(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "FOO", "get", ""])
        return request(method, path, body), True
    if choice == 2:
        weird = rng.choice(["/api/" + "a" * 70000, "/api/parse?x=1", "/api/%2e%2e/etc/passwd", "/../../etc/passwd",
                            "/api/parse\0", "//api//parse", "*", "http://127.0.0.1/api/parse", "/\xff".encode("latin-1").decode("latin-1")])
        return request("POST", weird, body), True
    if choice == 3:
        return request("POST", path, body, ["Host: x", "Content-Length: -5"]) + b"", True
    if choice == 4:
        return request("POST", path, body, ["Host: x", "Content-Length: 99999999999999999999999"]), True
    if choice == 5:
        return request("POST", path, body, ["Host: x", f"Content-Length: {len(body) + 1000}"]), False
    if choice == 6:
        return request("POST", path, body, ["Host: x", f"Content-Length: {max(0, len(body) - 7)}"]), True
    if choice == 7:
        return request("POST", path, body, ["Host: x", "Transfer-Encoding: chunked"]), True
    if choice == 8:
        headers = ["Host: x"] + [f"X-{k}: {'v' * 100}" for k in range(rng.choice([10, 1000, 20000]))]
        return request("POST", path, body, headers + [f"Content-Length: {len(body)}"]), True
    if choice == 9:
        return request("POST", path, b"x" * (BODY_LIMIT + rng.randrange(1, 5000))), True
    if choice == 10:
        return request("POST", path, body, ["Host: x", "Content-Length: 5", "Content-Length: 7"]), True
    if choice == 11:
        cut = request("POST", path, body)
        return cut[: rng.randrange(len(cut))], False
    if choice == 12:
        return b"POST " + path.encode() + b" HTTP/9.9\r\nContent-Length: 2\r\n\r\n{}", True
    return request("POST", path, body, ["Host: x", "Content-Length: " + " " * 1000 + "2"]), True


def make_case(seed: int, chunks, stages: List[str]) -> Dict:
    """A case: what to send and what it is, from its seed alone."""
    rng = random.Random(seed)
    kind = rng.choice(KINDS)
    if rng.random() < 0.6 and chunks:
        origin, text = chunks[rng.randrange(len(chunks))]
        source, origin = lego_fuzz.mutate(text, rng), f"mutation of {origin}"
    else:
        source, origin = lego_fuzz.generate(rng), "generated"
    # Half the compiles go to the stages checked against lego-opt.
    stage = rng.choice(list(DIFFERENTIAL)) if rng.random() < 0.5 else rng.choice(stages + ["no-such-stage", "translate:nope"])
    if kind == "deep":
        source, origin = nested(rng, rng.choice([10, 60, 61, 999, 1000, 1001, 5000, 20000])), "deep nesting"
    elif kind == "huge":
        source, origin = huge(rng), "huge sizes"
    if kind in ("parse", "deep", "huge") and rng.random() < 0.5 or kind == "parse":
        path, payload = "/api/parse", json.dumps({"source": source}).encode()
    else:
        path, payload = "/api/compile", json.dumps({"source": source, "stage": stage}).encode()
    case = {"seed": seed, "kind": kind, "origin": origin, "path": path, "stage": stage if path == "/api/compile" else None}
    if kind == "json":
        payload = bad_json(rng, source)
        case["stage"] = None
    if kind == "http":
        raw, complete = bad_http(rng, payload)
        case.update(raw=raw, complete=complete, stage=None)
    else:
        case.update(raw=request("POST", path, payload), complete=True, source=source)
    return case


# --- checking a case --------------------------------------------------------------------------------------------


def lego_opt_reference(lego_opt: str, source: str, flags: List[str], work: str) -> Tuple[int, str]:
    path = os.path.join(work, "input")  # the file name the server reports in its diagnostics
    with open(path, "w") as handle:
        handle.write(source)
    try:
        result = subprocess.run([lego_opt, path, *flags], capture_output=True, text=True, timeout=120, cwd=work)
    except subprocess.TimeoutExpired:
        return -1, ""
    return result.returncode, result.stdout


def check(server: Server, case: Dict, timeout: float, lego_opt: Optional[str], work: str) -> str:
    """The response's class (``ok``, ``refused``, ``http-error``, ``500-with-message``, ``closed``; ``ok=lego-opt``
    and ``refused=lego-opt`` where lego-opt agreed) or Finding."""
    data, _ = server.send(case["raw"], timeout)
    if data is None:
        if case["kind"] == "http":
            return "closed"  # a request that is not HTTP may be closed without an answer
        raise Finding("the connection closed without a response")
    status, body = parse_response(data)
    is_api = case["path"].startswith("/api/") and case["kind"] != "http"
    decoded = None
    if is_api or status >= 500:
        try:
            decoded = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Finding(f"{status} whose body is not JSON: {body[:200]!r}") from None
    if status >= 500:
        if not (isinstance(decoded, dict) and isinstance(decoded.get("error"), str) and decoded["error"].strip()):
            raise Finding(f"{status} without a message: {body[:300]!r}")
        return "500-with-message"
    if case["kind"] == "http":
        return "http-error" if status >= 400 else "ok"
    if status not in (200, 400):
        raise Finding(f"unexpected status {status}: {body[:300]!r}")
    assert isinstance(decoded, dict)
    if status == 400 and not (isinstance(decoded.get("error"), str) and decoded["error"]):
        raise Finding(f"400 without a message: {body[:300]!r}")
    stage, source = case.get("stage"), case.get("source")
    if lego_opt and stage in DIFFERENTIAL and source is not None and len(source) < 65536 and case["kind"] != "json":
        code, stdout = lego_opt_reference(lego_opt, source, DIFFERENTIAL[stage], work)
        if code == -1:
            return "ok" if status == 200 else "refused"
        served_ok, opt_ok = status == 200, code == 0
        if served_ok != opt_ok:
            said = decoded.get("error") or "accepted"
            raise Finding(f"stage {stage}: the server {'accepted' if served_ok else 'refused'} ({said}) what lego-opt "
                          f"{'accepted' if opt_ok else 'refused'} (exit {code})")
        if served_ok and decoded.get("output", "").strip() != stdout.strip():
            raise Finding(f"stage {stage}: the server's output differs from lego-opt's")
        return "ok=lego-opt" if status == 200 else "refused=lego-opt"
    return "ok" if status == 200 else "refused"


def responsive(server: Server) -> bool:
    try:
        data, _ = server.send(request("GET", "/api/stages", b""), 10)
        return data is not None and parse_response(data)[0] == 200
    except (Finding, OSError):
        return False


# --- the run ----------------------------------------------------------------------------------------------------


def stage_names(server: Server) -> List[str]:
    data, _ = server.send(request("GET", "/api/stages", b""), 30)
    status, body = parse_response(data or b"")
    return [stage["name"] for stage in json.loads(body)["stages"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0, help="run for this long (default: --cases)")
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=90, help="seconds a response may take")
    parser.add_argument("--compute-timeout", type=int, default=30, help="serve --compute-timeout")
    parser.add_argument("--binary", default=str(ROOT / "target/debug/lego-studio"),
                        help="the server (make build builds the debug one: overflow checks on)")
    parser.add_argument("--lego-opt", default=str(ROOT / "target/release/lego-opt"),
                        help="the reference for the verify / lego-lower / llvm stages ('' to skip)")
    parser.add_argument("--out", default=str(ROOT / "target/fuzz-studio"))
    parser.add_argument("--replay", type=int, help="run the case of this seed alone, verbosely")
    args = parser.parse_args()

    chunks = lego_fuzz.corpus()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="studio_fuzz_")
    server = Server(args.binary, args.compute_timeout)
    stages = stage_names(server)
    lego_opt = args.lego_opt if args.lego_opt and os.path.exists(args.lego_opt) else None
    counts: Dict[str, int] = {}
    findings: Dict[str, Dict] = {}
    started = time.monotonic()
    seeds = [args.replay] if args.replay is not None else None
    index = 0
    try:
        while True:
            if seeds is not None:
                if index >= len(seeds):
                    break
                seed = seeds[index]
            else:
                if args.seconds and time.monotonic() - started >= args.seconds:
                    break
                if not args.seconds and index >= args.cases:
                    break
                seed = args.seed * 1_000_003 + index
            index += 1
            case = make_case(seed, chunks, stages)
            try:
                verdict = check(server, case, args.timeout, lego_opt, work)
                if not server.alive():
                    raise Finding(f"the server exited (status {server.process.returncode})")
                if not responsive(server):
                    raise Finding("the server stopped answering GET /api/stages")
            except (Finding, OSError) as problem:
                verdict = "finding"
                message = str(problem)
                key = hashlib.sha256(f"{case['kind']}|{re.sub(r'[0-9]+', 'N', message)[:120]}".encode()).hexdigest()[:10]
                if key not in findings:
                    findings[key] = {"message": message, "seed": seed, "kind": case["kind"], "origin": case["origin"],
                                     "path": case["path"], "stage": case.get("stage"),
                                     "request": case["raw"][:200000].decode("utf-8", "replace"),
                                     "server_stderr": server.stderr_tail(),
                                     "replay": f"python3 bench/fuzz/studio_fuzz.py --replay {seed}"}
                    with open(os.path.join(args.out, f"studio-{key}.json"), "w") as handle:
                        json.dump(findings[key], handle, indent=1)
                    print(f"finding {key} (seed {seed}, {case['kind']}): {message}", flush=True)
                if not server.alive() or not responsive(server):
                    server.stop()
                    server = Server(args.binary, args.compute_timeout)
            counts[verdict] = counts.get(verdict, 0) + 1
            if args.replay is not None:
                print(f"seed {seed}: {case['kind']} ({case['origin']}) {case['path']} stage={case.get('stage')}: {verdict}")
    finally:
        server.stop()
    elapsed = time.monotonic() - started
    summary = ", ".join(f"{name} {count}" for name, count in sorted(counts.items(), key=lambda item: -item[1]))
    print(f"studio-fuzz: {index} cases in {elapsed:.0f} s (seed {args.seed}): {summary}")
    print(f"studio-fuzz: {len(findings)} distinct finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
