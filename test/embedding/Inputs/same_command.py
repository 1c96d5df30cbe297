#!/usr/bin/env python3
"""Checks that the link command in the comment of capi/include/lego-c/Lego.h is the one of a shell block
taken from docs/embedding.md (doc_block.py's output): the same words, whatever the line breaks.

    same_command.py SHELL_BLOCK HEADER
"""
import shlex
import sys


def words(text):
    """The words of the first `cc` command in `text` (continuation lines joined, comments dropped)."""
    lines = [line for line in text.replace("\\\n", " ").splitlines() if not line.lstrip().startswith("#")]
    commands = [line for line in lines if line.split()[:1] == ["cc"]]
    if not commands:
        sys.exit("same_command.py: no cc command found")
    return shlex.split(commands[0], posix=False)


def header_command(header):
    """The comment lines of the header box (`|* … *|`), unboxed."""
    inside = []
    for line in header.splitlines():
        if line.startswith("|*") and line.rstrip().endswith("*|"):
            inside.append(line.rstrip()[2:-2].rstrip())
    return "\n".join(inside) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: same_command.py SHELL_BLOCK HEADER")
    with open(sys.argv[1], encoding="utf-8") as block, open(sys.argv[2], encoding="utf-8") as header:
        page, comment = words(block.read()), words(header_command(header.read()))
    if page != comment:
        sys.exit(f"same_command.py: the header's link command differs from the page's:\n  page:   {' '.join(page)}\n  header: {' '.join(comment)}")
    print("same command:", " ".join(page))


if __name__ == "__main__":
    main()
