// A typical layout for the server's load test and benchmark (bench/studio): a 64 × 64 matrix as 8 × 8 tiles in
// row-major order, each tile XOR-swizzled (a gen_p), grouped back to 64 × 64; apply and its inverse.
func.func @tiled_swizzle(%i: index, %j: index) -> (index, index, index) {
  %tile = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %row = arith.muli %a, %c8 : index
    %col = arith.xori %b, %a : index
    %f = arith.addi %row, %col : index
    lego.yield %f : index
  } inv (%x: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %x, %c8 : index
    %r = arith.remui %x, %c8 : index
    %b = arith.xori %r, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %tiles = lego.row [8, 8] : !lego.layout
  %order = lego.order_by(%tiles, %tile) : !lego.layout
  %layout = lego.group_by [64, 64](%order) : !lego.layout
  %flat = lego.apply %layout(%i, %j) : !lego.layout
  %i2, %j2 = lego.apply_inverse %layout(%flat) : !lego.layout -> index, index
  return %flat, %i2, %j2 : index, index, index
}
