"""Published errors (the published API, §1, §2, §5.6, §6) not covered elsewhere, and ``arith_to_sympy`` under its
published name (§5.6 step 5). Other published errors are checked where their feature is (test_core_api.py:
RegP, then, rank; test_tensor_api.py: LegoLayout, TiledPermute, Tiled, ZCurve, Swizzle, compose, numel,
unsupported types, symbolic dims; test_errors.py: located diagnostics; test_no_crash.py: no crash)."""

import inspect
import warnings

import pytest
import sympy as sp

import lego
from lego import BlockCyclic, GenP, GroupBy, LegoError, OrderBy, Row
from lego.backend.symbolic import arith_to_sympy

x = sp.Symbol("x", integer=True, positive=True)


def test_block_cyclic_is_one_dimensional():
    with pytest.raises(ValueError, match="1D"):
        BlockCyclic((4, 4), 2, 2)


def test_negative_power_is_not_implemented():
    # §5.6: "non-negative integer Pow → repeated muli (negative powers → NotImplementedError)"; a quotient in a
    # size (M / BM) stays a floor division.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layout = GenP((4,), lambda a: a[0] ** -1)
    with pytest.raises(NotImplementedError, match="power"):
        layout[1]
    M, BM = sp.symbols("M BM", integer=True, positive=True)
    tiled = OrderBy(Row(M)).TileBy([M / BM], [BM])
    assert tiled[1, 2].subs({M: 16, BM: 4}) == 6


def test_unknown_translation_language():
    with pytest.raises(ValueError, match="unknown language"):
        lego.translate(OrderBy(Row(4)).GroupBy([(4,)]), "fortran77")


def test_arith_to_sympy_constant_and_addi():
    constant = "func.func @f() -> index {\n  %c = arith.constant 42 : index\n  return %c : index\n}\n"
    assert arith_to_sympy(constant) == 42
    add = ("func.func @f(%a: index, %b: index) -> index {\n  %c = arith.addi %a, %b : index\n"
           "  return %c : index\n}\n")
    a, b = sp.symbols("a b", integer=True)
    assert arith_to_sympy(add, [a, b]) == a + b
    assert arith_to_sympy(add) == sp.Symbol("arg0", integer=True) + sp.Symbol("arg1", integer=True)


def test_arith_to_sympy_after_lowering():
    # Row(4, 8) at (i, j) is 8i + j; its inverse at p is (⌊p/8⌋, p mod 8) (semantics by hand).
    text = ("func.func @f(%i: index, %j: index) -> index {\n  %l = lego.row [4, 8] : !lego.layout\n"
            "  %r = lego.apply %l(%i, %j) : !lego.layout\n  return %r : index\n}\n")
    i, j = sp.symbols("i j", integer=True)
    assert sp.expand(arith_to_sympy(text, [i, j], pipeline="lego-lower") - (8 * i + j)) == 0
    inverse = ("func.func @g(%p: index) -> (index, index) {\n  %l = lego.row [4, 8] : !lego.layout\n"
               "  %a, %b = lego.apply_inverse %l(%p) : !lego.layout -> index, index\n  return %a, %b : index, index\n}\n")
    p = sp.Symbol("p", integer=True)
    got = arith_to_sympy(inverse, [p], pipeline="lego-lower")
    assert [[value.subs(p, k) for value in got] for k in (0, 9, 31)] == [[0, 0], [1, 1], [3, 7]]


def test_arith_to_sympy_errors_are_located():
    with pytest.raises(LegoError, match=r"<arith_to_sympy>:1:\d+: error: "):
        arith_to_sympy("func.func @f( -> index")
    with pytest.raises(ValueError, match="2 arguments, got 1"):
        arith_to_sympy("func.func @f(%a: index, %b: index) -> index {\n  return %a : index\n}\n", [x])
    with pytest.raises(LegoError, match="no function"):
        arith_to_sympy("module {\n}\n")


def test_verifier_error_in_a_generated_translation_is_located():
    line = inspect.currentframe().f_lineno + 1
    layout = GroupBy([(4, 8)], [OrderBy(Row(3, 5))])
    with pytest.raises(LegoError) as error:
        lego.translate(layout, "rust")
    assert f"test_published_errors.py:{line}:1: error:" in str(error.value)


def test_a_rust_panic_becomes_a_lego_error():
    from lego import _lego

    with pytest.raises(LegoError, match=r"internal error in lego \(a bug: please report it\) while running the panic "
                                        r"test hook: boom 42"):
        _lego.raise_panic("boom 42")
    # The interpreter and the session go on.
    assert OrderBy(Row(4, 8)).GroupBy([(4, 8)])[1, 2] == 10
