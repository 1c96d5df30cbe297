// lego-to-llvm: lego layouts lowered all the way to the LLVM dialect, then run by MLIR's JIT (mlir-runner) and
// translated to LLVM IR. The printed numbers are docs/reference/semantics.md's worked examples (hand-checked there).
// RUN: lego-opt %s --lego-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_lib/libmlir_runner_utils.so,%mlir_lib/libmlir_c_runner_utils.so | FileCheck %s
// RUN: lego-opt %s --lego-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// The CPU pipeline refuses GPU code with a clear message.
// RUN: not lego-opt %examples/transpose-naive.mlir --lego-to-llvm 2>&1 | FileCheck %s --check-prefix=GPU

// LLVMIR: define void @main()
// LLVMIR-NOT: lego.
// GPU: transpose-naive.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego-to-llvm' lowers CPU code, but the module has GPU code ('gpu.launch'): use a GPU pipeline ('lego-to-nvvm', 'lego-to-rocdl', 'lego-to-spirv', 'lego-to-xevm' or 'lego-to-llvmspirv')

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c15 = arith.constant 15 : index
  %c24 = arith.constant 24 : index

  // Worked example 1 (paper Fig. 2): group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2))).
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %ra = arith.subi %k2, %a : index
    %rb = arith.subi %k1, %b : index
    %row = arith.muli %ra, %k2 : index
    %f = arith.addi %row, %rb : index
    lego.yield %f : index
  } inv (%x: index) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %q = arith.divui %x, %k2 : index
    %r = arith.remui %x, %k2 : index
    %a = arith.subi %k2, %q : index
    %b = arith.subi %k1, %r : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %order = lego.order_by(%swap, %rev) : !lego.layout
  %fig2 = lego.group_by [6, 4](%order) : !lego.layout
  // CHECK: 6
  %f2 = lego.apply %fig2(%c4, %c1) : !lego.layout
  vector.print %f2 : index
  // CHECK-NEXT: 4
  // CHECK-NEXT: 1
  %i2, %j2 = lego.apply_inverse %fig2(%c6) : !lego.layout -> index, index
  vector.print %i2 : index
  vector.print %j2 : index
  // It is a bijection on 24 elements: apply(inverse(x)) = x for every x < 24.
  // CHECK-NEXT: 24
  %round_trips = scf.for %x = %c0 to %c24 step %c1 iter_args(%count = %c0) -> (index) {
    %i, %j = lego.apply_inverse %fig2(%x) : !lego.layout -> index, index
    %y = lego.apply %fig2(%i, %j) : !lego.layout
    %same = arith.cmpi eq, %x, %y : index
    %one = arith.select %same, %c1, %c0 : index
    %next = arith.addi %count, %one : index
    scf.yield %next : index
  }
  vector.print %round_trips : index

  // Worked example 2 (paper Fig. 6): L = group_by [6, 6](O1, O2); apply(4, 2) = 15.
  %o2_perm = lego.reg_p perm [0, 2, 1, 3] dims [2, 3, 2, 3] : !lego.layout
  %o2 = lego.order_by(%o2_perm) : !lego.layout
  %swap2 = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // antidiag(3), apply only: a = i + j + 1; a ≤ 3: i + a(a-1)/2; otherwise a' = 6 - a: 6 + i - a'(a'-1)/2.
  %antidiag = lego.gen_p [3, 3] apply (%i: index, %j: index) {
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %n = arith.constant 3 : index
    %two_n = arith.constant 6 : index
    %base = arith.constant 6 : index
    %ij = arith.addi %i, %j : index
    %a = arith.addi %ij, %k1 : index
    %am1 = arith.subi %a, %k1 : index
    %tri = arith.muli %a, %am1 : index
    %half = arith.divui %tri, %k2 : index
    %upper = arith.addi %i, %half : index
    %ar = arith.subi %two_n, %a : index
    %arm1 = arith.subi %ar, %k1 : index
    %tri_r = arith.muli %ar, %arm1 : index
    %half_r = arith.divui %tri_r, %k2 : index
    %bi = arith.addi %base, %i : index
    %lower = arith.subi %bi, %half_r : index
    %in_upper = arith.cmpi ule, %a, %n : index
    %f = arith.select %in_upper, %upper, %lower : index
    lego.yield %f : index
  } : !lego.layout
  %o1 = lego.order_by(%swap2, %antidiag) : !lego.layout
  %fig6 = lego.group_by [6, 6](%o1, %o2) : !lego.layout
  // CHECK-NEXT: 15
  %f6 = lego.apply %fig6(%c4, %c2) : !lego.layout
  vector.print %f6 : index
  // O2 alone maps logical (4, 2) to 23.
  // CHECK-NEXT: 23
  %o2_view = lego.group_by [6, 6](%o2) : !lego.layout
  %f6b = lego.apply %o2_view(%c4, %c2) : !lego.layout
  vector.print %f6b : index

  // Worked example 3: tile_by (order_by(row [8, 12])) tile_dims [[2, 4], [4, 3]]: apply(1, 2, 3, 1) = 91.
  %rows = lego.row [8, 12] : !lego.layout
  %matrix = lego.order_by(%rows) : !lego.layout
  %tiles = lego.tile_by %matrix tile_dims [[2, 4], [4, 3]] : !lego.layout
  // CHECK-NEXT: 91
  %f3 = lego.apply %tiles(%c1, %c2, %c3, %c1) : !lego.layout
  vector.print %f3 : index

  // Worked example 4: row [4, 8] apply(1, 2) = 10, col [4, 8] apply(1, 2) = 9.
  %row = lego.row [4, 8] : !lego.layout
  %col = lego.col [4, 8] : !lego.layout
  // CHECK-NEXT: 10
  // CHECK-NEXT: 9
  %r = lego.apply %row(%c1, %c2) : !lego.layout
  %c = lego.apply %col(%c1, %c2) : !lego.layout
  vector.print %r : index
  vector.print %c : index

  // Views: store 8·i + j at (i, j) of a column-major view of 32 words; word 9 holds element (1, 2) = 10.
  %buffer = memref.alloca() : memref<32xi64>
  %view = lego.cast_view %buffer, %col : memref<32xi64>, !lego.layout -> !lego.view<i64>
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %id = lego.apply %row(%i, %j) : !lego.layout
      %value = arith.index_cast %id : index to i64
      lego.store %value, %view[%i, %j] : i64, !lego.view<i64>, index, index
    }
  }
  %c9 = arith.constant 9 : index
  %word9 = memref.load %buffer[%c9] : memref<32xi64>
  // CHECK-NEXT: 10
  vector.print %word9 : i64
  // ... and loading (1, 2) through the view gives it back.
  // CHECK-NEXT: 10
  %back = lego.load %view[%c1, %c2] : !lego.view<i64>, index, index
  vector.print %back : i64
  return
}
