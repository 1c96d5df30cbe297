// RUN: lego-opt %s --verify-diagnostics --lego-verify-bijectivity='timeout-ms=1'
// The Z3 limit is an option; a time-out is reported as "unknown" (a warning), never as proved or refuted.
// bijectivity.mlir proves this gen_p (antidiag(4) with an integer-only inverse: digit-by-digit isqrt, as
// lego-algebra emits it) in about a second with the default limit; 1 ms is far too little.
func.func @antidiag4_integer() -> !lego.layout {
  // expected-warning @below {{bijectivity unknown: Z3 timed out after 1 ms while proving}}
  %l0 = lego.gen_p [4, 4] apply (%l0_a0: index, %l0_a1: index) {
    %l0_v0 = arith.constant 1 : index
    %l0_v1 = arith.constant 2 : index
    %l0_v2 = arith.addi %l0_a0, %l0_a1 : index
    %l0_v3 = arith.addi %l0_v2, %l0_v0 : index
    %l0_v4 = arith.subi %l0_v3, %l0_v0 : index
    %l0_v5 = arith.muli %l0_v3, %l0_v4 : index
    %l0_v6 = arith.divui %l0_v5, %l0_v1 : index
    %l0_v7 = arith.addi %l0_a0, %l0_v6 : index
    %l0_v8 = arith.constant 8 : index
    %l0_v9 = arith.subi %l0_v8, %l0_v3 : index
    %l0_v10 = arith.subi %l0_v9, %l0_v0 : index
    %l0_v11 = arith.muli %l0_v9, %l0_v10 : index
    %l0_v12 = arith.divui %l0_v11, %l0_v1 : index
    %l0_v13 = arith.constant 12 : index
    %l0_v14 = arith.addi %l0_v13, %l0_a0 : index
    %l0_v15 = arith.subi %l0_v14, %l0_v12 : index
    %l0_v16 = arith.constant 4 : index
    %l0_v17 = arith.cmpi ule, %l0_v3, %l0_v16 : index
    %l0_v18 = arith.select %l0_v17, %l0_v7, %l0_v15 : index
    lego.yield %l0_v18 : index
  } inv (%l0_x: index) {
    %l0_w0 = arith.constant 1 : index
    %l0_w1 = arith.constant 2 : index
    %l0_w2 = arith.constant 8 : index
    %l0_w3 = arith.constant 10 : index
    %l0_w4 = arith.cmpi ult, %l0_x, %l0_w3 : index
    %l0_w5 = arith.constant 15 : index
    %l0_w6 = arith.subi %l0_w5, %l0_x : index
    %l0_w7 = arith.select %l0_w4, %l0_x, %l0_w6 : index
    %l0_w8 = arith.muli %l0_w7, %l0_w2 : index
    %l0_w9 = arith.addi %l0_w8, %l0_w0 : index
    %l0_w10 = arith.constant 0 : index
    %l0_w11 = arith.addi %l0_w10, %l0_w2 : index
    %l0_w12 = arith.muli %l0_w11, %l0_w11 : index
    %l0_w13 = arith.cmpi ule, %l0_w12, %l0_w9 : index
    %l0_w14 = arith.select %l0_w13, %l0_w11, %l0_w10 : index
    %l0_w15 = arith.constant 4 : index
    %l0_w16 = arith.addi %l0_w14, %l0_w15 : index
    %l0_w17 = arith.muli %l0_w16, %l0_w16 : index
    %l0_w18 = arith.cmpi ule, %l0_w17, %l0_w9 : index
    %l0_w19 = arith.select %l0_w18, %l0_w16, %l0_w14 : index
    %l0_w20 = arith.addi %l0_w19, %l0_w1 : index
    %l0_w21 = arith.muli %l0_w20, %l0_w20 : index
    %l0_w22 = arith.cmpi ule, %l0_w21, %l0_w9 : index
    %l0_w23 = arith.select %l0_w22, %l0_w20, %l0_w19 : index
    %l0_w24 = arith.addi %l0_w23, %l0_w0 : index
    %l0_w25 = arith.muli %l0_w24, %l0_w24 : index
    %l0_w26 = arith.cmpi ule, %l0_w25, %l0_w9 : index
    %l0_w27 = arith.select %l0_w26, %l0_w24, %l0_w23 : index
    %l0_w28 = arith.addi %l0_w27, %l0_w0 : index
    %l0_w29 = arith.divui %l0_w28, %l0_w1 : index
    %l0_w30 = arith.subi %l0_w29, %l0_w0 : index
    %l0_w31 = arith.muli %l0_w29, %l0_w30 : index
    %l0_w32 = arith.divui %l0_w31, %l0_w1 : index
    %l0_w33 = arith.subi %l0_w7, %l0_w32 : index
    %l0_w34 = arith.subi %l0_w30, %l0_w33 : index
    %l0_w35 = arith.constant 3 : index
    %l0_w36 = arith.subi %l0_w35, %l0_w33 : index
    %l0_w37 = arith.subi %l0_w15, %l0_w29 : index
    %l0_w38 = arith.addi %l0_w37, %l0_w33 : index
    %l0_w39 = arith.select %l0_w4, %l0_w33, %l0_w36 : index
    %l0_w40 = arith.select %l0_w4, %l0_w34, %l0_w38 : index
    lego.yield %l0_w39, %l0_w40 : index, index
  } : !lego.layout
  return %l0 : !lego.layout
}
