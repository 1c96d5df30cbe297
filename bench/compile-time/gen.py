#!/usr/bin/env python3
"""Generates realistic lego modules of a given size for the compile-time benchmark (and the 2000-function
differential test).

    gen.py SHAPE N [--seed S] > file.mlir

--ssa-dims writes every layout size as an SSA value (`%c = arith.constant 64 : index` before the layout op,
`lego.row [%c, ...]`) instead of a literal: the form the published lego dialect needs (its sizes are operands
only), so both tools can be timed on the same file (bench/compile-time/run.py with PEER_LEGO_OPT).

SHAPE:
  functions  N small functions, one layout application each, cycling through row / col / tile_by / group_by
             with a user gen_p (its apply and inv bodies) / symbolic row / apply_inverse / load and store
             through a tiled view; static and symbolic sizes mixed (--invert-gen-p: the gen_p applications
             also apply_inverse their result, so lowering relies on, and proves, the gen_p's inverse)
  applies    one function holding N applications of the same mix (layouts shared by groups of applies)
  kernels    a GPU file: N/4 gpu.launch regions (constant 32x8 blocks), each loading and storing through tiled
             views of a row-major matrix and inverting a thread layout (4 applications per launch)

The output is deterministic for a given SHAPE, N and seed. Every function returns or stores what it computes,
so nothing is dead code.
"""
import argparse
import random
import re
import sys


def gen_p_rev(name, n1, n2, indent="  "):
    """rev(n1, n2) of docs/reference/semantics.md: f(i, j) = (n1-1-i)*n2 + (n2-1-j), with its inverse."""
    i = indent
    return [
        f"{i}%{name} = lego.gen_p [{n1}, {n2}] apply (%a: index, %b: index) {{",
        f"{i}  %m1 = arith.constant {n1 - 1} : index",
        f"{i}  %m2 = arith.constant {n2 - 1} : index",
        f"{i}  %n2 = arith.constant {n2} : index",
        f"{i}  %ra = arith.subi %m1, %a : index",
        f"{i}  %rb = arith.subi %m2, %b : index",
        f"{i}  %row = arith.muli %ra, %n2 : index",
        f"{i}  %f = arith.addi %row, %rb : index",
        f"{i}  lego.yield %f : index",
        f"{i}}} inv (%x: index) {{",
        f"{i}  %m1 = arith.constant {n1 - 1} : index",
        f"{i}  %m2 = arith.constant {n2 - 1} : index",
        f"{i}  %n2 = arith.constant {n2} : index",
        f"{i}  %q = arith.divui %x, %n2 : index",
        f"{i}  %r = arith.remui %x, %n2 : index",
        f"{i}  %a = arith.subi %m1, %q : index",
        f"{i}  %b = arith.subi %m2, %r : index",
        f"{i}  lego.yield %a, %b : index, index",
        f"{i}}} : !lego.layout",
    ]


