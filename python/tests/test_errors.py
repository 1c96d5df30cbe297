"""A malformed layout never crashes the interpreter: lego's diagnostics become LegoError with the location of
the Python line that built the piece (or asked for the evaluation); malformed descriptors handed to the
extension directly are rejected before any IR exists."""

import inspect
import warnings

import pytest
import sympy as sp

import lego
from lego import GenP, GroupBy, LegoError, OrderBy, Row, _lego

M = sp.Symbol("M", integer=True, positive=True)


def test_lego_error_is_an_exception():
    assert issubclass(LegoError, Exception)
    assert lego.LegoError is _lego.LegoError


def test_group_by_element_count_mismatch_is_located():
    line = inspect.currentframe().f_lineno + 1
    layout = GroupBy([(4, 8)], [OrderBy(Row(3, 5))])
    with pytest.raises(LegoError) as error:
        layout[1, 1]
    message = str(error.value)
    assert f"test_errors.py:{line}:1: error:" in message
    assert "product of group dims (32) does not match the number of elements of object #0 (15)" in message


def test_tile_by_size_mismatch_is_located():
    line = inspect.currentframe().f_lineno + 1
    layout = OrderBy(Row(8, 8)).TileBy([3, 3], [2, 2])
    with pytest.raises(LegoError, match=rf"test_errors.py:{line}:1: error: .*tile dims \(36\).*input dims \(64\)"):
        layout[0, 0, 0, 0]


def test_inverse_of_apply_only_gen_p_is_located_at_the_call():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layout = GenP((4,), lambda a: sp.Piecewise((a[0], a[0] < 2), (5 - a[0], True)))
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(LegoError) as error:
        layout.inv(1)
    assert f"test_errors.py:{line}:1: error:" in str(error.value)
    assert "not invertible" in str(error.value)


def test_the_session_survives_errors():
    with pytest.raises(LegoError):
        GroupBy([(4, 8)], [OrderBy(Row(3, 5))])[0, 0]
    # The next evaluation on the same thread's context works.
    assert OrderBy(Row(4, 8)).GroupBy([(4, 8)])[1, 2] == 10


def test_unsupported_sympy_is_not_implemented():
    with pytest.raises(NotImplementedError, match="cannot lower sin"):
        OrderBy(Row(sp.sin(M))).GroupBy([(sp.sin(M),)])[0]


@pytest.mark.parametrize(
    "layout, operand, message",
    [
        (("row", None, (("int", 4),)), [("bogus",)], "malformed expression descriptor"),
        (("nope",), [], "malformed layout descriptor"),
        ("row", [], "malformed layout descriptor"),
        (("row", None, (("int", 4),)), [("arg", 3)], "argument 3 out of range"),
        (("row", ("file.py", "x"), (("int", 4),)), [("int", 0)], "malformed location descriptor"),
        (("gen_p", None, (("int", 4),), ("barg", 5), None), [("int", 0)], "region argument 5 out of range"),
        (("row", None, ()), [], "error"),
    ],
)
def test_malformed_descriptors_raise(layout, operand, message):
    session = _lego.Session()
    with pytest.raises(LegoError, match=message):
        session.evaluate(layout, 0, "apply", operand, [], [])


def test_out_of_range_constant_and_unknown_mode():
    session = _lego.Session()
    with pytest.raises(LegoError, match="64-bit range"):
        session.evaluate(("row", None, (("int", 4),)), 0, "inv", ("int", 2**70), [], [])
    with pytest.raises(LegoError, match="unknown evaluation mode"):
        session.evaluate(("row", None, (("int", 4),)), 0, "sideways", ("int", 0), [], [])


def test_rank_mismatch_between_descriptor_and_indices():
    session = _lego.Session()
    with pytest.raises(LegoError):
        session.evaluate(("row", None, (("int", 4), ("int", 2))), 0, "apply", [("int", 0)], [], [])


def test_pipeline_text_errors_are_lego_errors():
    session = _lego.Session()
    with pytest.raises(LegoError, match="no-such-pass|unknown|not"):
        session.evaluate(("row", None, (("int", 4),)), 0, "apply", [("int", 1)], [], [],
                         pipeline="no-such-pass")
