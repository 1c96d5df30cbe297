// lego.swizzle through lego-translate: the swizzle's domain is its dims, its body one XOR.
// RUN: lego-translate --lego-to-c --assert-bounds %s | FileCheck %s --check-prefix=C
// C:      /* Domain of swz: r < 8, c < 8 (checked on entry). */
// C-NEXT: static inline uint64_t swz(uint64_t r, uint64_t c) {
// C:        const uint64_t v0 = c + (r << 3);
// C-NEXT:   return v0 ^ ((v0 & 56) >> 3);
//
// Hand values of Swizzle<3, 0, 3> over [8, 8]: (r, c) → 8r + (c XOR r): (1, 2) → 11, (7, 0) → 63, (5, 5) → 40.
// RUN: lego-translate --lego-to-python %s > %t.py
// RUN: python3 -c "import importlib.util as u; s = u.spec_from_file_location('m', '%t.py'); m = u.module_from_spec(s); s.loader.exec_module(m); print(m.swz(1, 2), m.swz(7, 0), m.swz(5, 5))" | FileCheck %s --check-prefix=PY
// PY: 11 63 40
func.func @swz(%r: index, %c: index) -> index {
  %s = lego.swizzle bits 3 base 0 shift 3 dims [8, 8] : !lego.layout
  %f = lego.apply %s(%r, %c) : !lego.layout
  return %f : index
}
