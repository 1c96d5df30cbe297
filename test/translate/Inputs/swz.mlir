// An 8 x 8 XOR swizzle: apply(i, j) = i * 8 + (j xor (i mod 8)); its inverse; and a symbolic row's inverse.
// lego-lower assumes i < 8 and drops the `mod 8`: out of the domain the generated code computes something else
// (swz(40, 0) = 360, the gen_p's own arithmetic says 320).
func.func @swz(%i: index, %j: index) -> index {
  %l = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %m = arith.remui %a, %c8 : index
    %x = arith.xori %b, %m : index
    %row = arith.muli %a, %c8 : index
    %f = arith.addi %row, %x : index
    lego.yield %f : index
  } inv (%f: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %f, %c8 : index
    %m = arith.remui %f, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %y = lego.apply %l(%i, %j) : !lego.layout
  return %y : index
}

func.func @unswz(%pos: index) -> (index, index) {
  %l = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %m = arith.remui %a, %c8 : index
    %x = arith.xori %b, %m : index
    %row = arith.muli %a, %c8 : index
    %f = arith.addi %row, %x : index
    lego.yield %f : index
  } inv (%f: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %f, %c8 : index
    %m = arith.remui %f, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %i, %j = lego.apply_inverse %l(%pos) : !lego.layout -> index, index
  return %i, %j : index, index
}

func.func @sym_inverse(%pos: index, %n: index, %m: index) -> (index, index) {
  %l = lego.row [%n, %m] : !lego.layout
  %a, %b = lego.apply_inverse %l(%pos) : !lego.layout -> index, index
  return %a, %b : index, index
}
