// A layout with symbolic sizes, a permutation, a gen_p with an inverse, group_by and tile_by: input of
// lego-lower-deterministic.test (many simplifier candidates whose order must not depend on hashing).
func.func @f(%n: index, %m: index, %i: index, %j: index, %k: index, %l: index) -> (index, index, index) {
  %r = lego.row [%n, 8] : !lego.layout
  %p = lego.reg_p perm [1, 0] dims [4, %m] : !lego.layout
  %g = lego.gen_p [4, 4] apply (%a: index, %b: index) {
    %c4 = arith.constant 4 : index
    %x = arith.xori %a, %b : index
    %y = arith.muli %a, %c4 : index
    %f = arith.addi %y, %x : index
    lego.yield %f : index
  } inv (%f: index) {
    %c4 = arith.constant 4 : index
    %a = arith.divui %f, %c4 : index
    %x = arith.remui %f, %c4 : index
    %b = arith.xori %a, %x : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %o = lego.order_by(%r, %p) : !lego.layout
  %t = lego.order_by(%g) : !lego.layout
  %tiled = lego.tile_by %t tile_dims [[2, 2], [2, 2]] : !lego.layout
  %f1 = lego.apply %o(%i, %j, %k, %l) : !lego.layout
  %f2 = lego.apply %tiled(%i, %j, %k, %l) : !lego.layout
  %q1, %q2, %q3, %q4 = lego.apply_inverse %o(%f1) : !lego.layout -> index, index, index, index
  %s = arith.addi %q1, %q4 : index
  return %f1, %f2, %s : index, index, index
}