# One application: (layout definition lines, application lines, result value) for a given variant.
# `p` is a unique prefix; %i, %j (indices), %n (a symbolic size) and %m (memref<65536xf32>) are in scope.
def application(variant, p, indent="  "):
    i = indent
    if variant == 0:  # static row
        return [f"{i}%{p}l = lego.row [64, 128] : !lego.layout",
                f"{i}%{p}r = lego.apply %{p}l(%i, %j) : !lego.layout"], f"%{p}r"
    if variant == 1:  # static col
        return [f"{i}%{p}l = lego.col [128, 64] : !lego.layout",
                f"{i}%{p}r = lego.apply %{p}l(%i, %j) : !lego.layout"], f"%{p}r"
    if variant == 2:  # tile_by over row (paper Table I)
        return [f"{i}%{p}o = lego.row [256, 256] : !lego.layout",
                f"{i}%{p}b = lego.order_by(%{p}o) : !lego.layout",
                f"{i}%{p}l = lego.tile_by %{p}b tile_dims [[8, 8], [32, 32]] : !lego.layout",
                f"{i}%{p}r = lego.apply %{p}l(%i, %j, %j, %i) : !lego.layout"], f"%{p}r"
    if variant == 3:  # group_by over a permutation and a user gen_p (paper Fig. 2)
        lines = ([f"{i}%{p}s = lego.reg_p perm [1, 0] dims [2, 2] : !lego.layout"]
                 + gen_p_rev(f"{p}g", 3, 2, indent)
                 + [f"{i}%{p}o = lego.order_by(%{p}s, %{p}g) : !lego.layout",
                    f"{i}%{p}l = lego.group_by [6, 4](%{p}o) : !lego.layout",
                    f"{i}%{p}r = lego.apply %{p}l(%i, %j) : !lego.layout"])
        if not INVERT_GEN_P:
            return lines, f"%{p}r"
        # --invert-gen-p: also invert the flat index, through the gen_p's inv (its proof obligation is discharged).
        return lines + [f"{i}%{p}q:2 = lego.apply_inverse %{p}l(%{p}r) : !lego.layout -> index, index",
                        f"{i}%{p}v = arith.addi %{p}q#0, %{p}q#1 : index"], f"%{p}v"
    if variant == 4:  # symbolic row
        return [f"{i}%{p}l = lego.row [%n, 64] : !lego.layout",
                f"{i}%{p}r = lego.apply %{p}l(%i, %j) : !lego.layout"], f"%{p}r"
    if variant == 5:  # apply_inverse of a symbolic col
        return [f"{i}%{p}l = lego.col [16, %n] : !lego.layout",
                f"{i}%{p}q:2 = lego.apply_inverse %{p}l(%i) : !lego.layout -> index, index",
                f"{i}%{p}r = arith.addi %{p}q#0, %{p}q#1 : index"], f"%{p}r"
    if variant == 6:  # load / store through a tiled view
        return [f"{i}%{p}o = lego.row [256, 256] : !lego.layout",
                f"{i}%{p}b = lego.order_by(%{p}o) : !lego.layout",
                f"{i}%{p}l = lego.tile_by %{p}b tile_dims [[16, 16], [16, 16]] : !lego.layout",
                f"{i}%{p}v = lego.cast_view %m, %{p}l : memref<65536xf32>, !lego.layout -> !lego.view<f32>",
                f"{i}%{p}x = lego.load %{p}v[%i, %j, %j, %i] : !lego.view<f32>, index, index, index, index",
                f"{i}lego.store %{p}x, %{p}v[%j, %i, %i, %j] : f32, !lego.view<f32>, index, index, index, index",
                f"{i}%{p}r = arith.addi %i, %j : index"], f"%{p}r"
    raise ValueError(variant)


VARIANTS = 7
# --invert-gen-p (not the default: the published tables are measured without it).
INVERT_GEN_P = False
SIGNATURE = "%i: index, %j: index, %n: index, %m: memref<65536xf32>"


def functions(n, rng):
    out = []
    for k in range(n):
        variant = rng.randrange(VARIANTS)
        lines, result = application(variant, f"a{k}_")
        out.append(f"func.func @f{k}({SIGNATURE}) -> index {{")
        out.extend(lines)
        out.append(f"  return {result} : index")
        out.append("}")
    return out


def applies(n, rng):
    out = [f"func.func @big({SIGNATURE}) -> index {{", "  %acc0 = arith.constant 0 : index"]
    acc = "%acc0"
    for k in range(n):
        variant = rng.randrange(VARIANTS)
        lines, result = application(variant, f"a{k}_")
        out.extend(lines)
        out.append(f"  %acc{k + 1} = arith.addi {acc}, {result} : index")
        acc = f"%acc{k + 1}"
    out.append(f"  return {acc} : index")
    out.append("}")
    return out


