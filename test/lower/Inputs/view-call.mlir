func.func private @callee(%v: !lego.view<f32>, %i: index) -> f32 {
  %x = lego.load %v[%i] : !lego.view<f32>, index
  return %x : f32
}
func.func @caller(%m: memref<8xf32>, %i: index) -> f32 {
  %l = lego.row [8] : !lego.layout
  %v = lego.cast_view %m, %l : memref<8xf32>, !lego.layout -> !lego.view<f32>
  %x = func.call @callee(%v, %i) : (!lego.view<f32>, index) -> f32
  return %x : f32
}
