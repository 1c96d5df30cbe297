// lego-to-arith on `lego.apply`, one function per layout constructor, in the published op form
// (docs/reference/lowering.md §2): plain unsigned arith, flatten innermost-first as addi(acc, muli(i_k, stride)),
// unflatten divui-before-remui, order_by by Horner's rule; constants folded, uniqued and hoisted (§0);
// no affine op and no lego op remains. Expected lines derived by hand from §2.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s

// row [4, n] (i, j): j + i·n. SSA sizes are used directly as operands.
// CHECK-LABEL: func.func @row
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %[[N]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: return %[[F]]
func.func @row(%i: index, %j: index, %n: index) -> index {
  %l = lego.row [4, %n] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// col [4, 8, 2] (i, j, k) = flatten((k, j, i) over (2, 8, 4)): i + j·4 + k·32.
// CHECK-LABEL: func.func @col
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[S1:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[I]], %[[S1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[K]], %[[C32]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[A1]], %[[S2]] : index
// CHECK-NEXT: return %[[F]]
func.func @col(%i: index, %j: index, %k: index) -> index {
  %l = lego.col [4, 8, 2] : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// reg_p perm [1, 2, 0] dims [3, m, 5] (i, j, k) = flatten((j, k, i) over (m, 5, 3)): i + k·3 + j·15.
// CHECK-LABEL: func.func @reg_p
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index, %[[M:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK: %[[S1:.*]] = arith.muli %[[K]], %[[C3]] : index
// CHECK-NEXT: %[[A1:.*]] = arith.addi %[[I]], %[[S1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[J]], %[[C15]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[A1]], %[[S2]] : index
// CHECK-NEXT: return %[[F]]
func.func @reg_p(%i: index, %j: index, %k: index, %m: index) -> index {
  %l = lego.reg_p perm [1, 2, 0] dims [3, %m, 5] : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// gen_p: the apply region is inlined with its arguments bound to the indices.
// CHECK-LABEL: func.func @gen_p
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[C]], %[[I]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[R]], %[[C]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[S]], %[[J]] : index
// CHECK-NEXT: return %[[F]]
func.func @gen_p(%i: index, %j: index) -> index {
  %l = lego.gen_p [4, 3] apply (%a: index, %b: index) {
    %c3 = arith.constant 3 : index
    %r = arith.subi %c3, %a : index
    %s = arith.muli %r, %c3 : index
    %f = arith.addi %s, %b : index
    lego.yield %f : index
  } : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// order_by(row [3], col [n, 2]) (i, j, k), Horner: addi(muli(i, numel(P2)), apply(P2, (j, k))) with
// numel(P2) = n·2 (the constant moved right by the folder) and apply(P2, (j, k)) = j + k·n.
// CHECK-LABEL: func.func @order_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index, %[[N:.*]]: index)
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[NUMEL:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.muli %[[I]], %[[NUMEL]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[K]], %[[N]] : index
// CHECK-NEXT: %[[P2:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[HI]], %[[P2]] : index
// CHECK-NEXT: return %[[F]]
func.func @order_by(%i: index, %j: index, %k: index, %n: index) -> index {
  %a = lego.row [3] : !lego.layout
  %b = lego.col [%n, 2] : !lego.layout
  %l = lego.order_by(%a, %b) : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}

// group_by [6, 4](O1, O2): x = flatten((i, j), (6, 4)), then the objects last to first:
// x = apply(O, unflatten(x, dims(O))) — O2 = col [4, 6]: (u0, u1) = (x div 6, x mod 6), u0 + u1·4; O1 =
// reg_p perm [0, 2, 1] dims [2, 3, 4]: (a, b, c) = (y div 12, (y mod 12) div 4, (y mod 12) mod 4),
// flatten((a, c, b), (2, 4, 3)) = b + c·3 + a·12. No shortcut: the round trips stay.
// CHECK-LABEL: func.func @group_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[S0:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[J]], %[[S0]] : index
// CHECK-NEXT: %[[U0:.*]] = arith.divui %[[X]], %[[C6]] : index
// CHECK-NEXT: %[[U1:.*]] = arith.remui %[[X]], %[[C6]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[U1]], %[[C4]] : index
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[U0]], %[[S1]] : index
// CHECK-NEXT: %[[A:.*]] = arith.divui %[[Y]], %[[C12]] : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[Y]], %[[C12]] : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[R]], %[[C4]] : index
// CHECK-NEXT: %[[C:.*]] = arith.remui %[[R]], %[[C4]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[C]], %[[C3]] : index
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[B]], %[[S2]] : index
// CHECK-NEXT: %[[S3:.*]] = arith.muli %[[A]], %[[C12]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[Z]], %[[S3]] : index
// CHECK-NEXT: return %[[F]]
func.func @group_by(%i: index, %j: index) -> index {
  %o1 = lego.reg_p perm [0, 2, 1] dims [2, 3, 4] : !lego.layout
  %o2 = lego.col [4, 6] : !lego.layout
  %l = lego.group_by [6, 4](%o1, %o2) : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// tile_by L tile_dims [a⃗, b⃗] (without normalization): c_k = flatten((a-level, b-level index), (a_k, b_k)),
// then apply(L, c⃗): c0 = i + ti·bm, c1 = k + tk·3, c1 + c0·12.
// CHECK-LABEL: func.func @tile_by
// CHECK-SAME: (%[[TI:.*]]: index, %[[TK:.*]]: index, %[[I:.*]]: index, %[[K:.*]]: index, %[[BM:.*]]: index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[S0:.*]] = arith.muli %[[TI]], %[[BM]] : index
// CHECK-NEXT: %[[X0:.*]] = arith.addi %[[I]], %[[S0]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[TK]], %[[C3]] : index
// CHECK-NEXT: %[[X1:.*]] = arith.addi %[[K]], %[[S1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[X0]], %[[C12]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[X1]], %[[S2]] : index
// CHECK-NEXT: return %[[F]]
func.func @tile_by(%ti: index, %tk: index, %i: index, %k: index, %bm: index) -> index {
  %r = lego.row [8, 12] : !lego.layout
  %o = lego.order_by(%r) : !lego.layout
  %t = lego.tile_by %o tile_dims [[2, 4], [%bm, 3]] : !lego.layout
  %f = lego.apply %t(%ti, %tk, %i, %k) : !lego.layout
  return %f : index
}

// expand_by L dims n⃗ to m⃗: x = apply(L, s⃗), j⃗ = unflatten(x, m⃗); flatten(j⃗, n⃗) if every j_k < n_k,
// else -1 (our extension). Dims equal to their expanded size need no comparison.
// CHECK-LABEL: func.func @expand_by
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index)
// CHECK-DAG: %[[NONE:.*]] = arith.constant -1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[S:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: %[[U0:.*]] = arith.divui %[[X]], %[[C8]] : index
// CHECK-NEXT: %[[U1:.*]] = arith.remui %[[X]], %[[C8]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.muli %[[U0]], %[[C5]] : index
// CHECK-NEXT: %[[CAND:.*]] = arith.addi %[[U1]], %[[S2]] : index
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi ult, %[[U0]], %[[C3]] : index
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[U1]], %[[C5]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK-NEXT: %[[F:.*]] = arith.select %[[IN]], %[[CAND]], %[[NONE]] : index
// CHECK-NEXT: return %[[F]]
func.func @expand_by(%i: index, %j: index) -> index {
  %r = lego.row [4, 8] : !lego.layout
  %e = lego.expand_by %r dims [3, 5] to [4, 8] : !lego.layout
  %f = lego.apply %e(%i, %j) : !lego.layout
  return %f : index
}

// A layout used several times (and inside scf.for): each use gets its own arithmetic, the layout ops go.
// apply(i, 1) = 1 + i·4 (the folder puts the constant on the right); apply(0, i) = i + 0·4 folds to i.
// Constants are hoisted out of the loop to the function's entry block.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[IV:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[C0]])
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[IV]], %[[C4]] : index
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[S]], %[[C1]] : index
// CHECK-NEXT: %[[FG:.*]] = arith.addi %[[F]], %[[IV]] : index
// CHECK-NOT: lego.
// CHECK-NOT: arith.constant
// CHECK: return
func.func @reuse(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = lego.row [%n, 4] : !lego.layout
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %f = lego.apply %l(%i, %c1) : !lego.layout
    %g = lego.apply %l(%c0, %i) : !lego.layout
    %s = arith.addi %f, %g : index
    %t = arith.addi %acc, %s : index
    scf.yield %t : index
  }
  return %sum : index
}
