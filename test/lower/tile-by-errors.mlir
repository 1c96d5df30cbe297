// Lowering a tile_by whose structure is not visible: located errors, exit 1, no crash.
// RUN: not lego-opt %s --split-input-file --lego-normalization 2>&1 >/dev/null | FileCheck %s --check-prefix=LOC
// RUN: lego-opt %s --split-input-file --verify-diagnostics --lego-normalization
// RUN: not lego-opt %s --split-input-file --lego-to-arith 2>&1 >/dev/null | FileCheck %s --check-prefix=ARITH
// LOC: tile-by-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego.tile_by' op cannot be normalized: its input layout is a function or block argument
// ARITH: tile-by-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}!lego.layout argument

// The verifier accepts a tile_by of a function argument; normalization needs its blocks' dims and says so.
func.func @argument_input(%o: !lego.layout, %i: index, %j: index, %k: index, %l: index) -> index {
  // expected-error @+1 {{'lego.tile_by' op cannot be normalized: its input layout is a function or block argument, whose structure (blocks and their dims) is unknown}}
  %t = lego.tile_by %o tile_dims [[2, 4], [4, 3]] : !lego.layout
  %f = lego.apply %t(%i, %j, %k, %l) : !lego.layout
  return %f : index
}
