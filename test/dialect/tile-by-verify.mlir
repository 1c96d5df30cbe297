// tile_by's verifier rules (docs/reference/verifier.md): d_o is the rank of the input order_by's FIRST block, every block has
// that rank, levels have d_o entries, per-dim products Π_l t_{l,k} == Π_h o_{h,k} and total products agree when
// known; a tile_by of a function argument is accepted unchecked. Each rule fires below; the twins in
// tile-by-valid.mlir must verify.
// RUN: lego-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics: located errors and exit status 1 (not a crash).
// RUN: not lego-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s
// CHECK: tile-by-verify.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego.tile_by' op Inner tile dimension 2 does not match input layout dimension 1
// CHECK: tile-by-verify.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego.tile_by' op Block 1 of the input layout has rank 1

// The order_by's total rank is 2, but d_o = rank(row [10]) = 1: a level of length 2 is wrong.
func.func @level_length_is_first_block_rank() {
  %r = lego.row [10] : !lego.layout
  %c = lego.col [20] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Inner tile dimension 2 does not match input layout dimension 1}}
  %t = lego.tile_by %o tile_dims [[10, 20]] : !lego.layout
  return
}

// -----

func.func @blocks_of_different_ranks() {
  %r = lego.row [2, 3] : !lego.layout
  %c = lego.col [4] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Block 1 of the input layout has rank 1, but the tile rank (rank of block 0) is 2}}
  %t = lego.tile_by %o tile_dims [[6, 1], [1, 4]] : !lego.layout
  return
}

// -----

func.func @unequal_level_lengths() {
  %r = lego.row [2, 4] : !lego.layout
  %s = lego.row [3, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op all tiling levels must have the same length, found 2 and 3}}
  %t = lego.tile_by %o tile_dims [[3, 2], [2, 2, 2]] : !lego.layout
  return
}

// -----

// Dim 0 over the blocks is 2·3 = 6, the tiles give 3·1 = 3 (total 48 agrees).
func.func @per_dim_product_over_blocks() {
  %r = lego.row [2, 4] : !lego.layout
  %s = lego.row [3, 2] : !lego.layout
  %o = lego.order_by(%r, %s) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op product of tile dims along dimension 0 (3) does not match input dimension (6)}}
  %t = lego.tile_by %o tile_dims [[3, 8], [1, 2]] : !lego.layout
  return
}

// -----

func.func @total_product_over_blocks() {
  %r = lego.row [10] : !lego.layout
  %c = lego.col [20] : !lego.layout
  %o = lego.order_by(%r, %c) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Total product of tile dims (100) does not match total product of input dims (200)}}
  %t = lego.tile_by %o tile_dims [[2], [5], [5], [2]] : !lego.layout
  return
}

// -----

// A constant SSA size is a known size: zero is rejected.
func.func @zero_tile_dim_constant() {
  %c0 = arith.constant 0 : index
  %r = lego.row [10] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Tile dimension 0 must be strictly positive}}
  %t = lego.tile_by %o tile_dims [[%c0], [10]] : !lego.layout
  return
}

// -----

func.func @negative_tile_dim() {
  %r = lego.row [10] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  // expected-error @+1 {{'lego.tile_by' op Tile dimension -2 must be strictly positive}}
  %t = lego.tile_by %o tile_dims [[-2], [-5]] : !lego.layout
  return
}

// -----

// An argument's structure is unknown: accepted, but its own levels are still checked.
func.func @argument_levels_checked(%o: !lego.layout) {
  // expected-error @+1 {{'lego.tile_by' op Tile dimension 0 must be strictly positive}}
  %t = lego.tile_by %o tile_dims [[0, 4], [4, 3]] : !lego.layout
  return
}
