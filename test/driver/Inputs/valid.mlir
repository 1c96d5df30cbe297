func.func @f(%i: index, %j: index) -> index {
  %l = lego.row [4, 8] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
