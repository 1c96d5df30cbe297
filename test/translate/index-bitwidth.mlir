// --index-bitwidth=32 for the C family (uint32_t, std::uint32_t, unsigned int); GLSL and WGSL are always
// 32-bit. A layout with 2^32 or more positions cannot be indexed in 32 bits: a located error at the use
// (GLSL and WGSL too, which used to print such a layout silently); one just below fits.
//
// RUN: lego-translate --lego-to-c --index-bitwidth=32 %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=C
// RUN: lego-translate --lego-to-cpp --index-bitwidth=32 %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=CPP
// RUN: lego-translate --lego-to-cuda --index-bitwidth=32 %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=CUDA
// RUN: lego-translate --lego-to-glsl %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=GLSL
// RUN: lego-translate --lego-to-wgsl %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=WGSL
// RUN: not lego-translate --lego-to-c --index-bitwidth=32 %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not lego-translate --lego-to-glsl %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR-GLSL
//
// Twin: the default 64-bit C takes every chunk.
// RUN: lego-translate --lego-to-c %s --split-input-file | FileCheck %s --check-prefix=C64
//
// The 32-bit C output computes without wrapping where the layout fits: the last position of row [65536, 65535]
// is 65535 * 65535 + 65534 = 4294901759 = 2^32 - 65537.
// RUN: lego-translate --lego-to-c --index-bitwidth=32 %s --split-input-file --verify-diagnostics -o %t.h
// RUN: echo '#include <stdio.h>' > %t.c
// RUN: echo '#include "%t.h"' >> %t.c
// RUN: echo 'int main(void) { uint32_t i, j; unfits(4294901759u, &i, &j); printf("%%u %%u %%u %%u\n", fits(65535u, 65534u), i, j, (unsigned)sizeof fits(0, 0)); return 0; }' >> %t.c
// RUN: %cc -std=c99 -Wall -Werror -Wno-unused-function %t.c -o %t
// RUN: %t | FileCheck %s --check-prefix=OUT
// OUT: 4294901759 65535 65534 4
//
// Flags: only where the language has such an index type.
// RUN: not lego-translate --lego-to-rust --index-bitwidth=32 %s 2>&1 | FileCheck %s --check-prefix=FLAG-RUST
// FLAG-RUST: lego-translate: error: --index-bitwidth=32 is available for C, C++, CUDA C, GLSL and WGSL, not Rust
// RUN: not lego-translate --lego-to-glsl --index-bitwidth=64 %s 2>&1 | FileCheck %s --check-prefix=FLAG-GLSL
// FLAG-GLSL: lego-translate: error: GLSL's index type is 32-bit: --index-bitwidth=64 is not available
// RUN: not lego-translate --lego-to-c --index-bitwidth=16 %s 2>&1 | FileCheck %s --check-prefix=FLAG-16
// FLAG-16: lego-translate: error: --index-bitwidth=16: the index type is 32 or 64 bits wide

// 65536 * 65535 = 4294901760 positions: fits.
// C:    static inline uint32_t fits(uint32_t i, uint32_t j) {
// C-NEXT: return j + i * 65535u;
// C:    static inline void unfits(uint32_t pos, uint32_t *restrict r0, uint32_t *restrict r1) {
// CPP:  inline std::uint32_t fits(std::uint32_t i, std::uint32_t j) {
// CUDA: __host__ __device__ inline unsigned int fits(unsigned int i, unsigned int j) {
// GLSL: uint fits(uint i, uint j) {
// WGSL: fn fits(i: u32, j: u32) -> u32 {
// C64:  static inline uint64_t fits(uint64_t i, uint64_t j) {
func.func @fits(%i: index, %j: index) -> index {
  %l = lego.row [65536, 65535] : !lego.layout
  %f = lego.apply %l(%i, %j) : !lego.layout
  return %f : index
}
func.func @unfits(%pos: index) -> (index, index) {
  %l = lego.row [65536, 65535] : !lego.layout
  %i, %j = lego.apply_inverse %l(%pos) : !lego.layout -> index, index
  return %i, %j : index, index
}

// -----

// 65536 * 65536 = 2^32 positions: `j + (i << 16)` has no constant that is too large, but its values are.
// C64: static inline uint64_t big(uint64_t i, uint64_t j) {
// C64-NEXT: return j + (i << 16);
func.func @big(%i: index, %j: index) -> index {
  %l = lego.row [65536, 65536] : !lego.layout
  // ERR: index-bitwidth.mlir:[[@LINE+2]]:8: error: 'lego.apply' op uses a layout with 4294967296 positions, which does not fit C's 32-bit index type 'uint32_t' (extents below 2^32, --index-bitwidth=32)
  // ERR-GLSL: index-bitwidth.mlir:[[@LINE+1]]:8: error: 'lego.apply' op uses a layout with 4294967296 positions, which does not fit GLSL's 32-bit index type 'uint' (extents below 2^32)
  %f = lego.apply %l(%i, %j) : !lego.layout // expected-error {{uses a layout with 4294967296 positions, which does not fit}}
  return %f : index
}

// -----

func.func @big_inverse(%pos: index) -> (index, index) {
  %l = lego.row [4, 1073741824] : !lego.layout
  // ERR: index-bitwidth.mlir:[[@LINE+1]]:12: error: 'lego.apply_inverse' op uses a layout with 4294967296 positions
  %i, %j = lego.apply_inverse %l(%pos) : !lego.layout -> index, index // expected-error {{'lego.apply_inverse' op uses a layout with 4294967296 positions}}
  return %i, %j : index, index
}
