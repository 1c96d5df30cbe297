// The LEGO paper's Fig. 2 layout: group_by [6, 4](order_by(reg_p perm [1, 0] dims [2, 2], rev(3, 2))).
// docs/reference/semantics.md, worked example 1: apply(4, 1) = 6 and apply_inverse(6) = (4, 1).
//
//   lego-opt examples/paper-fig2.mlir                 # parse, verify, print back (custom syntax)
//   lego-opt examples/paper-fig2.mlir --lego-lower    # exact index arithmetic

func.func @fig2(%i: index, %j: index) -> (index, index, index) {
  %swap = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout
  // rev(3, 2): f(i, j) = (3-1-i)·2 + (2-1-j); inverse g(x) = (3-1 - x div 2, 2-1 - x mod 2).
  %rev = lego.gen_p [3, 2] apply (%a: index, %b: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ra = arith.subi %c2, %a : index
    %rb = arith.subi %c1, %b : index
    %row = arith.muli %ra, %c2 : index
    %f = arith.addi %row, %rb : index
    lego.yield %f : index
  } inv (%x: index) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %q = arith.divui %x, %c2 : index
    %r = arith.remui %x, %c2 : index
    %a = arith.subi %c2, %q : index
    %b = arith.subi %c1, %r : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %order = lego.order_by(%swap, %rev) : !lego.layout
  %layout = lego.group_by [6, 4](%order) : !lego.layout
  %flat = lego.apply %layout(%i, %j) : !lego.layout
  %i2, %j2 = lego.apply_inverse %layout(%flat) : !lego.layout -> index, index
  return %flat, %i2, %j2 : index, index, index
}