def kernels(n, rng):
    launches = max(1, n // 4)
    out = ["func.func @kernels(%in: memref<1048576xf32>, %out: memref<1048576xf32>, %s: memref<256xindex>) {",
           "  %c1 = arith.constant 1 : index",
           "  %c8 = arith.constant 8 : index",
           "  %c32 = arith.constant 32 : index"]
    for k in range(launches):
        tile = rng.choice([32, 64])
        out += [
            f"  gpu.launch blocks(%bx{k}, %by{k}, %bz{k}) in (%gx{k} = %c32, %gy{k} = %c32, %gz{k} = %c1)",
            f"             threads(%tx{k}, %ty{k}, %tz{k}) in (%sx{k} = %c32, %sy{k} = %c8, %sz{k} = %c1) {{",
            f"    %rows{k} = lego.row [1024, 1024] : !lego.layout",
            f"    %m{k} = lego.order_by(%rows{k}) : !lego.layout",
            f"    %tin{k} = lego.tile_by %m{k} tile_dims [[32, 32], [4, 1], [8, 32]] : !lego.layout",
            f"    %cols{k} = lego.col [1024, 1024] : !lego.layout",
            f"    %mc{k} = lego.order_by(%cols{k}) : !lego.layout",
            f"    %tout{k} = lego.tile_by %mc{k} tile_dims [[32, 32], [4, 1], [8, 32]] : !lego.layout",
            f"    %vin{k} = lego.cast_view %in, %tin{k} : memref<1048576xf32>, !lego.layout -> !lego.view<f32>",
            f"    %vout{k} = lego.cast_view %out, %tout{k} : memref<1048576xf32>, !lego.layout -> !lego.view<f32>",
            f"    %c0_{k} = arith.constant 0 : index",
            f"    %step{k} = arith.constant {tile // 32} : index",
            f"    %x{k} = lego.load %vin{k}[%by{k}, %bx{k}, %step{k}, %c0_{k}, %ty{k}, %tx{k}] : !lego.view<f32>, index, index, index, index, index, index",
            f"    lego.store %x{k}, %vout{k}[%by{k}, %bx{k}, %step{k}, %c0_{k}, %ty{k}, %tx{k}] : f32, !lego.view<f32>, index, index, index, index, index, index",
            f"    %t{k} = lego.row [8, 32] : !lego.layout",
            f"    %lin{k} = lego.apply %t{k}(%ty{k}, %tx{k}) : !lego.layout",
            f"    %back{k}:2 = lego.apply_inverse %t{k}(%lin{k}) : !lego.layout -> index, index",
            f"    %w{k} = arith.addi %back{k}#0, %back{k}#1 : index",
            f"    memref.store %w{k}, %s[%lin{k}] : memref<256xindex>",
            "    gpu.terminator",
            "  }",
        ]
    out += ["  return", "}"]
    return out


# The bracketed size lists of a layout op: row/col/group_by/gen_p sizes, reg_p's dims (not its perm) and
# tile_by's tile_dims (a list of lists).
SIZE_LIST = re.compile(r"(lego\.(?:row|col|group_by|gen_p) |\bdims |tile_dims )(\[(?:\[[^\]]*\](?:, )?)*\]|\[[^\]]*\])")
RESULT = re.compile(r"^(\s*)%([A-Za-z0-9_]+)(?::\d+)? = lego\.")


def ssa_dims(lines):
    """--ssa-dims: each literal size of a layout op becomes an arith.constant defined just before the op, named
    after the op's result (unique in the file), e.g. %a3_l_d0."""
    out = []
    for line in lines:
        result = RESULT.match(line)
        if not result or not SIZE_LIST.search(line):
            out.append(line)
            continue
        indent, name = result.group(1), result.group(2)
        constants = []

        def to_ssa(match):
            def literal(number):
                value = f"%{name}_d{len(constants)}"
                constants.append(f"{indent}{value} = arith.constant {number.group(0)} : index")
                return value
            return match.group(1) + re.sub(r"\d+", literal, match.group(2))

        line = SIZE_LIST.sub(to_ssa, line)
        out.extend(constants)
        out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shape", choices=["functions", "applies", "kernels"])
    parser.add_argument("n", type=int, help="number of layout applications")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--invert-gen-p", action="store_true",
                        help="the gen_p applications also apply_inverse their result (through the gen_p's inv)")
    parser.add_argument("--ssa-dims", action="store_true",
                        help="layout sizes as SSA constants (arith.constant before each layout op), not literals")
    args = parser.parse_args()
    global INVERT_GEN_P
    INVERT_GEN_P = args.invert_gen_p
    rng = random.Random(args.seed)
    lines = {"functions": functions, "applies": applies, "kernels": kernels}[args.shape](args.n, rng)
    if args.ssa_dims:
        lines = ssa_dims(lines)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
