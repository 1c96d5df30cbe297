#map = affine_map<(d0) -> (d0 mod 0)>
func.func @f(%a: index) -> index { %b = affine.apply #map(%a)
  return %b : index
}
func.func @g() {
  return
}
