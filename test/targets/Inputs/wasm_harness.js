// test/targets/wasm.mlir's harness for lego-to-wasm output (node, no packages).
//
//   node wasm_harness.js extract OUT.mlir OBJECT.o   decode the top module's lego.wasm_binary (base64, read with
//                                                    the regex a frontend uses), check it is a wasm32 object,
//                                                    write it for wasm-ld
//   node wasm_harness.js run MODULE.wasm EXPECTED    instantiate the linked module, call each function with the
//                                                    arguments of EXPECTED's lines `NAME ARG… -> RESULT…` and
//                                                    compare; exit 1 on any difference
//
// Index values are i64 (BigInt in JavaScript). A function with several results takes a hidden first argument,
// the address of its result struct (the wasm32 C ABI); the harness passes __heap_base (exported by the link)
// and reads the i64 fields back from the module's memory.
"use strict";
const fs = require("fs");

function fail(message) {
  console.log(`MISMATCH: ${message}`);
  process.exit(1);
}

/** The custom section names of a wasm binary (checks the header and the section framing on the way). */
function customSections(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) fail("not a wasm binary (no \\0asm magic)");
  const version = bytes.readUInt32LE(4);
  let offset = 8;
  const leb = () => {
    let value = 0, shift = 0, byte;
    do {
      if (offset >= bytes.length) fail("truncated LEB128");
      byte = bytes[offset++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const names = [];
  while (offset < bytes.length) {
    const id = bytes[offset++];
    const size = leb();
    const end = offset + size;
    if (end > bytes.length) fail(`section ${id} runs past the end`);
    if (id === 0) {
      const length = leb();
      names.push(bytes.subarray(offset, offset + length).toString("utf8"));
    }
    offset = end;
  }
  return { version, names };
}

function extract(mlirPath, objectPath) {
  const text = fs.readFileSync(mlirPath, "utf8");
  const match = /lego\.wasm_binary\s*=\s*"([^"]*)"/.exec(text);
  if (!match) fail("no lego.wasm_binary attribute");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(match[1]) || match[1].length % 4 !== 0) fail("lego.wasm_binary is not padded base64");
  const bytes = Buffer.from(match[1], "base64");
  const { version, names } = customSections(bytes);
  if (!names.includes("linking")) fail("no linking section: not a relocatable object");
  fs.writeFileSync(objectPath, bytes);
  console.log(`wasm32 object: ${bytes.length} bytes, version ${version}, relocatable (has a linking section)`);
}

async function run(wasmPath, expectedPath) {
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), {});
  const exports = instance.exports;
  const functions = Object.keys(exports).filter((name) => typeof exports[name] === "function").sort();
  console.log(`exports: ${functions.join(" ")}`);
  if (!(exports.memory instanceof WebAssembly.Memory)) fail("the module exports no memory");
  if (!(exports.__heap_base instanceof WebAssembly.Global)) fail("the module exports no __heap_base (link with --export=__heap_base)");
  // The results go where the heap starts; the linked memory may end there (wasm-ld sizes it to the stack and
  // data), so a host grows it, as an allocator would.
  const resultAddress = exports.__heap_base.value;
  if (resultAddress + 64 > exports.memory.buffer.byteLength) exports.memory.grow(1);
  const called = new Set();
  let calls = 0;
  const lines = fs.readFileSync(expectedPath, "utf8").split("\n").filter((line) => line.trim() !== "");
  for (const line of lines) {
    const parsed = /^(\w+) ([\d ]*) -> ([\d ]+)$/.exec(line.trim());
    if (!parsed) fail(`malformed expected line: ${line}`);
    const name = parsed[1];
    const args = parsed[2].trim().split(/ +/).map(BigInt);
    const expected = parsed[3].trim().split(/ +/).map(BigInt);
    const fn = exports[name];
    if (typeof fn !== "function") fail(`no exported function ${name}`);
    const call = `${name}(${args.join(", ")})`;
    let got;
    if (expected.length === 1) {
      if (fn.length !== args.length) fail(`${name} takes ${fn.length} arguments, the layout ${args.length}`);
      got = [fn(...args)];
    } else {
      if (fn.length !== args.length + 1) fail(`${name} takes ${fn.length} arguments, expected a result address and ${args.length}`);
      fn(resultAddress, ...args);
      const view = new DataView(exports.memory.buffer, resultAddress, 8 * expected.length);
      got = expected.map((_, k) => view.getBigUint64(8 * k, true));
    }
    // Index results are unsigned (semantics.md): compare as u64.
    got = got.map((value) => BigInt.asUintN(64, value));
    if (got.some((value, k) => value !== expected[k])) fail(`${call} = ${got.join(", ")}, lego-algebra: ${expected.join(", ")}`);
    called.add(name);
    calls += 1;
  }
  const uncalled = functions.filter((name) => !called.has(name));
  if (uncalled.length > 0) fail(`exported but never called: ${uncalled.join(" ")}`);
  console.log(`all ${calls} calls of ${called.size} functions equal lego-algebra`);
}

const [command, input, output] = process.argv.slice(2);
if (command === "extract" && input && output) extract(input, output);
else if (command === "run" && input && output) run(input, output).catch((error) => fail(String(error)));
else fail("usage: wasm_harness.js extract OUT.mlir OBJECT.o | run MODULE.wasm EXPECTED");
