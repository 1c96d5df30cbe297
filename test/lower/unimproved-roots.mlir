// docs/reference/lowering.md §3: where the simplifier finds nothing cheaper, `lego-lower` leaves a root exactly as
// `lego-to-arith` printed it (the same ops, operand order, `divui` before `remui`). Both runs check the same
// BOTH lines; the expected forms are §2's, derived by hand:
//   row [m, n] apply (i, j) = addi(j, muli(i, n));   row [m, n] inverse f = (divui f, n; remui f, n);
//   row [5, 6] inverse f = (divui f, 6; remui f, 6);  col [5, 6] apply (i, j) = addi(i, muli(j, 5)).
// The twin at the end is a root the simplifier does improve: there the two outputs differ.
// RUN: lego-opt %s --lego-to-arith | FileCheck %s --check-prefixes=BOTH,ARITH
// RUN: lego-opt %s --lego-lower | FileCheck %s --check-prefixes=BOTH,LOWER

// BOTH-LABEL: func.func @sym_row
// BOTH-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index) -> index {
// BOTH-NEXT: %[[S:.*]] = arith.muli %[[I]], %[[N]] : index
// BOTH-NEXT: %[[F:.*]] = arith.addi %[[J]], %[[S]] : index
// BOTH-NEXT: return %[[F]] : index
func.func @sym_row(%i: index, %j: index, %m: index, %n: index) -> index {
  %l = lego.row [%m, %n] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// BOTH-LABEL: func.func @sym_row_inverse
// BOTH-SAME: (%[[F:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index) -> (index, index) {
// BOTH-NEXT: %[[Q:.*]] = arith.divui %[[F]], %[[N]] : index
// BOTH-NEXT: %[[R:.*]] = arith.remui %[[F]], %[[N]] : index
// BOTH-NEXT: return %[[Q]], %[[R]] : index, index
func.func @sym_row_inverse(%f: index, %m: index, %n: index) -> (index, index) {
  %l = lego.row [%m, %n] : !lego.layout
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %i, %j : index, index
}

// BOTH-LABEL: func.func @static_row_inverse
// BOTH-SAME: (%[[F:.*]]: index) -> (index, index) {
// BOTH-NEXT: %[[C6:.*]] = arith.constant 6 : index
// BOTH-NEXT: %[[Q:.*]] = arith.divui %[[F]], %[[C6]] : index
// BOTH-NEXT: %[[R:.*]] = arith.remui %[[F]], %[[C6]] : index
// BOTH-NEXT: return %[[Q]], %[[R]] : index, index
func.func @static_row_inverse(%f: index) -> (index, index) {
  %l = lego.row [5, 6] : !lego.layout
  %i, %j = lego.apply_inverse %l(%f) : !lego.layout -> index, index
  return %i, %j : index, index
}

// BOTH-LABEL: func.func @static_col
// BOTH-SAME: (%[[I:.*]]: index, %[[J:.*]]: index) -> index {
// BOTH-NEXT: %[[C5:.*]] = arith.constant 5 : index
// BOTH-NEXT: %[[S:.*]] = arith.muli %[[J]], %[[C5]] : index
// BOTH-NEXT: %[[F:.*]] = arith.addi %[[I]], %[[S]] : index
// BOTH-NEXT: return %[[F]] : index
func.func @static_col(%i: index, %j: index) -> index {
  %l = lego.col [5, 6] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}

// Twin: row [m, n, p] apply (i, j, k). lego-to-arith: k + j·p + i·(p·n) (the stride chain p·n, §2);
// lego-lower factors it to Horner form (i·n + j)·p + k, one multiplication less.
// BOTH-LABEL: func.func @sym_row3
// BOTH-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[K:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[P:.*]]: index) -> index {
// ARITH-NEXT: %[[JP:.*]] = arith.muli %[[J]], %[[P]] : index
// ARITH-NEXT: %[[A:.*]] = arith.addi %[[K]], %[[JP]] : index
// ARITH-NEXT: %[[PN:.*]] = arith.muli %[[P]], %[[N]] : index
// ARITH-NEXT: %[[IPN:.*]] = arith.muli %[[I]], %[[PN]] : index
// ARITH-NEXT: %[[F:.*]] = arith.addi %[[A]], %[[IPN]] : index
// ARITH-NEXT: return %[[F]] : index
// LOWER-NEXT: %[[IN:.*]] = arith.muli %[[I]], %[[N]] : index
// LOWER-NEXT: %[[A:.*]] = arith.addi %[[IN]], %[[J]] : index
// LOWER-NEXT: %[[AP:.*]] = arith.muli %[[A]], %[[P]] : index
// LOWER-NEXT: %[[F:.*]] = arith.addi %[[AP]], %[[K]] : index
// LOWER-NEXT: return %[[F]] : index
func.func @sym_row3(%i: index, %j: index, %k: index, %m: index, %n: index, %p: index) -> index {
  %l = lego.row [%m, %n, %p] : !lego.layout
  %f = lego.apply %l(%i, %j, %k) : !lego.layout
  return %f : index
}
