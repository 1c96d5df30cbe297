"""Reads lego-opt --lego-to-spirv output on stdin; decodes the top module's lego.spirv_binary (with the published
frontend's regex) and the first SPIR-V gpu.binary's `bin` string; prints what a test checks. With a file name
argument, also writes the decoded words there (little-endian) for spirv-val / spirv-dis."""
import re
import struct
import sys

text = sys.stdin.read()
match = re.search(r'lego\.spirv_binary\s*=\s*"([^"]*)"', text)
if not match:
    sys.exit("no lego.spirv_binary attribute")
words = [int(word) for word in match.group(1).split(",")]
binary = re.search(r'#gpu\.object<#spirv\.target_env<.*?>, bin = "((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"', text)
if not binary:
    sys.exit("no SPIR-V gpu.binary")
raw = bytearray()
body = binary.group(1)
i = 0
while i < len(body):
    if body[i] == "\\":
        if body[i + 1] == "\\":
            raw.append(0x5C)
            i += 2
        else:
            raw.append(int(body[i + 1 : i + 3], 16))
            i += 3
    else:
        raw.extend(body[i].encode("latin-1"))
        i += 1
from_words = b"".join(struct.pack("<I", word) for word in words)
print(f"words: {len(words)}")
print(f"first word: {words[0]}")
print(f"bytes: {len(raw)}")
print("same as gpu.binary: " + ("yes" if bytes(raw) == from_words else "NO"))
if len(sys.argv) > 1:
    with open(sys.argv[1], "wb") as out:
        out.write(from_words)
