// lego-translate runs lego-lower first: docs/reference/semantics.md's worked example 1 (paper Fig. 2) through the whole path,
// the generated Python run by python3: apply(4, 1) = 6 and apply_inverse(6) = (4, 1).
// RUN: lego-translate --lego-to-python %examples/paper-fig2.mlir -o %t.py
// RUN: python3 -c "import importlib.util as u; s = u.spec_from_file_location('m', '%t.py'); m = u.module_from_spec(s); s.loader.exec_module(m); print(m.fig2(4, 1))" | FileCheck %s --check-prefix=FIG2
// FIG2: (6, 4, 1)
//
// The user's argument names survive; several results become a tuple (Python), out-parameters (C).
// RUN: lego-translate --lego-to-c %examples/paper-fig2.mlir | FileCheck %s --check-prefix=C
// C: #include <stdint.h>
// C: static inline void fig2(uint64_t i, uint64_t j, uint64_t *restrict r0, uint64_t *restrict r1, uint64_t *restrict r2) {
// With the published lowering form (docs/reference/lowering.md §2) lego-lower no longer folds this round trip
// apply_inverse(apply(i, j)) back to `i` (it did on the affine form; see the index-ops benchmark note in
// docs/passes/lego-arith-simplification.md); the values stay right (FIG2 above).
// C: *r1 = {{.*}};
//
// --no-lower on lego ops: the printers see a lego op and say so.
// RUN: not lego-translate --lego-to-rust --no-lower %examples/paper-fig2.mlir 2>&1 | FileCheck %s --check-prefix=NOLOWER
// NOLOWER: paper-fig2.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'lego.reg_p' op cannot be translated{{.*}}(translating to Rust)
//
// --split-input-file: each chunk translated alone, outputs joined by `// -----`.
// RUN: lego-translate --lego-to-js --split-input-file %s | FileCheck %s --check-prefix=SPLIT
// SPLIT: function first(a) {
// SPLIT: // -----
// SPLIT: function second(b) {
// SPLIT-NEXT: return b * 4;

func.func @first(%a: index) -> index {
  return %a : index
}

// -----

func.func @second(%b: index) -> index {
  %c4 = arith.constant 4 : index
  %r = arith.muli %b, %c4 : index
  return %r : index
}

// -----

// A negative constant added is printed as a subtraction (the same value in every language).
// SPLIT: function third(c) {
// SPLIT-NEXT: return c - 1;
func.func @third(%c: index) -> index {
  %m1 = arith.constant -1 : index
  %r = arith.addi %c, %m1 : index
  return %r : index
}
