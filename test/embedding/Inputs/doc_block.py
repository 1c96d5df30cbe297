#!/usr/bin/env python3
"""Prints, verbatim, the fenced code block that follows a marker line in a Markdown page.

    doc_block.py PAGE MARKER

MARKER is a substring of the line just before the block's opening fence (an HTML comment such as
`<!-- test/embedding/c-host.test compiles this block -->`). Exit 1, with a message, when the marker or its
block is missing, so that a test reading a page that changed fails instead of compiling nothing.
"""
import sys


def block_after(lines, marker):
    for index, line in enumerate(lines):
        if marker not in line:
            continue
        if index + 1 >= len(lines) or not lines[index + 1].startswith("```"):
            sys.exit(f"doc_block.py: the line after the marker {marker!r} does not open a fenced block")
        fence = lines[index + 1][: len(lines[index + 1]) - len(lines[index + 1].lstrip("`"))]
        body = []
        for inner in lines[index + 2 :]:
            if inner.startswith(fence) and inner.strip() == fence:
                return body
            body.append(inner)
        sys.exit(f"doc_block.py: the block after the marker {marker!r} is not closed")
    sys.exit(f"doc_block.py: no line contains the marker {marker!r}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: doc_block.py PAGE MARKER")
    with open(sys.argv[1], encoding="utf-8") as page:
        lines = page.read().splitlines()
    sys.stdout.write("".join(line + "\n" for line in block_after(lines, sys.argv[2])))


if __name__ == "__main__":
    main()
