// The arithmetic model of docs/reference/semantics.md in lego-arith-simplification (docs/reference/lowering.md §4), on bare function
// arguments (no assume_bounds): division by zero is undefined, so wherever the program divides by d, d ≠ 0 and
// x remui d < d hold (always); with assume-no-wrap=true (the default) index arithmetic does not wrap, so the
// Table II rules need no range proof. With assume-no-wrap=false every no-wrap side condition must be proved
// under 64-bit wrap-around, which bare arguments do not allow: those functions stay as written.
// RUN: lego-opt %s --split-input-file --lego-arith-simplification | FileCheck %s --check-prefix=WRAPFREE
// RUN: lego-opt %s --split-input-file --lego-arith-simplification='assume-no-wrap=false' | FileCheck %s --check-prefix=WRAP

// (10q + r) mod 10 → r mod 10.
// WRAPFREE-LABEL: func.func @rem_of_sum
// WRAPFREE-SAME: (%{{.*}}: index, %[[R:.*]]: index)
// WRAPFREE-DAG: %[[C10:.*]] = arith.constant 10 : index
// WRAPFREE: %[[X:.*]] = arith.remui %[[R]], %[[C10]] : index
// WRAPFREE-NEXT: return %[[X]]
// WRAP-LABEL: func.func @rem_of_sum
// WRAP: arith.muli
// WRAP: arith.addi
// WRAP: arith.remui
func.func @rem_of_sum(%q: index, %r: index) -> index {
  %c10 = arith.constant 10 : index
  %m = arith.muli %q, %c10 : index
  %s = arith.addi %m, %r : index
  %x = arith.remui %s, %c10 : index
  return %x : index
}

// -----

// (10q + r mod 10) div 10 → q.
// WRAPFREE-LABEL: func.func @div_of_sum_rem
// WRAPFREE-SAME: (%[[Q:.*]]: index, %{{.*}}: index)
// WRAPFREE-NEXT: return %[[Q]]
// WRAP-LABEL: func.func @div_of_sum_rem
// WRAP: arith.divui
func.func @div_of_sum_rem(%q: index, %r: index) -> index {
  %c10 = arith.constant 10 : index
  %m = arith.muli %q, %c10 : index
  %rr = arith.remui %r, %c10 : index
  %s = arith.addi %m, %rr : index
  %x = arith.divui %s, %c10 : index
  return %x : index
}

// -----

// (r + 20) div 10 → r div 10 + 2 (equal cost; the published rewrite takes the constant quotient out).
// WRAPFREE-LABEL: func.func @div_plus_const
// WRAPFREE-SAME: (%[[R:.*]]: index)
// WRAPFREE-DAG: %[[C2:.*]] = arith.constant 2 : index
// WRAPFREE-DAG: %[[C10:.*]] = arith.constant 10 : index
// WRAPFREE: %[[D:.*]] = arith.divui %[[R]], %[[C10]] : index
// WRAPFREE-NEXT: %[[S:.*]] = arith.addi %[[D]], %[[C2]] : index
// WRAPFREE-NEXT: return %[[S]]
// WRAP-LABEL: func.func @div_plus_const
// WRAP-SAME: (%[[R:.*]]: index)
// WRAP: %[[S:.*]] = arith.addi %[[R]], %{{.*}} : index
// WRAP-NEXT: arith.divui %[[S]], %{{.*}} : index
func.func @div_plus_const(%r: index) -> index {
  %c10 = arith.constant 10 : index
  %c20 = arith.constant 20 : index
  %s = arith.addi %r, %c20 : index
  %x = arith.divui %s, %c10 : index
  return %x : index
}

// -----

