"""Prints a lit input with the lines between `// segment-begin` and `// segment-end` repeated N times: each copy's
SSA names get a suffix, its first use of the value before the segment reads the previous copy's last value, and
the lines after the segment read the last copy's. For growth tests of layout chains (usage: FILE N)."""
import re
import sys

path, copies = sys.argv[1], int(sys.argv[2])
source = open(path).read().splitlines()
begin = next(i for i, line in enumerate(source) if "segment-begin" in line)
end = next(i for i, line in enumerate(source) if "segment-end" in line)
before = [line for line in source[:begin] if not line.lstrip().startswith("//")]
segment = source[begin + 1:end]
after = [line for line in source[end + 1:] if not line.lstrip().startswith("//")]
defined = [re.match(r"\s*(%[\w.]+) =", line).group(1) for line in segment]
# The value the segment starts from: the one it uses but does not define, defined before it.
used = [name for line in segment for name in re.findall(r"%[\w.]+", line.split("=", 1)[1])]
incoming = next(name for name in used if name not in defined)
outgoing = defined[-1]
out = list(before)
previous = incoming
for copy in range(copies):
    rename = {name: f"{name}_{copy}" for name in defined}
    rename[incoming] = previous
    for line in segment:
        out.append(re.sub(r"%[\w.]+", lambda m: rename.get(m.group(0), m.group(0)), line))
    previous = rename[outgoing]
for line in after:
    out.append(re.sub(r"%[\w.]+", lambda m: previous if m.group(0) == outgoing else m.group(0), line))
print("\n".join(out))
