func.func @f(%a: index) -> index { %b = affine.apply affine_map<(d0) -> (d0 mod 0)>(%a)
  return %b : index
}
func.func @g(%c: index) {
  return
}
