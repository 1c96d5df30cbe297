// lego-to-wasm: layouts compiled to a wasm32 object (lego.wasm_binary, base64), linked with wasm-ld, run under
// node; every exported function is called on every point of its layout and compared with lego-algebra's
// apply / apply_inverse (the reference interpreter), printed by the cargo example
// crates/lego-algebra/examples/wasm_expected.rs (`make examples` builds it). The expected values are computed
// there from the same layouts written with lego-algebra's constructors, never taken from this lowering.
// REQUIRES: wasm-ld, node
// RUN: lego-opt %s --lego-to-wasm > %t.mlir
// RUN: node %S/Inputs/wasm_harness.js extract %t.mlir %t.o | FileCheck %s --check-prefix=OBJECT
// RUN: wasm-ld --no-entry --export=__heap_base %t.o -o %t.wasm
// RUN: %lego_root/target/debug/examples/wasm_expected > %t.expected
// RUN: node %S/Inputs/wasm_harness.js run %t.wasm %t.expected | FileCheck %s
//
// format=assembly: the same object as WebAssembly assembly text, in lego.wasm_assembly (no lego.wasm_binary).
// Index arithmetic stays 64-bit (i64 parameters and results); several results come back through memory
// (the C ABI: a hidden first i32 argument points at the result struct).
// RUN: lego-opt %s '--lego-to-wasm=format=assembly opt-level=1' | FileCheck %s --check-prefix=ASM
//
// The error twin: an unknown format is rejected with the valid values, before any input is read.
// RUN: not lego-opt %s '--lego-to-wasm=format=bogus' 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not lego-opt %s '--lego-to-wasm=opt-level=9' 2>&1 | FileCheck %s --check-prefix=OPT
// GPU code is refused as by lego-to-llvm, at the launch.
// RUN: not lego-opt %examples/transpose-naive.mlir --lego-to-wasm 2>&1 | FileCheck %s --check-prefix=GPU

// OBJECT: wasm32 object: {{[0-9]+}} bytes, version 1, relocatable (has a linking section)
// CHECK-NOT: MISMATCH
// CHECK: exports: col_apply col_inverse row_apply row_inverse swizzle_apply swizzle_inverse swizzle_tiled_apply swizzle_tiled_inverse sym_row_apply sym_tiled_apply sym_tiled_inverse tiled_apply tiled_inverse
// CHECK: all {{[0-9]+}} calls of 13 functions equal lego-algebra
// ASM-NOT: lego.wasm_binary
// ASM: lego.wasm_assembly = "
// ASM-SAME: .functype\09row_apply (i64, i64) -> (i64)
// ASM-SAME: .export_name\09row_apply, row_apply
// ASM-SAME: .functype\09col_inverse (i32, i64) -> ()
// BOGUS: error: invalid value 'bogus' for option 'format' of 'lego-to-wasm': expected one of binary/bin, assembly/isa
// GPU: transpose-naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego-to-wasm' lowers CPU code, but the module has GPU code ('gpu.launch')
// OPT: error: invalid value '9' for option 'opt-level' of 'lego-to-wasm': expected an optimization level from 0 to 3

