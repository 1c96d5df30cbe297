// A module with no GPU code (input of the GPU pipelines' error tests).
func.func @scale(%x: index) -> index {
  %rows = lego.row [4, 8] : !lego.layout
  %c2 = arith.constant 2 : index
  %flat = lego.apply %rows(%x, %c2) : !lego.layout
  return %flat : index
}
