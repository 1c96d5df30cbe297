// The twin of ../trailing-tokens.mlir: a comment after a custom op, and a region closed on the op's line.
func.func @f(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout // rows of 8
  %r = lego.apply %l(%i, %j) : !lego.layout
  return %r : index
}
func.func @g(%i: index) -> index {
  %l = lego.gen_p [4] apply (%a: index) { lego.yield %a : index } inv (%x: index) { lego.yield %x : index } : !lego.layout
  %r = lego.apply %l(%i) : !lego.layout
  return %r : index
}
