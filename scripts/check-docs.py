#!/usr/bin/env python3
"""Checks that the documentation stands on its own in a clone of the repository.

  check-docs.py references ROOT      no file mentions the team's spec folder outside the repository (the
                                     repository's reference is docs/reference/), nor a spec page by a name that
                                     exists only there
  check-docs.py links ROOT PATH...   every relative link in the markdown files under PATH (files or folders,
                                     relative to ROOT) names an existing file, and an existing heading when it
                                     has a #fragment

Files are those git tracks when ROOT is a git checkout, else every file under ROOT (without target/ and .git/).
Prints one line per problem, `file:line: ...`, and exits 1 if there is any; exits 0 otherwise.
Run by test/docs/no-external-reference.test and test/docs/links.test.
"""

import os
import re
import subprocess
import sys
import unicodedata

# Built from pieces so that this file does not match itself.
FORBIDDEN = [
    re.compile(re.escape("../" + "shared")),
    re.compile(re.escape("shared" + "/spec")),
    re.compile(re.escape("/work/" + "shared")),
    # Spec pages by a bare name that no file of the repository has (docs/reference/ has their content).
    re.compile(r"(?<![\w/.-])(?:" + "|".join(["dialect", "lowering-form", "python-api"]) + r")\.md\b"),
]


def repository_files(root):
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
        return sorted(name for name in listed.decode().split("\0") if name and os.path.isfile(os.path.join(root, name)))
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in (".git", "target"))
        for name in sorted(names):
            found.append(os.path.relpath(os.path.join(directory, name), root))
    return found


def check_references(root):
    problems = []
    for name in repository_files(root):
        try:
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                lines = handle.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue  # binary files (pictures) cannot mention anything
        for number, line in enumerate(lines, 1):
            for pattern in FORBIDDEN:
                match = pattern.search(line)
                if match:
                    problems.append(f"{name}:{number}: mentions '{match.group(0)}' (point at docs/reference/ instead)")
    return problems


def slug(heading):
    """The anchor GitHub gives a heading: formatting removed, lower case, punctuation dropped, spaces → '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links → their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "").strip().lower()
    kept = []
    for char in text:
        if char in (" ", "-", "_") or char.isalnum() or unicodedata.category(char).startswith("M"):
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def markdown_lines(text):
    """(line number, line) outside fenced code blocks, with inline code spans blanked out."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        opening = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and opening:
            fence = opening.group(1)[0] * len(opening.group(1))
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        yield number, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        found, seen = set(), {}
        fence = None
        for line in text.split("\n"):
            stripped = line.lstrip()
            opening = re.match(r"(`{3,}|~{3,})", stripped)
            if fence is None and opening:
                fence = opening.group(1)
                continue
            if fence is not None:
                if stripped.startswith(fence):
                    fence = None
                continue
            heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            for explicit in re.finditer(r"""<a\s+(?:name|id)=["']([^"']+)["']""", line):
                found.add(explicit.group(1))
        cache[path] = found
    return cache[path]


LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")


def check_links(root, paths):
    files = []
    tracked = repository_files(root)
    for path in paths:
        path = os.path.normpath(path)
        for name in tracked:
            if name.endswith(".md") and (name == path or name.startswith(path.rstrip("/") + "/") or path == "."):
                files.append(name)
    if not files:
        return [f"no markdown file under {', '.join(paths)}"]
    problems = []
    for name in sorted(set(files)):
        source = os.path.join(root, name)
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
        for number, line in markdown_lines(text):
            targets = [m.group(1) for m in LINK.finditer(line)]
            definition = REFERENCE_DEFINITION.match(line)
            if definition:
                targets.append(definition.group(1))
            for target in targets:
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                    continue  # https:, mailto:, … — not checked (no network)
                path, _, fragment = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
                if not os.path.abspath(resolved).startswith(os.path.abspath(root) + os.sep) and resolved != os.path.abspath(root):
                    problems.append(f"{name}:{number}: link '{target}' leaves the repository")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{name}:{number}: link '{target}': no such file")
                    continue
                if fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                    problems.append(f"{name}:{number}: link '{target}': no heading with anchor '#{fragment}'")
    return problems


def main(argv):
    if len(argv) >= 2 and argv[0] == "references":
        problems = check_references(argv[1])
    elif len(argv) >= 3 and argv[0] == "links":
        problems = check_links(argv[1], argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
