// The published printed spelling (docs/reference/syntax.md): no space between an op name or keyword and a following `[`,
// one space before `(` after `]` — `lego.row[`, `lego.col[`, `dims[`, `lego.group_by[…] (`, `lego.gen_p[`;
// `perm [`, `tile_dims [[`, `expand_by … dims [… ] to [`, `order_by(` as before. The parser accepts every
// spacing, and the round trip is exact (printing the printed text again changes nothing).
// RUN: lego-opt %s | FileCheck %s
// RUN: lego-opt %s > %t.once
// RUN: lego-opt %t.once > %t.twice
// RUN: diff %t.once %t.twice
// RUN: lego-opt %s --mlir-print-op-generic | lego-opt | diff %t.once -

// CHECK-LABEL: func.func @spellings
// CHECK-NEXT: %[[A:.*]] = lego.row[4, %arg0] : !lego.layout
// CHECK-NEXT: %[[B:.*]] = lego.row[4, %arg0] : !lego.layout
// CHECK-NEXT: %[[C:.*]] = lego.col[2, 2] : !lego.layout
// CHECK-NEXT: %[[D:.*]] = lego.reg_p perm [1, 0] dims[2, 2] : !lego.layout
// CHECK-NEXT: %[[E:.*]] = lego.reg_p perm [1, 0] dims[2, 2] : !lego.layout
// CHECK-NEXT: %[[O:.*]] = lego.order_by(%[[C]], %[[D]]) : !lego.layout
// CHECK-NEXT: %[[O2:.*]] = lego.order_by(%[[E]]) : !lego.layout
// CHECK-NEXT: lego.group_by[4, 4] (%[[O]]) : !lego.layout
// CHECK-NEXT: lego.group_by[16] (%[[O]], %[[O]]) : !lego.layout
// CHECK-NEXT: lego.group_by[%arg0] () : !lego.layout
// CHECK-NEXT: lego.tile_by %[[O2]] tile_dims {{\[\[}}2, 1], [1, 2]] : !lego.layout
// CHECK-NEXT: lego.expand_by %[[A]] dims [3, %arg0] to [4, %arg0] : !lego.layout
// CHECK-NEXT: lego.gen_p[4] apply (%{{.*}}: index) {
// CHECK: } : !lego.layout
// CHECK-NEXT: lego.gen_p[2, %arg0] apply (%{{.*}}: index, %{{.*}}: index) {
// CHECK: } inv (%{{.*}}: index) {
func.func @spellings(%n: index) {
  %a = lego.row [4, %n] : !lego.layout
  %b = lego.row[4, %n] : !lego.layout
  %c = lego.col   [2, 2] : !lego.layout
  %d = lego.reg_p perm[1, 0] dims[2, 2] : !lego.layout
  %e = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  %o = lego.order_by (%c, %d) : !lego.layout
  %o2 = lego.order_by(%e) : !lego.layout
  %g1 = lego.group_by [4, 4](%o) : !lego.layout
  %g2 = lego.group_by[16] (%o, %o) : !lego.layout
  %g3 = lego.group_by[%n]() : !lego.layout
  %t = lego.tile_by %o2 tile_dims[[2, 1], [1, 2]] : !lego.layout
  %x = lego.expand_by %a dims[3, %n] to[4, %n] : !lego.layout
  %p = lego.gen_p [4] apply (%i: index) {
    lego.yield %i : index
  } : !lego.layout
  %q = lego.gen_p[2, %n] apply (%i: index, %j: index) {
    %f = arith.muli %i, %n : index
    %s = arith.addi %f, %j : index
    lego.yield %s : index
  } inv (%f: index) {
    %i = arith.divui %f, %n : index
    %j = arith.remui %f, %n : index
    lego.yield %i, %j : index, index
  } : !lego.layout
  return
}
