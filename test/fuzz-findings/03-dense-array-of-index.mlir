// Finding 03: upstream's `array<index: ...>` parsing asks `index` for its bit width and crashes
// (docs/known-upstream-bugs.md); reached through lego's generic form. Our syntax layer rejects the element
// type with a located error; i64 (the documented element type) still works. Bound: 60 s.
// RUN: %outcome --timeout 60 --expect error -- lego-opt %s --split-input-file | FileCheck %s
// CHECK: outcome: error
func.func @f() -> !lego.layout {
  // CHECK: 03-dense-array-of-index.mlir:[[@LINE+1]]:43: error: dense array element type must be an integer or floating-point type, found 'index'
  %0 = "lego.row"() <{static_dims = array<index: 4>}> : () -> !lego.layout
  return %0 : !lego.layout
}

// -----

// Through a type alias, spaced, in an attribute of an upstream op.
!i = index
func.func @g() {
  // CHECK: 03-dense-array-of-index.mlir:[[@LINE+1]]:46: error: dense array element type must be an integer or floating-point type, found '!i'
  "test.op"() {a = array<i64: 1>, b = array <!i>} : () -> ()
  return
}

// -----

// CHECK-NOT: error:
// CHECK: lego.row[4]
func.func @ok() -> !lego.layout {
  %0 = "lego.row"() {static_dims = array<i64: 4>} : () -> !lego.layout
  return %0 : !lego.layout
}