// row [4, 8]: apply and apply_inverse.
func.func @row_apply(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %r = lego.apply %l(%i, %j) : !lego.layout
  return %r : index
}
func.func @row_inverse(%x: index) -> (index, index) {
  %l = lego.row [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// col [4, 8].
func.func @col_apply(%i: index, %j: index) -> index {
  %l = lego.col [4, 8] : !lego.layout
  %r = lego.apply %l(%i, %j) : !lego.layout
  return %r : index
}
func.func @col_inverse(%x: index) -> (index, index) {
  %l = lego.col [4, 8] : !lego.layout
  %i, %j = lego.apply_inverse %l(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// semantics.md worked example 3: tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]].
func.func @tiled_apply(%a: index, %b: index, %c: index, %d: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}
func.func @tiled_inverse(%x: index) -> (index, index, index, index) {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %a, %b, %c, %d = lego.apply_inverse %t(%x) : !lego.layout -> index, index, index, index
  return %a, %b, %c, %d : index, index, index, index
}

// An XOR swizzle of an 8 × 8 tile (shared-memory bank swizzling): (i, j) ↦ 8·i + (j xor i), its own
// inverse on the low bits: x ↦ (x div 8, (x mod 8) xor (x div 8)).
func.func @swizzle_apply(%i: index, %j: index) -> index {
  %s = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %row = arith.muli %a, %c8 : index
    %col = arith.xori %b, %a : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %m = arith.remui %y, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %r = lego.apply %s(%i, %j) : !lego.layout
  return %r : index
}
func.func @swizzle_inverse(%x: index) -> (index, index) {
  %s = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %row = arith.muli %a, %c8 : index
    %col = arith.xori %b, %a : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %y, %c8 : index
    %m = arith.remui %y, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %i, %j = lego.apply_inverse %s(%x) : !lego.layout -> index, index
  return %i, %j : index, index
}

// A 2 × 3 grid of swizzled 8 × 8 tiles: tile_by (order_by(row [2, 3], swizzle)) tile_dims [[2, 3], [8, 8]].
func.func @swizzle_tiled_apply(%a: index, %b: index, %c: index, %d: index) -> index {
  %grid = lego.row [2, 3] : !lego.layout
  %s = lego.gen_p [8, 8] apply (%p: index, %q: index) {
    %c8 = arith.constant 8 : index
    %row = arith.muli %p, %c8 : index
    %col = arith.xori %q, %p : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %p = arith.divui %y, %c8 : index
    %m = arith.remui %y, %c8 : index
    %q = arith.xori %m, %p : index
    lego.yield %p, %q : index, index
  } : !lego.layout
  %o = lego.order_by(%grid, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 3], [8, 8]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}
func.func @swizzle_tiled_inverse(%x: index) -> (index, index, index, index) {
  %grid = lego.row [2, 3] : !lego.layout
  %s = lego.gen_p [8, 8] apply (%p: index, %q: index) {
    %c8 = arith.constant 8 : index
    %row = arith.muli %p, %c8 : index
    %col = arith.xori %q, %p : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } inv (%y: index) {
    %c8 = arith.constant 8 : index
    %p = arith.divui %y, %c8 : index
    %m = arith.remui %y, %c8 : index
    %q = arith.xori %m, %p : index
    lego.yield %p, %q : index, index
  } : !lego.layout
  %o = lego.order_by(%grid, %s) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 3], [8, 8]] : !lego.layout
  %a, %b, %c, %d = lego.apply_inverse %t(%x) : !lego.layout -> index, index, index, index
  return %a, %b, %c, %d : index, index, index, index
}

// Symbolic sizes (run-time SSA values). row [4, %n]: called with n up to 2^33 + 1, so results pass 2^32 (the
// index arithmetic is 64-bit).
func.func @sym_row_apply(%i: index, %j: index, %n: index) -> index {
  %l = lego.row [4, %n] : !lego.layout
  %r = lego.apply %l(%i, %j) : !lego.layout
  return %r : index
}
// Fig. 1's tiled matrix with run-time sizes: tile_by (order_by(row [%m, %k])) tile_dims [[%mt, %kt], [4, 4]],
// called with m = 4·mt, k = 4·kt.
func.func @sym_tiled_apply(%a: index, %b: index, %c: index, %d: index, %m: index, %k: index, %mt: index, %kt: index) -> index {
  %r = lego.row [%m, %k] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%mt, %kt], [4, 4]] : !lego.layout
  %f = lego.apply %t(%a, %b, %c, %d) : !lego.layout
  return %f : index
}
func.func @sym_tiled_inverse(%x: index, %m: index, %k: index, %mt: index, %kt: index) -> (index, index, index, index) {
  %r = lego.row [%m, %k] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[%mt, %kt], [4, 4]] : !lego.layout
  %a, %b, %c, %d = lego.apply_inverse %t(%x) : !lego.layout -> index, index, index, index
  return %a, %b, %c, %d : index, index, index, index
}
