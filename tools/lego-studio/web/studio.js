// LEGO Studio's page (docs/studio.md). Plain JavaScript, no framework, nothing fetched but this server's files.
//
// The server parses and verifies the dialect text (POST /api/parse: every layout as lego_algebra::describe
// JSON) and compiles it (POST /api/compile); everything drawn is computed in the page by lego-algebra compiled
// to wasm32 (/lego_algebra.wasm, crates/lego-algebra-wasm): the offsets, the inverse, the tiles and the warp
// memory costs. Nothing here recomputes layout values, so what is drawn is lego-algebra's.
"use strict";

const $ = (id) => document.getElementById(id);
const CH = 22;          // cell height, px
const MAX_IR_STAGES = 16;

const state = {
  wasm: null,
  text: "",
  layouts: [],          // /api/parse's layouts
  which: 0,             // index into layouts
  view: null,           // wasm `view` answer of the drawn layout
  gpu: null,            // wasm `gpu` answer (when a GPU colouring is on)
  gpuError: null,
  threads: null,        // chosen thread dims
  block: null,
  model: null,          // the drawing: every cell's place, text and colour (buildModel)
  lastHit: null,
  lastDrawMs: null,
  parseSeq: 0,
  busy: 0,
  stage: null,
};

// ---------------------------------------------------------------------------------------------------- wasm

async function loadWasm() {
  const response = await fetch("lego_algebra.wasm");
  if (!response.ok) throw new Error(`lego_algebra.wasm: HTTP ${response.status} (build it with make studio-wasm)`);
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), {});
  return instance.exports;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/// One request to lego-algebra-wasm (its C ABI: JSON in linear memory). Throws its `error`.
function algebra(request) {
  const w = state.wasm;
  const bytes = encoder.encode(JSON.stringify(request));
  const ptr = w.studio_alloc(bytes.length);
  new Uint8Array(w.memory.buffer, ptr, bytes.length).set(bytes);
  const packed = w.studio_call(ptr, bytes.length);
  const outPtr = Number(packed >> 32n);
  const outLen = Number(packed & 0xffffffffn);
  const text = decoder.decode(new Uint8Array(w.memory.buffer, outPtr, outLen));
  w.studio_free(outPtr, outLen);
  const answer = JSON.parse(text);
  if (answer.error !== undefined) throw new Error(answer.error);
  return answer;
}

// ---------------------------------------------------------------------------------------------------- API

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  let data;
  try {
    data = await response.json();
  } catch (e) {
    data = { error: `${path}: HTTP ${response.status}, not JSON` };
  }
  return { ok: response.ok, status: response.status, data };
}

function setBusy(delta) {
  state.busy += delta;
  document.body.dataset.busy = state.busy > 0 ? "1" : "0";
}

function setStatus(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = kind || "";
}

// ---------------------------------------------------------------------------------------------------- editor

function updateGutter(errorLines) {
  const count = state.text.split("\n").length;
  const lines = [];
  for (let n = 1; n <= count; n++) {
    lines.push(errorLines && errorLines.has(n) ? `<span class="err-line" title="error">${n}</span>` : String(n));
  }
  $("gutter").innerHTML = lines.join("\n");
}

function showDiagnostics(diagnostics, error) {
  const box = $("diagnostics");
  box.innerHTML = "";
  const lines = new Set();
  if (error && !(diagnostics && diagnostics.length)) {
    const div = document.createElement("div");
    div.className = "diag error";
    div.textContent = error;
    box.appendChild(div);
  }
  for (const d of diagnostics || []) {
    lines.add(d.line);
    const div = document.createElement("div");
    div.className = `diag ${d.severity || "error"}`;
    div.dataset.line = d.line;
    div.dataset.col = d.col;
    div.textContent = `line ${d.line}:${d.col}: ${d.severity || "error"}: ${d.message}`;
    div.addEventListener("click", () => goToLine(d.line, d.col));
    box.appendChild(div);
  }
  updateGutter(lines);
}

function goToLine(line, col) {
  const editor = $("editor");
  const lines = editor.value.split("\n");
  let pos = 0;
  for (let n = 1; n < line && n <= lines.length; n++) pos += lines[n - 1].length + 1;
  pos += Math.max(0, (col || 1) - 1);
  editor.focus();
  editor.setSelectionRange(pos, pos);
}

async function parseText(text) {
  const seq = ++state.parseSeq;
  setBusy(1);
  setStatus("parsing…");
  try {
    const { ok, data } = await api("api/parse", { source: text });
    if (seq !== state.parseSeq) return;   // a newer edit is on its way
    if (!ok) {
      // The last good drawing stays (and can still be hovered); the hover line no longer describes the text.
      $("hover-info").textContent = "";
      showDiagnostics(data.diagnostics, data.error);
      setStatus(`error: ${firstDiagnostic(data)}`, "error");
      return;
    }
    showDiagnostics([]);
    $("hover-info").textContent = "";
    state.layouts = data.layouts || [];
    fillWhich();
    if (state.layouts.length === 0) {
      setStatus("no layout in this text", "error");
      return;
    }
    history.replaceState(null, "", `#text=${encodeURIComponent(text)}`);
    drawCurrent();
  } catch (e) {
    if (seq === state.parseSeq) setStatus(`error: ${e.message}`, "error");
  } finally {
    setBusy(-1);
  }
}

