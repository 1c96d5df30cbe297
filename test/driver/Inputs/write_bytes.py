"""Writes test inputs that cannot live in the repository as text: bytes that are not UTF-8, and
one-line ops too long to keep (test/driver/invalid-utf8.test, huge-numbers.test).

    write_bytes.py utf8-bad OUT      a file whose line 3, byte column 8 is 0xff (then valid text)
    write_bytes.py utf8-cut OUT      a file ending inside a two-byte sequence (line 2, column 3)
    write_bytes.py utf8-good OUT     the same program with a valid 'é' where the bad byte was
    write_bytes.py order-by N D OUT  an order_by of N `lego.row [D]` on one line, used by a group_by [1]
"""
import sys

PROGRAM = b"func.func @f() -> index {\n  %c = arith.constant 1 : index\n  // \xc3\xa9%s\n  return %c : index\n}\n"


def main(argv):
    kind = argv[1]
    if kind == "utf8-bad":
        data = PROGRAM.replace(b"%s", b"\xffx")
        # Line 3 is `  // é<ff>x`: the bad byte is the 8th byte of the line (five ASCII bytes, then 'é' in two).
    elif kind == "utf8-cut":
        data = b"// ok\n//\xc3"
    elif kind == "utf8-good":
        data = PROGRAM.replace(b"%s", b"\xc3\xa9x")
    elif kind == "order-by":
        count, size = int(argv[2]), int(argv[3])
        rows = "".join(f"  %r{k} = lego.row [{size}] : !lego.layout\n" for k in range(count))
        operands = ", ".join(f"%r{k}" for k in range(count))
        data = (
            "func.func @f() {\n" + rows + f"  %o = lego.order_by({operands}) : !lego.layout\n"
            "  %g = lego.group_by [1] (%o) : !lego.layout\n  return\n}\n"
        ).encode()
    else:
        sys.exit(f"unknown kind {kind}")
    with open(argv[-1], "wb") as out:
        out.write(data)


if __name__ == "__main__":
    main(sys.argv)