// (10q + r) div 10 → q + r div 10.
// WRAPFREE-LABEL: func.func @div_of_sum
// WRAPFREE-SAME: (%[[Q:.*]]: index, %[[R:.*]]: index)
// WRAPFREE-NOT: arith.muli
// WRAPFREE: %[[D:.*]] = arith.divui %[[R]], %{{.*}} : index
// WRAPFREE-NEXT: %[[S:.*]] = arith.addi %[[Q]], %[[D]] : index
// WRAPFREE-NEXT: return %[[S]]
// WRAP-LABEL: func.func @div_of_sum
// WRAP: arith.muli
func.func @div_of_sum(%q: index, %r: index) -> index {
  %c10 = arith.constant 10 : index
  %m = arith.muli %q, %c10 : index
  %s = arith.addi %m, %r : index
  %x = arith.divui %s, %c10 : index
  return %x : index
}

// -----

// Mixed radix: (a mod n)·m + b mod m < n·m, so its div by n·m is 0 and its rem by n·m is itself.
// WRAPFREE-LABEL: func.func @mixed_radix
// WRAPFREE-SAME: (%[[A:.*]]: index, %[[B:.*]]: index, %[[N:.*]]: index, %[[M:.*]]: index)
// WRAPFREE-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// WRAPFREE-DAG: %[[AN:.*]] = arith.remui %[[A]], %[[N]] : index
// WRAPFREE-DAG: %[[BM:.*]] = arith.remui %[[B]], %[[M]] : index
// WRAPFREE: %[[T:.*]] = arith.muli %[[AN]], %[[M]] : index
// WRAPFREE-NEXT: %[[S:.*]] = arith.addi %[[T]], %[[BM]] : index
// WRAPFREE-NEXT: return %[[ZERO]], %[[S]]
// WRAP-LABEL: func.func @mixed_radix
// WRAP: arith.divui
// WRAP: arith.remui %{{.*}}, %{{.*}} : index
func.func @mixed_radix(%a: index, %b: index, %n: index, %m: index) -> (index, index) {
  %an = arith.remui %a, %n : index
  %bm = arith.remui %b, %m : index
  %t = arith.muli %an, %m : index
  %s = arith.addi %t, %bm : index
  %nm = arith.muli %n, %m : index
  %q = arith.divui %s, %nm : index
  %r = arith.remui %s, %nm : index
  return %q, %r : index, index
}

// -----

// (x div d)·d + x mod d → x.
// WRAPFREE-LABEL: func.func @div_rem_merge
// WRAPFREE-SAME: (%[[X:.*]]: index, %{{.*}}: index)
// WRAPFREE-NEXT: return %[[X]]
// WRAP-LABEL: func.func @div_rem_merge
// WRAP-SAME: (%[[X:.*]]: index, %{{.*}}: index)
// WRAP-NEXT: return %[[X]]
func.func @div_rem_merge(%x: index, %d: index) -> index {
  %q = arith.divui %x, %d : index
  %m = arith.muli %q, %d : index
  %r = arith.remui %x, %d : index
  %s = arith.addi %m, %r : index
  return %s : index
}

// -----

// Division by zero is undefined, whatever assume-no-wrap says: (x mod d) mod d → x mod d, (x mod d) div d → 0.
// WRAPFREE-LABEL: func.func @rem_rem
// WRAPFREE-SAME: (%[[X:.*]]: index, %[[D:.*]]: index)
// WRAPFREE-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// WRAPFREE-DAG: %[[R:.*]] = arith.remui %[[X]], %[[D]] : index
// WRAPFREE-NOT: arith.remui
// WRAPFREE-NOT: arith.divui
// WRAPFREE: return %[[R]], %[[ZERO]]
// WRAP-LABEL: func.func @rem_rem
// WRAP-SAME: (%[[X:.*]]: index, %[[D:.*]]: index)
// WRAP-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// WRAP-DAG: %[[R:.*]] = arith.remui %[[X]], %[[D]] : index
// WRAP-NOT: arith.remui
// WRAP-NOT: arith.divui
// WRAP: return %[[R]], %[[ZERO]]
func.func @rem_rem(%x: index, %d: index) -> (index, index) {
  %r = arith.remui %x, %d : index
  %rr = arith.remui %r, %d : index
  %q = arith.divui %r, %d : index
  return %rr, %q : index, index
}