function firstDiagnostic(data) {
  const d = (data.diagnostics || [])[0];
  return d ? `line ${d.line}:${d.col}: ${d.message}` : data.error || "unknown";
}

function fillWhich() {
  const select = $("which");
  select.innerHTML = "";
  state.layouts.forEach((l, k) => {
    const option = document.createElement("option");
    option.value = k;
    option.textContent = `@${String(l.func).replace(/^@/, "")} %${String(l.name).replace(/^%/, "")} (line ${l.line}) ` +
      (l.dims ? `[${l.dims.join(", ")}]` : "(cannot be drawn)");
    select.appendChild(option);
  });
  // As `lego-studio draw`: the last layout of the first function that builds one (that can be drawn).
  let pick = 0;
  const drawable = state.layouts.filter((l) => l.layout);
  if (drawable.length) {
    const first = drawable[0].func;
    state.layouts.forEach((l, k) => { if (l.func === first && l.layout) pick = k; });
  }
  state.which = pick;
  select.value = String(pick);
}

function setText(text) {
  state.text = text;
  $("editor").value = text;
  updateGutter();
  return parseText(text);
}

// ---------------------------------------------------------------------------------------------------- geometry

function cellWidth(maxChars) {
  return Math.max(26, 7 * maxChars + 10);
}

/// Where each element of a logical index space is drawn: rank 1 a row, rank 2 a grid, rank ≥ 3 nested grids
/// (an even rank: a grid over the first two dims of the nested drawing of the rest; odd: a row over the first).
function nest(dims, cw) {
  const r = dims.length;
  if (r <= 2) {
    const rows = r === 2 ? dims[0] : 1;
    const cols = r === 0 ? 1 : dims[r - 1];
    return {
      w: cols * cw, h: rows * CH, frames: [],
      place: r === 2 ? (idx, k) => [idx[k + 1] * cw, idx[k] * CH] : r === 1 ? (idx, k) => [idx[k] * cw, 0] : () => [0, 0],
    };
  }
  const outer = r % 2 === 0 ? 2 : 1;
  const inner = nest(dims.slice(outer), cw);
  const gap = 6 + 6 * Math.floor((r - 1) / 2);
  const R = outer === 2 ? dims[0] : 1;
  const C = outer === 2 ? dims[1] : dims[0];
  const frames = [];
  for (let ro = 0; ro < R; ro++) {
    for (let co = 0; co < C; co++) {
      const x = co * (inner.w + gap), y = ro * (inner.h + gap);
      frames.push([x, y, inner.w, inner.h]);
      for (const f of inner.frames) frames.push([x + f[0], y + f[1], f[2], f[3]]);
    }
  }
  return {
    w: C * inner.w + (C - 1) * gap, h: R * inner.h + (R - 1) * gap, frames,
    place: (idx, k) => {
      const ro = outer === 2 ? idx[k] : 0, co = outer === 2 ? idx[k + 1] : idx[k];
      const [ix, iy] = inner.place(idx, k + outer);
      return [co * (inner.w + gap) + ix, ro * (inner.h + gap) + iy];
    },
  };
}

function unflatten(dims, flat) {
  const idx = new Array(dims.length);
  for (let k = dims.length - 1; k >= 0; k--) {
    idx[k] = flat % dims[k];
    flat = Math.floor(flat / dims[k]);
  }
  return idx;
}

/// The default memory row width: the width of the matrix `lego-studio draw` shows (columns: dims 1, 3, … for
/// an even rank, dims 1.. for an odd one).
function defaultMemoryWidth(dims) {
  if (dims.length <= 1) return dims[0] || 1;
  let w = 1;
  if (dims.length % 2 === 0) for (let k = 1; k < dims.length; k += 2) w *= dims[k];
  else for (let k = 1; k < dims.length; k++) w *= dims[k];
  return w;
}

// ---------------------------------------------------------------------------------------------------- colours

function hue(value, count) {
  return `hsl(${Math.floor((value * 300) / Math.max(1, count))},70%,86%)`;
}

function heat(value, worst) {
  // 1 (ideal) is white-green; worse is redder.
  if (value <= 1) return "#e3f6e3";
  const t = Math.min(1, Math.log2(value) / Math.log2(Math.max(2, worst)));
  return `hsl(${Math.round(50 - 50 * t)},90%,${Math.round(80 - 25 * t)}%)`;
}

function tileIdOf(view, idx) {
  const levels = view.tiles ? view.tiles.levels : null;
  const r = idx.length;
  const innerRank = levels ? levels[levels.length - 1].length : Math.min(2, r);
  let id = 0;
  for (let k = 0; k < r - innerRank; k++) id = id * view.dims[k] + idx[k];
  return id;
}

function tileCount(view) {
  const levels = view.tiles ? view.tiles.levels : null;
  const innerRank = levels ? levels[levels.length - 1].length : Math.min(2, view.dims.length);
  let n = 1;
  for (let k = 0; k < view.dims.length - innerRank; k++) n *= view.dims[k];
  return n;
}

