func.func @f(%a: index) { %x = arith.addi %a, %y : index
  return
}
func.func @g() {
  return
}
