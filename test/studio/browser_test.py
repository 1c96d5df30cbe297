#!/usr/bin/env python3
"""LEGO Studio's page in a real browser (Debian's chromium, headless, driven over WebDriver by chromedriver).

    python3 test/studio/browser_test.py --studio target/debug/lego-studio \
        --memcost target/debug/examples/memcost --out target/studio-screenshots

starts `lego-studio serve` on a free loopback port (or, with --stub, a static server of tools/lego-studio/web/
and the wasm module with a stand-in API built on `lego-studio draw`), and checks:
- every preset: each cell of the logical grid and each position of the physical strip the page shows equal
  lego-algebra's values as `lego-studio draw FILE -o x.txt` prints them for the text in the page's editor
  (the MLIR parser and lego-algebra, not the page's code); a screenshot of each is written to --out;
- hovering a cell (a real pointer move) highlights the same element in both views, in both directions;
- a malformed layout shows its error at its line and the page keeps working (the next layout is drawn);
- the GPU view: each warp request's bank-conflict degree and sectors, and the request each cell is in, equal
  lego_algebra::memcost's for the requests this test builds itself from `draw`'s values (the memcost
  example reads the byte addresses) — see gpu_requests() for the definition docs/studio.md gives;
- a shared URL (layout text in the fragment) draws that layout; SVG and PNG export produce those formats;
- the IR panes compile through the API (not in --stub mode);
- drawing a 64 × 64 layout: the time is measured in the page and printed (target: under 50 ms).
Exit status 0 when every check passes.
"""
import argparse
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB = os.path.join(ROOT, "tools", "lego-studio", "web")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"FAIL: {message}", flush=True)
    return condition


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


# ------------------------------------------------------------------------------------------ expected values

def matrix_axes(rank):
    """lego_algebra::picture's view: which logical dims index the rows and the columns of the drawn matrix."""
    if rank == 1:
        return [], [0]
    if rank % 2 == 0:
        return list(range(0, rank, 2)), list(range(1, rank, 2))
    return [0], list(range(1, rank))


def unflatten(sizes, flat):
    out = [0] * len(sizes)
    for k in range(len(sizes) - 1, -1, -1):
        out[k] = flat % sizes[k]
        flat //= sizes[k]
    return out


def logical_index(dims, row, col):
    rows, cols = matrix_axes(len(dims))
    index = [0] * len(dims)
    for axis, v in zip(rows, unflatten([dims[a] for a in rows], row)):
        index[axis] = v
    for axis, v in zip(cols, unflatten([dims[a] for a in cols], col)):
        index[axis] = v
    return tuple(index)