function cellColour(mode, view, i, x, idx) {
  if (mode === "tile") return hue(tileIdOf(view, idx), tileCount(view));
  if ((mode === "gpu" || mode === "sectors") && state.gpu) {
    const req = state.gpu.requests[state.gpu.cell_request[i]];
    if (!req) return "#eeeeee";
    return mode === "gpu" ? heat(req.degree, 32) : heat(req.ideal ? req.sectors / req.ideal : 1, 8);
  }
  return x < 0 ? "#eeeeee" : hue(x, view.codomain);
}

// ---------------------------------------------------------------------------------------------------- drawing

/// Draws the selected layout: lego-algebra's answer, then one SVG. Returns the time in ms (also shown).
function drawCurrent() {
  const entry = state.layouts[state.which];
  if (!entry) return null;
  if (!entry.layout) {
    // The server lists a layout it cannot read into lego-algebra (a run-time size, a function argument) with
    // its reason and place.
    const where = entry.error_line ? `line ${entry.error_line}:${entry.error_col}: ` : "";
    setStatus(`cannot draw %${String(entry.name).replace(/^%/, "")}: ${where}${entry.error}`, "error");
    return null;
  }
  return drawDesc(entry.layout, entry);
}

function drawDesc(desc, entry) {
  const t0 = performance.now();
  let view;
  try {
    view = algebra({ cmd: "view", layout: desc });
  } catch (e) {
    setStatus(`cannot draw: ${e.message}`, "error");
    return null;
  }
  const sameShape = state.view && JSON.stringify(state.view.dims) === JSON.stringify(view.dims);
  state.view = view;
  state.desc = desc;
  if (!sameShape) {
    state.threads = null;
    $("mem-width").value = defaultMemoryWidth(view.dims);
  }
  setupThreadControls(view);
  computeGpu();
  render();
  const ms = performance.now() - t0;
  state.lastDrawMs = ms;
  const where = entry ? ` — @${entry.func.replace(/^@/, "")} %${entry.name.replace(/^%/, "")}` : "";
  $("layout-info").textContent = `${view.text}: dims [${view.dims.join(", ")}], ${view.numel} elements, ` +
    `${view.codomain} positions${view.invertible ? "" : ", apply-only"}${where}`;
  setStatus(`drawn in ${ms.toFixed(1)} ms`, "ok");
  return ms;
}

/// The drawing as data: every cell of both views with its place, text and colour. The canvas paints it, the
/// SVG export writes it, hover hit-tests it, and the browser tests read it (window.studio.shown()).
function buildModel() {
  const view = state.view;
  const dims = view.dims;
  const mode = $("colour").value;
  const rank = dims.length;
  const maxOffsetChars = String(Math.max(0, view.codomain - 1)).length;
  const tupleChars = dims.reduce((n, d) => n + String(d - 1).length + 1, -1);
  const cw = cellWidth(maxOffsetChars);
  const pw = cellWidth(tupleChars);
  const logical = nest(dims, cw);
  const memW = Math.max(1, parseInt($("mem-width").value, 10) || defaultMemoryWidth(dims));
  const memRows = Math.ceil(view.codomain / memW);
  const M = 14, titleH = 34;
  const gx = M, gy = M + titleH;
  const stripY = gy + logical.h + 44;
  const height = stripY + memRows * CH + M;
  // Which logical element apply_inverse puts at each offset (the inverse), or, for an apply-only layout,
  // the element apply sends there.
  let inverse = view.inverse;
  const fromApply = !inverse;
  if (fromApply) {
    inverse = new Array(view.codomain).fill(-1);
    view.offsets.forEach((x, i) => { if (x >= 0) inverse[x] = i; });
  }
  const lx = new Float64Array(view.numel), ly = new Float64Array(view.numel);
  const ltext = new Array(view.numel), lfill = new Array(view.numel), lidx = new Array(view.numel);
  for (let i = 0; i < view.numel; i++) {
    const idx = unflatten(dims, i);
    const [x, y] = logical.place(idx, 0);
    lx[i] = gx + x;
    ly[i] = gy + y;
    const off = view.offsets[i];
    ltext[i] = off < 0 ? "·" : String(off);
    lfill[i] = cellColour(mode, view, i, off, idx);
    lidx[i] = idx;
  }
  const pcount = view.codomain;
  const px = new Float64Array(pcount), py = new Float64Array(pcount);
  const ptext = new Array(pcount), pfill = new Array(pcount), pbad = new Uint8Array(pcount);
  for (let x = 0; x < pcount; x++) {
    px[x] = M + (x % memW) * pw;
    py[x] = stripY + Math.floor(x / memW) * CH;
    const i = inverse[x];
    // The inverse must send offset x back to an element whose offset is x (it is checked, not assumed).
    pbad[x] = i >= 0 && view.offsets[i] !== x ? 1 : 0;
    ptext[x] = i >= 0 ? lidx[i].join(",") : "·";
    pfill[x] = i < 0 ? "#eeeeee" : cellColour(mode, view, i, x, lidx[i]);
  }
  const title = view.text;
  const subtitle = `logical index → physical offset (apply)${rank >= 3 ? ", nested grids over dims " + dims.join(" × ") : ""}`;
  const stripTitle = `physical memory, ${memW} positions per line: the logical index ${fromApply ? "apply puts at each offset (apply-only layout)" : "apply_inverse gives for each offset"}`;
  // Monospace: about 8.5 px a character at 14 px, 7.3 at 12 px; the widest of the texts, the grid and the strip.
  const width = Math.ceil(Math.max(2 * M + logical.w, 2 * M + memW * pw, 480,
    2 * M + 8.5 * title.length, 2 * M + 7.3 * Math.max(subtitle.length, stripTitle.length)));
  return {
    width, height, cw, pw, M, stripY, memW, inverse, fromApply, title, subtitle, stripTitle,
    frames: logical.frames.map(([x, y, w, h]) => [gx + x, gy + y, w, h]),
    lx, ly, ltext, lfill, lidx, px, py, ptext, pfill, pbad,
    hl: { logical: [], physical: [], lanes: [] },
  };
}

