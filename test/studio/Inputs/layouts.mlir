// Layouts for test/studio/draw.test.
func.func @row_layout(%i: index, %j: index) -> index {
  %rows = lego.row [2, 3] : !lego.layout
  %r = lego.apply %rows(%i, %j) : !lego.layout
  return %r : index
}

func.func @col_layout(%i: index, %j: index) -> index {
  %cols = lego.col [2, 3] : !lego.layout
  %unused = lego.row [3, 2] : !lego.layout
  %r = lego.apply %cols(%i, %j) : !lego.layout
  return %r : index
}

// A 4 × 4 XOR swizzle: (i, j) ↦ 4·i + (j xor i).
func.func @swizzle(%i: index, %j: index) -> index {
  %s = lego.gen_p [4, 4] apply (%a: index, %b: index) {
    %c4 = arith.constant 4 : index
    %row = arith.muli %a, %c4 : index
    %col = arith.xori %b, %a : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } : !lego.layout
  %r = lego.apply %s(%i, %j) : !lego.layout
  return %r : index
}

func.func @runtime_size(%i: index, %n: index) -> index {
  %l = lego.row [4, %n] : !lego.layout
  %r = lego.apply %l(%i, %i) : !lego.layout
  return %r : index
}
