#!/usr/bin/env python3
"""Writes a function whose layout is a chain of DEPTH nested constructors (too large to keep as a file).

  deep_chain.py order_by DEPTH            %l_k = lego.order_by(%l_{k-1}), then lego.apply
  deep_chain.py order_by-inverse DEPTH    the same, then lego.apply and lego.apply_inverse
  deep_chain.py group_by DEPTH            %l_k = group_by [4, 8] of %l_{k-1} (generic form), then lego.apply

PER_LINE ops share one line (as in the fuzz findings' own inputs): long lines, few of them.
The output goes to stdout."""
import sys

PER_LINE = 1000


def main():
    kind, depth = sys.argv[1], int(sys.argv[2])
    if kind.startswith("order_by"):
        step = '%l{n} = "lego.order_by"(%l{p}) : (!lego.layout) -> !lego.layout'
    elif kind == "group_by":
        step = ('%l{n} = "lego.group_by"(%l{p}) {{operandSegmentSizes = array<i32: 0, 1>, '
                'static_dims = array<i64: 4, 8>}} : (!lego.layout) -> !lego.layout')
    else:
        sys.exit(f"unknown kind {kind}")
    out = ["func.func @f(%i: index, %j: index) -> index {", "  %l0 = lego.row [4, 8] : !lego.layout"]
    for first in range(1, depth + 1, PER_LINE):
        last = min(first + PER_LINE, depth + 1)
        out.append("  " + " ".join(step.format(n=n, p=n - 1) for n in range(first, last)))
    out.append(f"  %f = lego.apply %l{depth}(%i, %j) : !lego.layout")
    if kind.endswith("-inverse"):
        out.append(f"  %p, %q = lego.apply_inverse %l{depth}(%f) : !lego.layout -> index, index")
        out.append("  %s = arith.addi %p, %q : index")
        out.append("  return %s : index")
    else:
        out.append("  return %f : index")
    out.append("}")
    sys.stdout.write("\n".join(out) + "\n")


main()