function render() {
  state.lastHit = null;
  state.model = buildModel();
  const drawing = $("drawing");
  if (drawing.scrollTop > state.model.height || drawing.scrollLeft > state.model.width) drawing.scrollTo(0, 0);
  paint();
  renderGpuSummary();
}

/// Paints the part of the drawing inside [x0, x0+w) × [y0, y0+h) onto `ctx` (whose origin is the drawing's
/// (x0, y0)): the canvas on the page is the size of the visible area and is repainted on scroll, so drawing a
/// layout costs the cells in view, not all of them; an export paints everything on a full-size canvas.
function paintRegion(ctx, x0, y0, w, h) {
  const m = state.model;
  const x1 = x0 + w, y1 = y0 + h;
  ctx.save();
  ctx.translate(-x0, -y0);
  ctx.fillStyle = "white";
  ctx.fillRect(x0, y0, w, h);
  ctx.fillStyle = "#222";
  ctx.textAlign = "left";
  ctx.font = "14px monospace";
  ctx.fillText(m.title, m.M, m.M + 10);
  ctx.font = "12px monospace";
  ctx.fillText(m.subtitle, m.M, m.M + 27);
  ctx.fillText(m.stripTitle, m.M, m.stripY - 10);
  const style = new Map();
  for (const c of m.hl.lanes) style.set(`l${c}`, "lane");
  for (const c of m.hl.logical) style.set(`l${c}`, "hl");
  for (const c of m.hl.physical) style.set(`p${c}`, "hl");
  const visible = (xs, ys, cw) => {
    const out = [];
    for (let k = 0; k < xs.length; k++) if (xs[k] + cw >= x0 && xs[k] <= x1 && ys[k] + CH >= y0 && ys[k] <= y1) out.push(k);
    return out;
  };
  const lv = visible(m.lx, m.ly, m.cw), pv = visible(m.px, m.py, m.pw);
  // Borders: a grey rectangle a pixel larger per cell with the fill over it, grouped by colour so the fill
  // style changes once per colour.
  const cells = (ks, xs, ys, cw, fills) => {
    ctx.fillStyle = "#999";
    for (const k of ks) ctx.fillRect(xs[k], ys[k], cw + 1, CH + 1);
    const groups = new Map();
    for (const k of ks) {
      let g = groups.get(fills[k]);
      if (!g) groups.set(fills[k], (g = []));
      g.push(k);
    }
    for (const [fill, members] of groups) {
      ctx.fillStyle = fill;
      for (const k of members) ctx.fillRect(xs[k] + 1, ys[k] + 1, cw - 1, CH - 1);
    }
  };
  cells(lv, m.lx, m.ly, m.cw, m.lfill);
  cells(pv, m.px, m.py, m.pw, m.pfill);
  const outline = (x, y, cw, kind) => {
    ctx.lineWidth = kind === "lane" ? 2 : 3;
    ctx.strokeStyle = kind === "hl" ? "black" : kind === "bad" ? "red" : "#1a5fb4";
    const inset = ctx.lineWidth / 2 + 1;
    ctx.strokeRect(x + inset, y + inset, cw - 2 * inset + 1, CH - 2 * inset + 1);
  };
  for (const k of lv) { const s = style.get(`l${k}`); if (s) outline(m.lx[k], m.ly[k], m.cw, s); }
  for (const k of pv) { const s = style.get(`p${k}`) || (m.pbad[k] ? "bad" : null); if (s) outline(m.px[k], m.py[k], m.pw, s); }
  ctx.fillStyle = "#222";
  ctx.textAlign = "center";
  for (const k of lv) ctx.fillText(m.ltext[k], m.lx[k] + m.cw / 2, m.ly[k] + 15);
  for (const k of pv) ctx.fillText(m.ptext[k], m.px[k] + m.pw / 2, m.py[k] + 15);
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = "#333";
  for (const [x, y, fw, fh] of m.frames) ctx.strokeRect(x + 0.5, y + 0.5, fw, fh);
  ctx.restore();
  m.painted = { logical: lv.length, physical: pv.length };
}

