#!/bin/sh
# The wheel's tools through their PATH entries (run by run-hidden.sh, with the toolchain hidden). Each check
# prints what it saw on failure and stops the test.
set -eu
repo=$1
venv=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "wheel-test: FAIL: $*" >&2; exit 1; }

module=$("$venv/bin/python" -c "import lego._lego as m; print(m.__file__)")
# The extension links nothing of LLVM's or MLIR's shared libraries (they are inside it); libz3 comes from the
# wheel's own lego.libs/.
if ldd "$module" | grep -E "libMLIR|libLLVM|not found"; then fail "$module needs libraries the machine does not have"; fi
ldd "$module" | grep -q "lego.libs/libz3" || fail "libz3 is not the wheel's own: $(ldd "$module" | grep z3)"

for tool in lego-opt lego-translate lego-studio; do
  [ "$(command -v $tool)" = "$venv/bin/$tool" ] || fail "$tool on PATH is '$(command -v $tool)', not the wheel's"
  out=$($tool --version) || fail "$tool --version exited $?"
  [ "$out" = "$tool $("$venv/bin/python" -c 'import lego; print(lego.__version__)')" ] || fail "$tool --version: $out"
done

# PTX of an example through the NVPTX backend inside the wheel.
lego-opt "$repo/examples/transpose-smem.mlir" --lego-to-nvvm='chip=sm_90 features=+ptx80 format=assembly' > "$work/ptx.mlir" \
  || fail "lego-to-nvvm"
grep -q '.target sm_90' "$work/ptx.mlir" || fail "no '.target sm_90' in the PTX"
grep -q '.entry' "$work/ptx.mlir" || fail "no kernel entry in the PTX"
# A located error and exit 1 on bad input.
if printf 'func.func @f() {\n  %%x = lego.row [0] : !lego.layout\n  return\n}\n' > "$work/bad.mlir" && lego-opt "$work/bad.mlir" 2> "$work/bad.err"; then
  fail "lego-opt accepted a row of size 0"
fi
grep -q 'bad.mlir:2:' "$work/bad.err" || fail "no located error: $(cat "$work/bad.err")"

lego-translate --lego-to-cuda "$repo/examples/paper-fig2.mlir" > "$work/fig2.cu" || fail "lego-translate --lego-to-cuda"
grep -q '__device__' "$work/fig2.cu" || fail "no __device__ function in lego-translate's CUDA: $(head -5 "$work/fig2.cu")"

lego-studio draw "$repo/examples/paper-fig2.mlir" -o "$work/fig2.svg" || fail "lego-studio draw"
grep -q '<svg' "$work/fig2.svg" || fail "lego-studio draw wrote no SVG"
echo "wheel-test: the tools from the wheel work (lego-opt PTX, lego-translate CUDA, lego-studio SVG)"
