// Size consistency as a fact (issue 25): Triton's grouped program-id order written as a LEGO inverse,
// OrderBy(Col(max(npm / GM, 1), 1), Col(min(GM, npm), npn)).TileBy([npm, npn]) inverted at pid. With
// rows = max(npm div GM, 1) and w = min(GM, npm), the inverse (semantics.md, tile_by) is
//   i = ((pid div (w·npn)) rem rows)·w + pid rem w,   j = (pid div w) rem npn
// (the order_by's block-major split, then the two dims regrouped). The symbolic-size contract says the
// layout's sizes are consistent — rows·w = npm (dim 0), 1·npn = npn (dim 1) — and the layout contract says
// pid < npm·npn = rows·w·npn, so pid div (w·npn) < rows and its remainder by rows is redundant:
//   i = (pid div (w·npn))·w + pid rem w: 8 computing ops (minui, 2 muli, addi, 2 divui, 2 remui), 4 of
//   them divisions or remainders; rows (divui, maxui) is no longer used. (The published tool: 9 and 4.)
// The twin is the same arithmetic written out with the same facts and no layout: nothing ties rows·w to
// npm (npm = 5, GM = 2: rows·w = 4), so the remainder by rows stays.
// RUN: lego-opt %s --split-input-file --lego-lower | FileCheck %s
// RUN: lego-opt %s --split-input-file --lego-lower | sed -n '/func.func @grouped_pid(/,/return/p' | grep -cE '= arith\.' | FileCheck %s --check-prefix=OPS
// RUN: lego-opt %s --split-input-file --lego-lower | sed -n '/func.func @grouped_pid(/,/return/p' | grep -cE '= arith\.(divui|remui)' | FileCheck %s --check-prefix=DIVREM
// Translation validation proves the rewrite, the consistency premise included (sizes below 2^15 here, where
// Z3 decides it): no warning, the same form.
// (Only the last function is validated: without upper bounds on the sizes Z3 does not decide this goal, nor
// the other rewrites of these inverses, within its resource limit.)
// RUN: sed -n '/^func.func @grouped_pid_bounded/,$p' %s | lego-opt --pass-pipeline='builtin.module(lego-normalization{fold=true}, lego-to-arith{assume-bounds=true}, canonicalize, cse, lego-arith-simplification{verify-rewrites=true})' 2>&1 | FileCheck %s --check-prefix=VERIFY

// OPS: {{^}}8{{$}}
// DIVREM: {{^}}4{{$}}

// CHECK-LABEL: func.func @grouped_pid(
// CHECK-SAME: %[[PID:[^:]*]]: index, %[[NPM:[^:]*]]: index, %[[NPN:[^:]*]]: index, %[[GM:[^:]*]]: index)
// CHECK-NOT: maxui
// CHECK-DAG: %[[W:.*]] = arith.minui %[[GM]], %[[NPM]] : index
// CHECK-DAG: %[[WN:.*]] = arith.muli %[[W]], %[[NPN]] : index
// CHECK-DAG: %[[G:.*]] = arith.divui %[[PID]], %[[WN]] : index
// CHECK-DAG: %[[GW:.*]] = arith.muli %[[W]], %[[G]] : index
// CHECK-DAG: %[[IN:.*]] = arith.remui %[[PID]], %[[W]] : index
// CHECK-DAG: %[[I:.*]] = arith.addi %[[GW]], %[[IN]] : index
// CHECK-DAG: %[[PW:.*]] = arith.divui %[[PID]], %[[W]] : index
// CHECK-DAG: %[[J:.*]] = arith.remui %[[PW]], %[[NPN]] : index
// CHECK-NOT: maxui
// CHECK: return %[[I]], %[[J]] : index, index
func.func @grouped_pid(%pid: index, %npm: index, %npn: index, %gm: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  lego.assume_bounds %npm lb : %c1
  lego.assume_bounds %npn lb : %c1
  lego.assume_bounds %gm lb : %c1
  %q = arith.divui %npm, %gm : index
  %rows = arith.maxui %q, %c1 : index
  %width = arith.minui %gm, %npm : index
  %a = lego.col [%rows, 1] : !lego.layout
  %b = lego.col [%width, %npn] : !lego.layout
  %o = lego.order_by(%a, %b) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%npm, %npn]] : !lego.layout
  %i, %j = lego.apply_inverse %l(%pid) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

// CHECK-LABEL: func.func @untied(
// CHECK-SAME: %[[PID:[^:]*]]: index, %[[NPM:[^:]*]]: index, %[[NPN:[^:]*]]: index, %[[GM:[^:]*]]: index)
// CHECK-DAG: %[[Q:.*]] = arith.divui %[[NPM]], %[[GM]] : index
// CHECK-DAG: %[[ROWS:.*]] = arith.maxui %[[Q]], %{{.*}} : index
// CHECK-DAG: %[[W:.*]] = arith.minui %[[GM]], %[[NPM]] : index
// CHECK-DAG: %[[WN:.*]] = arith.muli %[[W]], %[[NPN]] : index
// CHECK-DAG: %[[G:.*]] = arith.divui %[[PID]], %[[WN]] : index
// CHECK-DAG: %[[ROW:.*]] = arith.remui %[[G]], %[[ROWS]] : index
// CHECK: return
func.func @untied(%pid: index, %npm: index, %npn: index, %gm: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  lego.assume_bounds %npm lb : %c1
  lego.assume_bounds %npn lb : %c1
  lego.assume_bounds %gm lb : %c1
  %size = arith.muli %npm, %npn : index
  lego.assume_bounds %pid ub : %size
  %q = arith.divui %npm, %gm : index
  %rows = arith.maxui %q, %c1 : index
  %width = arith.minui %gm, %npm : index
  %wn = arith.muli %width, %npn : index
  %low = arith.remui %pid, %wn : index
  %group = arith.divui %pid, %wn : index
  %j = arith.divui %low, %width : index
  %in = arith.remui %low, %width : index
  %row = arith.remui %group, %rows : index
  %scaled = arith.muli %row, %width : index
  %i = arith.addi %in, %scaled : index
  return %i, %j : index, index
}

// -----

// VERIFY-NOT: warning
// VERIFY-NOT: error
// VERIFY-LABEL: func.func @grouped_pid_bounded
// VERIFY: %[[ROWS:.*]] = arith.maxui
// VERIFY-NOT: arith.remui %{{.*}}, %[[ROWS]] :
// VERIFY: return
// CHECK-LABEL: func.func @grouped_pid_bounded
// CHECK-NOT: maxui
// CHECK: return
func.func @grouped_pid_bounded(%pid: index, %npm: index, %npn: index, %gm: index) -> (index, index) {
  %c1 = arith.constant 1 : index
  %lim = arith.constant 32768 : index
  lego.assume_bounds %npm lb : %c1 ub : %lim
  lego.assume_bounds %npn lb : %c1 ub : %lim
  lego.assume_bounds %gm lb : %c1 ub : %lim
  %q = arith.divui %npm, %gm : index
  %rows = arith.maxui %q, %c1 : index
  %width = arith.minui %gm, %npm : index
  %a = lego.col [%rows, 1] : !lego.layout
  %b = lego.col [%width, %npn] : !lego.layout
  %o = lego.order_by(%a, %b) : !lego.layout
  %l = lego.tile_by %o tile_dims [[%npm, %npn]] : !lego.layout
  %i, %j = lego.apply_inverse %l(%pid) : !lego.layout -> index, index
  return %i, %j : index, index
}