/// (Re)paints the visible part of the drawing.
function paint() {
  const m = state.model;
  if (!m) return;
  const drawing = $("drawing");
  let sizer = document.getElementById("sizer");
  if (!sizer) {
    sizer = document.createElement("div");
    sizer.id = "sizer";
    const canvas = document.createElement("canvas");
    canvas.id = "picture";
    sizer.appendChild(canvas);
    drawing.appendChild(sizer);
  }
  sizer.style.width = `${m.width}px`;
  sizer.style.height = `${m.height}px`;
  const canvas = document.getElementById("picture");
  const w = Math.min(m.width, drawing.clientWidth || m.width);
  const h = Math.min(m.height, drawing.clientHeight || m.height);
  const x0 = Math.min(drawing.scrollLeft, m.width - w), y0 = Math.min(drawing.scrollTop, m.height - h);
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.ceil(w * dpr) || canvas.height !== Math.ceil(h * dpr)) {
    canvas.width = Math.ceil(w * dpr);
    canvas.height = Math.ceil(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  // The canvas sits at the scrolled-to corner of the sizer, which gives the scroll area its full size.
  canvas.style.left = `${x0}px`;
  canvas.style.top = `${y0}px`;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  paintRegion(ctx, x0, y0, w, h);
}

function xml(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// ---------------------------------------------------------------------------------------------------- hover

/// The cell under a point of the drawing: ["l", i] or ["p", x] or null.
function cellAt(mx, my) {
  const m = state.model;
  if (!m) return null;
  for (let i = 0; i < m.lx.length; i++) {
    if (mx >= m.lx[i] && mx < m.lx[i] + m.cw && my >= m.ly[i] && my < m.ly[i] + CH) return ["l", i];
  }
  if (my >= m.stripY) {
    const x = Math.floor((my - m.stripY) / CH) * m.memW + Math.floor((mx - m.M) / m.pw);
    if (mx >= m.M && mx < m.M + m.memW * m.pw && x >= 0 && x < m.ptext.length) return ["p", x];
  }
  return null;
}

/// Hover on either view: the logical element and its physical position are highlighted together, and in a
/// GPU colouring the lanes of the same warp request too.
function hoverAt(kind, k) {
  const m = state.model;
  if (!m) return;
  m.hl = { logical: [], physical: [], lanes: [] };
  if (kind === null) {
    $("hover-info").textContent = "";
    paint();
    return;
  }
  const view = state.view;
  let i, x;
  if (kind === "l") {
    i = k;
    x = view.offsets[i];
  } else {
    x = k;
    i = m.inverse[x];
  }
  const mode = $("colour").value;
  const idx = i >= 0 ? m.lidx[i] : null;
  let info = idx ? `logical (${idx.join(", ")}) → offset ${x < 0 ? "none (padding)" : x}` : `offset ${x}: no element (padding)`;
  if (x >= 0 && view.inverse) info += `;  apply_inverse(${x}) = ${idx ? "(" + idx.join(", ") + ")" : "padding"}`;
  if ((mode === "gpu" || mode === "sectors") && state.gpu && i >= 0) {
    const r = state.gpu.cell_request[i];
    const req = state.gpu.requests[r];
    if (req) {
      state.gpu.cell_request.forEach((other, c) => { if (other === r && c !== i) m.hl.lanes.push(c); });
      info += `;  request ${r} (warp ${req.warp}, step [${req.step.join(", ")}]): ${req.degree <= 1 ? "conflict-free" : req.degree + "-way bank conflict"}, ${req.sectors} sectors (ideal ${req.ideal})`;
    }
  }
  if (i >= 0) m.hl.logical.push(i);
  if (x >= 0) m.hl.physical.push(x);
  $("hover-info").textContent = info;
  paint();
}

function onPointer(event) {
  const sizer = document.getElementById("sizer");
  if (!sizer || !state.model) return;
  const rect = sizer.getBoundingClientRect();
  const hit = cellAt(event.clientX - rect.left, event.clientY - rect.top);
  const key = hit ? hit.join(":") : null;
  if (key === state.lastHit) return;
  state.lastHit = key;
  if (hit) hoverAt(hit[0], hit[1]);
  else hoverAt(null);
}

/// What the page shows, cell by cell (read by the browser tests): logical [index, text], physical [offset, text],
/// and what is highlighted.
function shown() {
  const m = state.model;
  if (!m) return null;
  return {
    logical: m.lidx.map((idx, i) => [idx.join(","), m.ltext[i]]),
    physical: m.ptext.map((t, x) => [x, t]),
    highlighted: { logical: m.hl.logical.map((i) => m.lidx[i].join(",")), physical: m.hl.physical.slice(), lanes: m.hl.lanes.length },
  };
}

/// The viewport point at the centre of a cell, scrolling the drawing to it first.
function cellPoint(kind, k) {
  const m = state.model;
  const [x, y, w] = kind === "l" ? [m.lx[k], m.ly[k], m.cw] : [m.px[k], m.py[k], m.pw];
  const drawing = $("drawing");
  drawing.scrollIntoView({ block: "nearest" });
  // Scrolls only when the cell is not already in view.
  if (x < drawing.scrollLeft || x + w > drawing.scrollLeft + drawing.clientWidth) drawing.scrollLeft = Math.max(0, x - 100);
  if (y < drawing.scrollTop || y + CH > drawing.scrollTop + drawing.clientHeight) drawing.scrollTop = Math.max(0, y - 100);
  paint();
  const rect = document.getElementById("sizer").getBoundingClientRect();
  return [Math.round(rect.left + x + w / 2), Math.round(rect.top + y + CH / 2)];
}

// ---------------------------------------------------------------------------------------------------- GPU view

function setupThreadControls(view) {
  const box = $("thread-dims");
  const rank = view.dims.length;
  if (!state.threads || state.threads.some((d) => d >= rank)) {
    state.threads = [rank - 1];
    const d = view.dims[rank - 1];
    let b = Math.min(d, 32);
    while (d % b !== 0) b--;
    state.block = [b];
    $("gpu-block").value = state.block.join(", ");
  }
  box.innerHTML = "threads along dims ";
  for (let d = 0; d < rank; d++) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.dataset.dim = d;
    input.checked = state.threads.includes(d);
    input.addEventListener("change", onThreadsChanged);
    label.appendChild(input);
    label.appendChild(document.createTextNode(` ${d} (${view.dims[d]}) `));
    box.appendChild(label);
  }
}

function onThreadsChanged() {
  const dims = state.view.dims;
  const checked = Array.from(document.querySelectorAll("#thread-dims input:checked")).map((e) => Number(e.dataset.dim));
  state.threads = checked;
  // A default block: the whole dim, 32 threads at most along the fastest (last) thread dim, 1024 in all.
  let budget = 1024;
  const block = new Array(checked.length);
  for (let k = checked.length - 1; k >= 0; k--) {
    const d = dims[checked[k]];
    let b = Math.min(d, k === checked.length - 1 ? 32 : budget);
    while (d % b !== 0) b--;
    block[k] = b;
    budget = Math.max(1, Math.floor(budget / b));
  }
  state.block = block;
  $("gpu-block").value = block.join(", ");
  refreshGpu();
}

function computeGpu() {
  state.gpu = null;
  state.gpuError = null;
  const mode = $("colour").value;
  if (mode !== "gpu" && mode !== "sectors") return;
  const block = $("gpu-block").value.split(",").map((s) => s.trim()).filter((s) => s).map(Number);
  try {
    state.gpu = algebra({
      cmd: "gpu", layout: state.desc, threads: state.threads || [], block,
      elem_bytes: Number($("gpu-bytes").value), banks: 32,
    });
  } catch (e) {
    state.gpuError = e.message;
  }
}

function refreshGpu() {
  if (!state.view) return;
  computeGpu();
  render();
}

function renderGpuSummary() {
  const summary = $("gpu-summary");
  const table = $("gpu-requests");
  const mode = $("colour").value;
  document.body.dataset.gpu = mode === "gpu" || mode === "sectors" ? "1" : "0";
  if (state.gpuError) {
    summary.textContent = `error: ${state.gpuError}`;
    summary.className = "error";
    table.innerHTML = "";
    return;
  }
  summary.className = "";
  if (!state.gpu) {
    summary.textContent = "(choose a GPU colouring to see each warp's bank conflicts and sectors)";
    table.innerHTML = "";
    return;
  }
  const g = state.gpu;
  const worst = g.max_degree <= 1 ? "conflict-free" : `${g.max_degree}-way bank conflict`;
  summary.innerHTML = `<span id="gpu-max" data-degree="${g.max_degree}">${g.requests.length} warp requests: worst ${worst}</span>, ` +
    `mean degree ${g.mean_degree.toFixed(2)}; global: ${g.sectors} sectors, ideal ${g.ideal}`;
  const rows = [`<table><thead><tr><th>request</th><th>step</th><th>warp</th><th>lanes</th><th>bank-conflict degree</th><th>sectors</th><th>ideal</th></tr></thead><tbody>`];
  const shown = Math.min(g.requests.length, 512);
  for (let r = 0; r < shown; r++) {
    const q = g.requests[r];
    rows.push(`<tr data-req="${r}" data-degree="${q.degree}" data-sectors="${q.sectors}" data-ideal="${q.ideal}"><td>${r}</td><td>[${q.step.join(", ")}]</td><td>${q.warp}</td><td>${q.lanes}</td><td style="background:${heat(q.degree, 32)}">${q.degree}</td><td>${q.sectors}</td><td>${q.ideal}</td></tr>`);
  }
  rows.push(`</tbody></table>`);
  if (shown < g.requests.length) rows.push(`<p>… ${g.requests.length - shown} more requests</p>`);
  table.innerHTML = rows.join("");
}

// ---------------------------------------------------------------------------------------------------- IR panes

const FALLBACK_STAGES = ["verify", "lego-lower", "llvm", "ptx"];

async function loadStages() {
  let stages = FALLBACK_STAGES;
  try {
    const { ok, data } = await api("api/stages");
    if (ok) {
      const list = Array.isArray(data) ? data : data.stages;
      // {"name", "description", "available"}: a stage this build lacks (memory-cost without the analysis) is
      // shown disabled with the server's description.
      if (Array.isArray(list) && list.length) {
        stages = list.map((s) => (typeof s === "string" ? { name: s } : { name: s.name || s.stage, description: s.description, available: s.available !== false }));
      }
    }
  } catch (e) { /* keep the fallback list */ }
  const box = $("stages");
  box.innerHTML = "";
  for (const entry of stages.slice(0, 4 * MAX_IR_STAGES)) {
    const stage = typeof entry === "string" ? { name: entry } : entry;
    const button = document.createElement("button");
    button.textContent = stage.name;
    button.dataset.stage = stage.name;
    if (stage.description) button.title = stage.description;
    if (stage.available === false) {
      button.disabled = true;
      button.title = `${stage.description || stage.name} (not in this build)`;
    }
    button.addEventListener("click", () => compile(stage.name));
    box.appendChild(button);
  }
}

async function compile(stage) {
  state.stage = stage;
  for (const b of document.querySelectorAll("#stages button")) b.classList.toggle("active", b.dataset.stage === stage);
  const pre = $("ir");
  pre.textContent = `compiling (${stage})…`;
  pre.dataset.state = "busy";
  setBusy(1);
  try {
    const { ok, data } = await api("api/compile", { source: state.text, stage });
    if (ok) {
      pre.textContent = `// ${data.stage}: ${data.ms !== undefined ? Number(data.ms).toFixed(1) + " ms" : ""}\n${data.output}`;
      pre.dataset.state = "ok";
    } else {
      pre.textContent = `error: ${firstDiagnostic(data)}`;
      pre.dataset.state = "error";
      if (data.diagnostics) showDiagnostics(data.diagnostics, data.error);
    }
  } catch (e) {
    pre.textContent = `error: ${e.message}`;
    pre.dataset.state = "error";
  } finally {
    setBusy(-1);
  }
}

// ---------------------------------------------------------------------------------------------------- builder

function builderText() {
  const list = (s) => s.split(",").map((v) => v.trim()).filter((v) => v).join(", ");
  const base = $("b-base").value;
  const lines = [];
  let n = 0;
  const fresh = () => `%l${n++}`;
  let current = fresh();
  let isOrder = false;
  if (base === "reg_p") lines.push(`${current} = lego.reg_p perm [${list($("b-perm").value)}] dims [${list($("b-dims").value)}] : !lego.layout`);
  else lines.push(`${current} = lego.${base} [${list($("b-dims").value)}] : !lego.layout`);
  const wrap = () => {
    if (isOrder) return current;
    const o = fresh();
    lines.push(`${o} = lego.order_by(${current}) : !lego.layout`);
    return o;
  };
  for (const li of document.querySelectorAll("#b-steps li")) {
    const kind = li.dataset.kind;
    const value = li.querySelector("input").value.trim();
    if (kind === "tile") {
      const o = wrap();
      current = fresh();
      lines.push(`${current} = lego.tile_by ${o} tile_dims ${value} : !lego.layout`);
      isOrder = false;
    } else if (kind === "group") {
      const o = wrap();
      current = fresh();
      lines.push(`${current} = lego.group_by [${list(value)}](${o}) : !lego.layout`);
      isOrder = false;
    } else if (kind === "order") {
      const r = fresh();
      lines.push(`${r} = lego.row [${list(value)}] : !lego.layout`);
      const o = fresh();
      lines.push(`${o} = lego.order_by(${current}, ${r}) : !lego.layout`);
      current = o;
      isOrder = true;
    }
  }
  return `// Built with LEGO Studio's builder.\nfunc.func @built() {\n${lines.map((l) => "  " + l).join("\n")}\n  return\n}\n`;
}

function addStep(kind, value) {
  const li = document.createElement("li");
  li.dataset.kind = kind;
  const label = { tile: "tile_by tile_dims", group: "group_by dims", order: "order_by(…, row [dims])" }[kind];
  li.innerHTML = `<span>${label}</span> <input size="16"> <button type="button" title="remove">✕</button>`;
  li.querySelector("input").value = value;
  li.querySelector("button").addEventListener("click", () => li.remove());
  $("b-steps").appendChild(li);
}

// ---------------------------------------------------------------------------------------------------- export

/// The drawing as a standalone SVG document, written from the same model the canvas paints.
function svgText() {
  const m = state.model;
  if (!m) return null;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${m.width}" height="${m.height}" viewBox="0 0 ${m.width} ${m.height}" font-family="monospace" font-size="12">`);
  out.push(`<rect width="${m.width}" height="${m.height}" fill="white"/>`);
  out.push(`<text x="${m.M}" y="${m.M + 10}" font-size="14">${xml(m.title)}</text>`);
  out.push(`<text x="${m.M}" y="${m.M + 27}">${xml(m.subtitle)}</text>`);
  out.push(`<g text-anchor="middle" stroke="#999">`);
  for (let i = 0; i < m.ltext.length; i++) {
    out.push(`<g class="lc"><title>logical [${m.lidx[i].join(", ")}] → ${m.ltext[i]}</title><rect x="${m.lx[i]}" y="${m.ly[i]}" width="${m.cw}" height="${CH}" fill="${m.lfill[i]}"/><text x="${m.lx[i] + m.cw / 2}" y="${m.ly[i] + 15}" stroke="none">${m.ltext[i]}</text></g>`);
  }
  for (let x = 0; x < m.ptext.length; x++) {
    out.push(`<g class="pc"><title>offset ${x} ← ${m.ptext[x]}</title><rect x="${m.px[x]}" y="${m.py[x]}" width="${m.pw}" height="${CH}" fill="${m.pfill[x]}"${m.pbad[x] ? ' stroke="red"' : ""}/><text x="${m.px[x] + m.pw / 2}" y="${m.py[x] + 15}" stroke="none">${m.ptext[x]}</text></g>`);
  }
  out.push(`</g>`);
  for (const [x, y, w, h] of m.frames) out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#333" stroke-width="1.5"/>`);
  out.push(`<text x="${m.M}" y="${m.stripY - 10}">${xml(m.stripTitle)}</text>`);
  out.push(`</svg>\n`);
  return out.join("\n");
}

function download(name, href) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function exportSvg() {
  const text = svgText();
  if (!text) return null;
  download("layout.svg", URL.createObjectURL(new Blob([text], { type: "image/svg+xml" })));
  return text;
}

/// The whole drawing as PNG (painted on a canvas of its full size, not the visible part).
function pngDataUrl() {
  const m = state.model;
  if (!m) return Promise.resolve(null);
  const canvas = document.createElement("canvas");
  canvas.width = m.width;
  canvas.height = m.height;
  paintRegion(canvas.getContext("2d"), 0, 0, m.width, m.height);
  return Promise.resolve(canvas.toDataURL("image/png"));
}

async function exportPng() {
  const url = await pngDataUrl();
  if (url) download("layout.png", url);
  return url;
}

function shareLink() {
  const url = `${location.origin}${location.pathname}#text=${encodeURIComponent(state.text)}`;
  history.replaceState(null, "", url);
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
  setStatus("link copied (the layout text is in the URL)", "ok");
  return url;
}

// ---------------------------------------------------------------------------------------------------- start

function textFromFragment() {
  const m = /^#text=(.*)$/s.exec(location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch (e) {
    return null;
  }
}

