func.func @f(%a: index) -> i32 { return %a : index }
func.func @g() {
  return
}
