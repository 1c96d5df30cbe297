// Already-lowered index arithmetic covering every op the printers take (lego-translate --no-lower).
func.func @every_op(%i: index, %j: index, %n: index) -> index {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %all = arith.constant -1 : index
  %0 = arith.muli %i, %c12 : index
  %1 = arith.addi %0, %j : index
  %2 = arith.subi %1, %c1 : index
  %3 = arith.divui %2, %n : index
  %4 = arith.remui %2, %n : index
  %5 = arith.ceildivui %3, %c3 : index
  %6 = arith.shli %4, %c3 : index
  %7 = arith.shrui %6, %c1 : index
  %8 = arith.andi %7, %c12 : index
  %9 = arith.ori %8, %5 : index
  %10 = arith.xori %9, %c3 : index
  %11 = arith.minui %10, %n : index
  %12 = arith.maxui %11, %c1 : index
  %13 = arith.divsi %12, %c3 : index
  %14 = arith.remsi %13, %c3 : index
  %15 = arith.floordivsi %14, %c3 : index
  %16 = arith.shrsi %15, %c1 : index
  %p = arith.cmpi ult, %16, %n : index
  %q = arith.cmpi slt, %i, %j : index
  %pq = arith.andi %p, %q : i1
  %17 = arith.select %pq, %16, %all : index
  return %17 : index
}

func.func @structured(%x: index, %n: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 10000000000 : index
  %zero = arith.cmpi eq, %n, %c0 : index
  %r:2 = scf.if %zero -> (index, index) {
    scf.yield %c0, %big : index, index
  } else {
    %q = arith.divui %x, %n : index
    %r = arith.remui %x, %n : index
    scf.yield %q, %r : index, index
  }
  %a:2 = affine.delinearize_index %x into (4, 6) : index, index
  %b = affine.linearize_index [%a#0, %a#1] by (4, 6) : index
  %s = arith.addi %r#0, %b : index
  return %s, %r#1 : index, index
}