async function start() {
  const presetSelect = $("preset");
  for (const p of PRESETS) {
    const option = document.createElement("option");
    option.value = p.id;
    option.textContent = p.name;
    presetSelect.appendChild(option);
  }
  const custom = document.createElement("option");
  custom.value = "";
  custom.textContent = "(your text)";
  presetSelect.appendChild(custom);
  presetSelect.addEventListener("change", () => {
    const p = PRESETS.find((q) => q.id === presetSelect.value);
    if (p) setText(p.text);
  });

  let timer = null;
  $("editor").addEventListener("input", () => {
    state.text = $("editor").value;
    presetSelect.value = "";
    updateGutter();
    clearTimeout(timer);
    timer = setTimeout(() => parseText(state.text), 250);
  });
  $("editor").addEventListener("scroll", () => { $("gutter").scrollTop = $("editor").scrollTop; });
  $("which").addEventListener("change", () => { state.which = Number($("which").value); drawCurrent(); });
  $("colour").addEventListener("change", () => { if (state.view) { computeGpu(); render(); } });
  $("mem-width").addEventListener("change", () => { if (state.view) render(); });
  $("gpu-block").addEventListener("change", refreshGpu);
  $("gpu-bytes").addEventListener("change", refreshGpu);
  $("drawing").addEventListener("mousemove", onPointer);
  $("drawing").addEventListener("scroll", () => paint(), { passive: true });
  window.addEventListener("resize", () => paint());
  $("drawing").addEventListener("mouseleave", () => { state.lastHit = null; hoverAt(null); });
  $("export-svg").addEventListener("click", exportSvg);
  $("export-png").addEventListener("click", exportPng);
  $("share").addEventListener("click", shareLink);
  $("b-base").addEventListener("change", () => document.body.classList.toggle("reg_p", $("b-base").value === "reg_p"));
  $("b-add-tile").addEventListener("click", () => addStep("tile", "[[2, 4], [4, 3]]"));
  $("b-add-group").addEventListener("click", () => addStep("group", "12, 8"));
  $("b-add-order").addEventListener("click", () => addStep("order", "2, 2"));
  $("builder").addEventListener("submit", (e) => {
    e.preventDefault();
    presetSelect.value = "";
    setText(builderText());
  });
  addStep("tile", "[[2, 4], [4, 3]]");

  try {
    state.wasm = await loadWasm();
  } catch (e) {
    setStatus(`cannot load lego-algebra (wasm): ${e.message}`, "error");
    throw e;
  }
  loadStages();
  const shared = textFromFragment();
  if (shared !== null) {
    presetSelect.value = "";
    await setText(shared);
  } else {
    presetSelect.value = "tiled";
    await setText(PRESETS.find((p) => p.id === "tiled").text);
  }
}

/// Draws the current layout again and times it: [ms until the canvas holds the pixels (its drawing flushed by
/// reading one back), ms until the next frame has been produced]. The browser tests print this for 64 × 64.
function timeDraw() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    drawCurrent();
    const canvas = document.getElementById("picture");
    if (canvas) canvas.getContext("2d").getImageData(0, 0, 1, 1);
    const drawn = performance.now() - t0;
    requestAnimationFrame(() => setTimeout(() => resolve([drawn, performance.now() - t0]), 0));
  });
}

// Hooks for the browser tests (test/studio/browser_test.py) and the console.
window.studio = {
  state, algebra, drawDesc, drawCurrent, setText, compile, exportSvg, svgText, pngDataUrl, shareLink, hoverAt,
  shown, cellPoint, render, timeDraw,
  ready: null,
};
window.addEventListener("DOMContentLoaded", () => {
  window.studio.ready = start().then(() => true, (e) => { console.error(e); return false; });
});