class Drawn:
    """`lego-studio draw FILE -o x.txt` of a text: offset of each logical index, element at each offset."""

    def __init__(self, studio, text):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "layout.mlir")
            out = os.path.join(tmp, "layout.txt")
            with open(src, "w") as f:
                f.write(text)
            run = subprocess.run([studio, "draw", src, "-o", out], capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError(f"lego-studio draw failed: {run.stderr}")
            lines = open(out).read().split("\n")
        m = re.match(r"logical dims \[([\d, ]*)\], (\d+) elements", lines[1])
        self.dims = [int(d) for d in m.group(1).split(",")] if m.group(1).strip() else []
        k = next(i for i, l in enumerate(lines) if l.startswith("logical index"))
        grid = []
        for line in lines[k + 1:]:
            if not line.strip():
                break
            if set(line.strip()) <= set("-+"):
                continue
            grid.append([t for t in line.replace("|", " ").split()])
        self.offset = {}
        for row, cells in enumerate(grid):
            for col, token in enumerate(cells):
                self.offset[logical_index(self.dims, row, col)] = None if token == "·" else int(token)
        k = next(i for i, l in enumerate(lines) if l.startswith("physical memory"))
        width = int(re.search(r"(\d+) positions per line", lines[k]).group(1))
        self.element = {}
        for r, line in enumerate(l for l in lines[k + 1:] if l.strip()):
            for c, token in enumerate(line.split()):
                if token == "·":
                    self.element[r * width + c] = None
                else:
                    row, col = (int(v) for v in token.split(","))
                    self.element[r * width + c] = logical_index(self.dims, row, col)
        self.codomain = max([x for x in self.offset.values() if x is not None], default=-1) + 1
        self.codomain = max(self.codomain, len(self.element))


def gpu_requests(dims, offsets, threads, block, elem_bytes):
    """The GPU view's warp requests (docs/studio.md), built here from draw's values: threads index `threads`
    (the last fastest), `block` threads along each; lanes 32w..32w+31 of a block are warp w; every other dim
    and each thread dim's block position is a step; at each step each warp issues one request, lane l reading
    element `index` at byte apply(index)·elem_bytes (padding: inactive lane). Returns [(cells, addrs)]."""
    others = [d for d in range(len(dims)) if d not in threads]
    step_sizes = [dims[d] for d in others] + [dims[d] // b for d, b in zip(threads, block)]
    steps = 1
    for s in step_sizes:
        steps *= s
    per_block = 1
    for b in block:
        per_block *= b
    out = []
    for step in range(steps):
        s = unflatten(step_sizes, step)
        for warp in range((per_block + 31) // 32):
            cells, addrs = [], []
            for tid in range(warp * 32, min((warp + 1) * 32, per_block)):
                coords = unflatten(block, tid)
                index = [0] * len(dims)
                for k, d in enumerate(others):
                    index[d] = s[k]
                for k, d in enumerate(threads):
                    index[d] = s[len(others) + k] * block[k] + coords[k]
                cells.append(tuple(index))
                if offsets[tuple(index)] is not None:
                    addrs.append(offsets[tuple(index)] * elem_bytes)
            out.append((cells, addrs))
    return out


def memcost(binary, elem_bytes, requests):
    """(degree, sectors, ideal) of each request, from lego_algebra::memcost (the memcost example)."""
    lines = "".join(f"{elem_bytes} {' '.join(map(str, addrs))}\n" for _, addrs in requests)
    run = subprocess.run([binary], input=lines, capture_output=True, text=True, check=True)
    return [tuple(int(v) for v in line.split()) for line in run.stdout.strip().split("\n")]


KERNEL = """func.func @studio_kernel() {{
  %one = arith.constant 1 : index
  %rows = arith.constant {rows} : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %rows, %sz = %one)
             workgroup(%tile : memref<{size}xf32, #gpu.address_space<workgroup>>) {{
{layout}
    %shared = lego.cast_view %tile, %{var} : memref<{size}xf32, #gpu.address_space<workgroup>>, !lego.layout -> !lego.view<f32>
    %x = lego.load %shared[%ty, %tx] : !lego.view<f32>, index, index
    gpu.terminator
  }}
  return
}}
"""


def analyze_memory_degree(lego_opt, text, rows):
    """The bank-conflict degree `lego-opt --lego-analyze-memory` proves for the layout of `text` (a rank-2
    [rows, 32] layout) read as the GPU view's threads=[1], block=[32] reads it: thread (tx, ty) of a 32 × rows
    block loads element (ty, tx) — warp ty is the page's request at step ty. None when lego-opt lacks the pass."""
    body = text.split("\n")
    start = next(n for n, l in enumerate(body) if l.startswith("func.func")) + 1
    end = next(n for n, l in enumerate(body) if "lego.apply" in l or l.strip() == "return")
    layout = body[start:end]
    var = [re.match(r"\s*%(\w+) = lego\.", l).group(1) for l in layout if re.match(r"\s*%\w+ = lego\.", l)][-1]
    kernel = KERNEL.format(rows=rows, size=rows * 32, layout="\n".join("  " + l for l in layout), var=var)
    run = subprocess.run([lego_opt, "-", "--lego-analyze-memory", "-o", os.devnull], input=kernel,
                         capture_output=True, text=True)
    if "lego-analyze-memory" in run.stderr and run.returncode != 0 and "remark" not in run.stderr:
        return None
    m = re.search(r"remark: shared load of 4 bytes per lane: (conflict-free|(\d+)-way bank conflict)", run.stderr)
    if not m:
        raise RuntimeError(f"lego-opt --lego-analyze-memory: no remark for\n{kernel}\n{run.stderr}")
    return 1 if m.group(1) == "conflict-free" else int(m.group(2))


def has_analyze_memory(lego_opt):
    if not lego_opt or not os.path.exists(lego_opt):
        return False
    run = subprocess.run([lego_opt, "-", "--lego-analyze-memory", "-o", os.devnull], input="", capture_output=True, text=True)
    return run.returncode == 0


# ------------------------------------------------------------------------------------------ WebDriver

class Browser:
    def __init__(self, chromedriver, chromium, width=1600, height=1000):
        self.port = free_port()
        self.driver = subprocess.Popen([chromedriver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        wait_for_port(self.port)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--hide-scrollbars"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"WebDriver {method} {path}: {e.read().decode()[:2000]}")
        return answer.get("value", answer) if path != "/session" else answer["value"]

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def js_async(self, script, *args):
        """`script` gets its arguments and, last, the callback to call with the result."""
        return self.s("POST", "/execute/async", {"script": script, "args": list(args)})

    def find(self, css):
        return self.s("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def hover(self, kind, k):
        """A real pointer move onto a cell of the drawing: kind "l" (logical, row-major index k) or "p" (offset k)."""
        x, y = self.js("return window.studio.cellPoint(arguments[0], arguments[1]);", kind, k)
        self.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                                  "actions": [{"type": "pointerMove", "duration": 0, "x": x, "y": y,
                                                               "origin": "viewport"}]}]})

    def screenshot(self, path, css=None, scroll=True):
        if scroll:
            self.js("const d = document.getElementById('drawing'); d.scrollTo(0, 0); window.scrollTo(0, 0);")
        data = self.s("GET", f"/element/{self.find(css)}/screenshot") if css else self.s("GET", "/screenshot")
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def quit(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        finally:
            self.driver.terminate()
            self.driver.wait(timeout=10)


# ------------------------------------------------------------------------------------------ stand-in API

def stub_server(port, studio, wasm):
    """A static server of web/ and the wasm module; /api/parse answers with `lego-studio draw`'s values as a
    gen_p table (all the page needs to draw), or its located error as a 400. Used until `serve` exists."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body, kind):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = urllib.parse.urlparse(self.path).path
            if path == "/api/stages":
                return self.send(200, json.dumps({"stages": ["verify"]}).encode(), "application/json")
            if path == "/lego_algebra.wasm":
                return self.send(200, open(wasm, "rb").read(), "application/wasm")
            name = "index.html" if path == "/" else path.lstrip("/")
            file = os.path.join(WEB, name)
            if ".." in name or not os.path.isfile(file):
                return self.send(404, b"not found", "text/plain")
            kinds = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
            self.send(200, open(file, "rb").read(), kinds.get(os.path.splitext(name)[1], "application/octet-stream"))

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/api/parse":
                return self.send(400, json.dumps({"error": "stub: only /api/parse"}).encode(), "application/json")
            try:
                drawn = Drawn(studio, body["source"])
            except RuntimeError as e:
                m = re.search(r":(\d+):(\d+): error: (.*)", str(e))
                diag = [{"line": int(m.group(1)), "col": int(m.group(2)), "severity": "error", "message": m.group(3)}] if m else []
                return self.send(400, json.dumps({"error": str(e), "diagnostics": diag}).encode(), "application/json")
            table = [drawn.offset[tuple(unflatten(drawn.dims, f))] for f in range(len(drawn.offset))]
            layout = {"op": "gen_p", "dims": drawn.dims, "kind": "table", "apply": table}
            answer = {"layouts": [{"func": "stub", "name": "l", "line": 1, "dims": drawn.dims, "layout": layout}]}
            self.send(200, json.dumps(answer).encode(), "application/json")

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ------------------------------------------------------------------------------------------ the checks

WAIT_IDLE = """
const [want, done] = arguments;
const t0 = performance.now();
(function poll() {
  const idle = document.body.dataset.busy === "0";
  const status = document.getElementById("status").textContent;
  if (idle && (want === "" || status.includes(want))) return done(status);
  if (performance.now() - t0 > 30000) return done("timeout: " + status);
  setTimeout(poll, 20);
})();
"""

READ_CELLS = """
const shown = window.studio.shown();
return {logical: shown.logical, physical: shown.physical, text: document.getElementById('editor').value};
"""



def wait_idle(browser, want="drawn"):
    return browser.js_async(WAIT_IDLE, want)


def choose_preset(browser, preset):
    browser.js("const s = document.getElementById('preset'); s.value = arguments[0];"
               "s.dispatchEvent(new Event('change'));", preset)
    return wait_idle(browser)


def type_text(browser, text):
    """As typing does: the editor's value and an input event (the page parses after a pause)."""
    browser.js("const e = document.getElementById('editor'); e.value = arguments[0];"
               "e.dispatchEvent(new Event('input'));", text)
    time.sleep(0.3)


def check_cells(browser, studio, label):
    cells = browser.js(READ_CELLS)
    drawn = Drawn(studio, cells["text"])
    shown = {tuple(int(v) for v in idx.split(",")): (None if t == "·" else int(t)) for idx, t in cells["logical"]}
    check(shown == drawn.offset, f"{label}: logical grid differs from lego-studio draw: "
          f"{sorted(set(shown.items()) ^ set(drawn.offset.items()))[:6]}")
    strip = {x: (None if t == "·" else tuple(int(v) for v in t.split(","))) for x, t in cells["physical"]}
    expected = {x: e for x, e in drawn.element.items() if x < drawn.codomain}
    check(strip == expected, f"{label}: physical strip differs from lego-studio draw: "
          f"{sorted(set(strip.items()) ^ set(expected.items()), key=str)[:6]}")
    return drawn, len(shown)


def flat_of(dims, index):
    flat = 0
    for d, v in zip(dims, index):
        flat = flat * d + v
    return flat


HIGHLIGHTED = "return window.studio.shown().highlighted;"


def check_hover(browser, drawn, label):
    index = max(drawn.offset, key=lambda i: sum(i))        # the last element: a non-trivial offset
    browser.hover("l", flat_of(drawn.dims, index))
    hl = browser.js(HIGHLIGHTED)
    want = {"logical": [",".join(map(str, index))], "physical": [drawn.offset[index]], "lanes": 0}
    check(hl == want, f"{label}: hovering logical {index} highlights {hl}, expected {want}")
    x = drawn.offset[index]
    target = next(o for o, e in drawn.element.items() if e is not None and o != x)
    browser.hover("p", target)
    hl = browser.js(HIGHLIGHTED)
    want = {"logical": [",".join(map(str, drawn.element[target]))], "physical": [target], "lanes": 0}
    check(hl == want, f"{label}: hovering offset {target} highlights {hl}, expected {want}")


def check_gpu(browser, studio, memcost_bin, label, threads=None, block=None, elem_bytes=4):
    if threads is not None:
        browser.js("""
          const [threads, block] = arguments;
          for (const box of document.querySelectorAll('#thread-dims input'))
            box.checked = threads.includes(Number(box.dataset.dim));
          document.querySelector('#thread-dims input').dispatchEvent(new Event('change'));
          const b = document.getElementById('gpu-block'); b.value = block.join(', ');
          b.dispatchEvent(new Event('change'));""", threads, block)
    browser.js("const s = document.getElementById('gpu-bytes'); s.value = String(arguments[0]);"
               "s.dispatchEvent(new Event('change'));"
               "const c = document.getElementById('colour'); c.value = 'gpu'; c.dispatchEvent(new Event('change'));",
               elem_bytes)
    page = browser.js("""
      const g = window.studio.state.gpu;
      return g && {threads: g.threads, block: g.block,
        rows: Array.from(document.querySelectorAll('#gpu-requests tr[data-req]')).map(r =>
          [Number(r.dataset.degree), Number(r.dataset.sectors), Number(r.dataset.ideal)]),
        cells: window.studio.shown().logical.map(([idx, text], i) => [idx, g.cell_request[i]]),
        max: Number(document.getElementById('gpu-max').dataset.degree),
        text: document.getElementById('editor').value};""")
    if not check(page is not None, f"{label}: no GPU view"):
        return None
    drawn = Drawn(studio, page["text"])
    requests = gpu_requests(drawn.dims, drawn.offset, page["threads"], page["block"], elem_bytes)
    expected = [list(r) for r in memcost(memcost_bin, elem_bytes, requests)]
    check(page["rows"] == expected[:len(page["rows"])] and len(page["rows"]) == min(len(expected), 512),
          f"{label}: GPU requests (degree, sectors, ideal) differ from lego_algebra::memcost: "
          f"page {page['rows'][:4]}… expected {expected[:4]}…")
    request_of = {cell: r for r, (cells, _) in enumerate(requests) for cell in cells}
    shown = {tuple(int(v) for v in idx.split(",")): r for idx, r in page["cells"]}
    check(shown == request_of, f"{label}: cells are assigned to other warp requests than expected")
    check(page["max"] == max(d for d, _, _ in expected), f"{label}: worst degree {page['max']}")
    browser.js("const c = document.getElementById('colour'); c.value = 'offset'; c.dispatchEvent(new Event('change'));")
    return max(d for d, _, _ in expected)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studio", default=os.path.join(ROOT, "target/debug/lego-studio"))
    parser.add_argument("--memcost", default=os.path.join(ROOT, "target/debug/examples/memcost"))
    parser.add_argument("--wasm", default=os.path.join(ROOT, "target/wasm32-unknown-unknown/release/lego_algebra_wasm.wasm"))
    parser.add_argument("--lego-opt", default=os.path.join(ROOT, "target/debug/lego-opt"),
                        help="its --lego-analyze-memory remarks are compared with the GPU view")
    parser.add_argument("--stub", action="store_true", help="a static server and a stand-in API instead of `serve`")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--out", default=os.path.join(ROOT, "target/studio-screenshots"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    port = free_port()
    server = None
    if args.stub:
        server = stub_server(port, args.studio, args.wasm)
    else:
        server = subprocess.Popen([args.studio, "serve", "--port", str(port)])
        wait_for_port(port)
    base = f"http://127.0.0.1:{port}/"
    browser = Browser(args.chromedriver, args.chromium)
    try:
        browser.go(base)
        check(browser.js_async("window.studio.ready.then(arguments[0]);") is True, "the page did not start")
        check(wait_idle(browser).startswith("drawn"), "the first layout was not drawn")

        presets = browser.js("return PRESETS.map(p => p.id);")
        for preset in presets:
            status = choose_preset(browser, preset)
            if not check(status.startswith("drawn"), f"preset {preset}: {status}"):
                continue
            drawn, count = check_cells(browser, args.studio, f"preset {preset}")
            browser.screenshot(os.path.join(args.out, f"preset-{preset}.png"))
            degree = check_gpu(browser, args.studio, args.memcost, f"preset {preset} GPU")
            print(f"preset {preset}: {count} cells equal lego-studio draw; GPU view (threads along the last dim) "
                  f"worst bank conflict {degree}", flush=True)

        for preset in ("fig2", "tiled", "nd"):
            choose_preset(browser, preset)
            drawn = Drawn(args.studio, browser.js("return document.getElementById('editor').value;"))
            check_hover(browser, drawn, f"hover {preset}")
        browser.js("document.getElementById('drawing').scrollTo(0, 0);")
        browser.hover("l", 13)
        browser.screenshot(os.path.join(args.out, "hover.png"), scroll=False)
        print("hover: the same element is highlighted in both views, from either side", flush=True)

        # Tile colouring: in the tiled preset (logical (ti, tk, i, k)), the cells of one tile share a colour and
        # the eight tiles have eight colours.
        choose_preset(browser, "tiled")
        browser.js("const c = document.getElementById('colour'); c.value = 'tile'; c.dispatchEvent(new Event('change'));")
        fills = browser.js("const m = window.studio.state.model; return m.lidx.map((idx, i) => [idx.slice(0, 2).join(','), m.lfill[i]]);")
        by_tile = {}
        for tile, fill in fills:
            by_tile.setdefault(tile, set()).add(fill)
        check(len(by_tile) == 8 and all(len(f) == 1 for f in by_tile.values())
              and len({next(iter(f)) for f in by_tile.values()}) == 8, f"tile colouring: {by_tile}")
        browser.screenshot(os.path.join(args.out, "tiles.png"))
        browser.js("const c = document.getElementById('colour'); c.value = 'offset'; c.dispatchEvent(new Event('change'));")

        # The builder: row [8, 12], then tile_by [[2, 4], [4, 3]], written as text and drawn like any text.
        browser.js("""
          document.getElementById('b-base').value = 'row';
          document.getElementById('b-dims').value = '8, 12';
          const steps = document.getElementById('b-steps'); steps.innerHTML = '';
          document.getElementById('b-add-tile').click();
          steps.querySelector('input').value = '[[2, 4], [4, 3]]';
          document.querySelector('#builder button[type=submit]').click();""")
        check(wait_idle(browser).startswith("drawn"), "the builder's layout was not drawn")
        built = browser.js("return document.getElementById('editor').value;")
        check("lego.tile_by" in built and "tile_dims [[2, 4], [4, 3]]" in built, f"builder text:\n{built}")
        drawn, count = check_cells(browser, args.studio, "builder")
        check(drawn.dims == [2, 4, 4, 3] and drawn.offset[(1, 2, 3, 1)] == 91, "builder: tile_by of row [8, 12]")
        print(f"builder: row [8, 12] + tile_by drawn, {count} cells equal lego-studio draw", flush=True)

        # Too large to draw: said so, and the page goes on.
        type_text(browser, "func.func @f() {\n  %l = lego.row [1024, 1024] : !lego.layout\n  return\n}\n")
        status = wait_idle(browser, "cannot draw")
        check("too many to draw" in status, f"a 1024 × 1024 layout: status {status!r}")
        check(choose_preset(browser, "fig2").startswith("drawn"), "after a layout too large to draw")

        # The GPU view on 32 × 32 tiles, threads along columns, 32 per block: row-major is conflict-free,
        # column-major a 32-way conflict (every lane in bank 0), the XOR swizzle conflict-free.
        swizzle32 = browser.js("return PRESETS.find(p => p.id === 'swizzle').text;").replace("[8, 8]", "[32, 32]") \
            .replace("arith.constant 8 : index", "arith.constant 32 : index")
        # lego-opt has the analysis pass since issue 24: its proved degrees must equal the page's.
        analyze = has_analyze_memory(args.lego_opt)
        check(analyze, f"{args.lego_opt} has no --lego-analyze-memory pass to compare the GPU view with")
        for name, text, want in [
            ("row 32x32", "func.func @f() {\n  %l = lego.row [32, 32] : !lego.layout\n  return\n}\n", 1),
            ("col 32x32", "func.func @f() {\n  %l = lego.col [32, 32] : !lego.layout\n  return\n}\n", 32),
            ("swizzle 32x32", swizzle32, 1),
        ]:
            type_text(browser, text)
            wait_idle(browser)
            degree = check_gpu(browser, args.studio, args.memcost, name, threads=[1], block=[32])
            check(degree == want, f"{name}: worst degree {degree}, expected {want}")
            proved = ""
            if analyze:
                pass_degree = analyze_memory_degree(args.lego_opt, text, 32)
                check(pass_degree == degree, f"{name}: lego-analyze-memory proves degree {pass_degree}, the page shows {degree}")
                proved = f", lego-opt --lego-analyze-memory proves {pass_degree}"
            print(f"GPU view {name}: worst bank conflict {degree} (lego_algebra::memcost agrees{proved})", flush=True)
        type_text(browser, "func.func @f() {\n  %l = lego.col [32, 32] : !lego.layout\n  return\n}\n")
        wait_idle(browser)
        browser.js("const c = document.getElementById('colour'); c.value = 'gpu'; c.dispatchEvent(new Event('change'));")
        browser.js("document.getElementById('drawing').scrollTo(0, 0);")
        browser.hover("l", 5)
        browser.screenshot(os.path.join(args.out, "gpu-col32.png"), scroll=False)
        browser.js("const c = document.getElementById('colour'); c.value = 'offset'; c.dispatchEvent(new Event('change'));")

        # A malformed layout: a located error, the gutter marks its line, and the page keeps working.
        good = browser.js("return PRESETS.find(p => p.id === 'tiled').text;")
        lines = good.split("\n")
        bad_line = next(n for n, l in enumerate(lines, 1) if "lego.tile_by" in l)
        lines[bad_line - 1] = lines[bad_line - 1].replace("tile_dims [[2, 4], [4, 3]]", "tile_dims [[2, 4], [4, 5]]")
        type_text(browser, "\n".join(lines))
        status = wait_idle(browser, "error")
        diag = browser.js("return Array.from(document.querySelectorAll('#diagnostics .diag')).map(d => [Number(d.dataset.line), d.textContent]);")
        marked = browser.js("return Array.from(document.querySelectorAll('#gutter .err-line')).map(s => Number(s.textContent));")
        check(status.startswith("error"), f"malformed layout: status {status!r}")
        check(any(line == bad_line for line, _ in diag), f"malformed layout: diagnostics {diag}, expected line {bad_line}")
        check(marked == [bad_line], f"malformed layout: gutter marks {marked}, expected [{bad_line}]")
        browser.screenshot(os.path.join(args.out, "error.png"))
        print(f"malformed layout: {diag[0][1] if diag else '(none)'}", flush=True)
        type_text(browser, "func.func @f() {\n  %l = lego.col [3, 5] : !lego.layout\n  return\n}\n")
        check(wait_idle(browser).startswith("drawn"), "after an error, a good layout is drawn again")
        check_cells(browser, args.studio, "after the error")
        check(browser.js("return document.querySelectorAll('#diagnostics .diag').length;") == 0, "the error stays shown")
        type_text(browser, "func.func @f() {\n  %l = lego.row [4, ] : !lego.layout\n  return\n}\n")
        wait_idle(browser, "error")
        diag = browser.js("return Array.from(document.querySelectorAll('#diagnostics .diag')).map(d => Number(d.dataset.line));")
        check(diag[:1] == [2], f"syntax error: diagnostics at lines {diag}, expected 2")

        # A layout the server cannot read into lego-algebra (a run-time size): named with its place, not drawn.
        if not args.stub:
            type_text(browser, "func.func @f(%n: index) {\n  %l = lego.row [4, %n] : !lego.layout\n  return\n}\n")
            status = wait_idle(browser, "cannot draw")
            check(status.startswith("cannot draw %l: line 2:") , f"a run-time size: status {status!r}")
            print(f"run-time size: {status}", flush=True)

        # A shared URL: the text in the fragment is drawn on load.
        text = "func.func @shared() {\n  %l = lego.col [4, 6] : !lego.layout\n  return\n}\n"
        browser.go(base + "#text=" + urllib.parse.quote(text))
        browser.js("location.reload();")
        browser.js_async("const done = arguments[0]; (function p() { if (window.studio && window.studio.ready) window.studio.ready.then(done); else setTimeout(p, 20); })();")
        wait_idle(browser)
        check(browser.js("return document.getElementById('editor').value;") == text, "the shared URL's text is not in the editor")
        check_cells(browser, args.studio, "shared URL")
        url = browser.js("return window.studio.shareLink();")
        check(urllib.parse.unquote(url.split("#text=", 1)[1]) == text, f"share link {url[:80]}…")

        # Export: an SVG document with one cell per element in each view, and a PNG.
        svg = browser.js("return window.studio.svgText();")
        check(svg.startswith("<svg") and svg.count('class="lc"') == 24 and svg.count('class="pc') == 24,
              "the exported SVG does not hold 24 logical and 24 physical cells")
        png = browser.js_async("window.studio.pngDataUrl().then(arguments[0], e => arguments[0](String(e)));")
        check(png.startswith("data:image/png;base64,") and base64.b64decode(png.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n",
              "the PNG export is not a PNG")
        with open(os.path.join(args.out, "export.svg"), "w") as f:
            f.write(svg)

        # The IR panes, through the API.
        if not args.stub:
            choose_preset(browser, "fig2")
            stages = browser.js("return Array.from(document.querySelectorAll('#stages button')).map(b => b.dataset.stage);")
            check("lego-lower" in stages, f"stages {stages}")
            for stage in [s for s in stages if s in ("verify", "lego-lower", "llvm")] + [s for s in stages if s.startswith("translate:")][:1]:
                browser.js("document.querySelector(`#stages button[data-stage='${arguments[0]}']`).click();", stage)
                wait_idle(browser, "")
                state, ir = browser.js("const p = document.getElementById('ir'); return [p.dataset.state, p.textContent];")
                check(state == "ok" and len(ir) > 40, f"IR pane {stage}: {state} {ir[:200]}")
                print(f"IR pane {stage}: {len(ir)} characters", flush=True)
            browser.js("document.querySelector(`#stages button[data-stage='lego-lower']`).click();")
            wait_idle(browser, "")
            browser.screenshot(os.path.join(args.out, "ir.png"))

        # Drawing a 64 × 64 layout, measured in the page: lego-algebra (wasm) + SVG + layout, median of 7.
        for name, text in [("row [64, 64]", "func.func @f() {\n  %l = lego.row [64, 64] : !lego.layout\n  return\n}\n"),
                           ("XOR swizzle 64 × 64", swizzle32.replace("[32, 32]", "[64, 64]").replace("arith.constant 32 : index", "arith.constant 64 : index"))]:
            type_text(browser, text)
            wait_idle(browser)
            times = [browser.js_async("window.studio.timeDraw().then(arguments[0]);") for _ in range(9)]
            count = browser.js("return window.studio.shown().logical.length;")
            check(count == 4096, f"64 × 64: {count} cells drawn")
            drawn = sorted(t[0] for t in times)
            frame = sorted(t[1] for t in times)
            median = drawn[len(drawn) // 2]
            print(f"draw 64x64 {name}: median {median:.1f} ms until drawn (min {drawn[0]:.1f}, max {drawn[-1]:.1f}; "
                  f"target < 50 ms), median {frame[len(frame) // 2]:.1f} ms until the next frame", flush=True)
            check(median < 50, f"drawing 64 × 64 ({name}) takes {median:.1f} ms, target < 50 ms")
        browser.screenshot(os.path.join(args.out, "swizzle64.png"))
    finally:
        browser.quit()
        if args.stub:
            server.shutdown()
        else:
            server.terminate()
            server.wait(timeout=10)

    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        return 1
    print(f"all browser checks passed; screenshots in {os.path.relpath(args.out, ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
