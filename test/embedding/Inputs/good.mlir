// The row-major layout of a 4 x 8 array: apply(i, j) = i * 8 + j.
func.func @row(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
