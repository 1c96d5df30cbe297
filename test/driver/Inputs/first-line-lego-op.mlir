func.func @f(%i: index) -> index { %l = lego.row [4, 0] : !lego.layout
  %r = lego.apply %l(%i, %i) : !lego.layout
  return %r : index
}
func.func @g() {
  return
}
