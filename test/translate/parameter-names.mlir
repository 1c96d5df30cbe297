// Parameters keep the names written in the input where the language allows them: `%r`, `%r0`, `%v0` (which
// the generated result and local names used to take) stay `r`, `r0`, `v0`; the generated names step aside
// (`r_`, `r0_`, `v0_`). Twins: a keyword of the language or a name the language reserves becomes `argN`.
//
// RUN: lego-translate --lego-to-c %s | FileCheck %s --check-prefix=C
// RUN: lego-translate --lego-to-cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: lego-translate --lego-to-cpp %s | FileCheck %s --check-prefix=CPP
// RUN: lego-translate --lego-to-rust %s | FileCheck %s --check-prefix=RUST
// RUN: lego-translate --lego-to-fortran %s | FileCheck %s --check-prefix=F90
// RUN: lego-translate --lego-to-julia %s | FileCheck %s --check-prefix=JULIA
// RUN: lego-translate --lego-to-js %s | FileCheck %s --check-prefix=JS
// RUN: lego-translate --lego-to-glsl %s | FileCheck %s --check-prefix=GLSL
// RUN: lego-translate --lego-to-wgsl %s | FileCheck %s --check-prefix=WGSL
// RUN: lego-translate --lego-to-python %s | FileCheck %s --check-prefix=PY
//
// The C output compiles (no name is declared twice) and computes: names(1, 2, 1) = 1 * 12 + 2 * 4 + 1 = 21;
// split(23, 5) = (23 / 6, 23 mod 6) = (3, 5); unswz(46) = (46 / 8, (46 mod 8) xor (46 / 8)) = (5, 6 xor 5 = 3).
// RUN: lego-translate --lego-to-c %s -o %t.h
// RUN: echo '#include <stdio.h>' > %t.c
// RUN: echo '#include "%t.h"' >> %t.c
// RUN: echo 'int main(void) { uint64_t a, b, c, d; split(23, 5, &a, &b); unswz(46, &c, &d); printf("%%llu %%llu %%llu %%llu %%llu\n", (unsigned long long)names(1, 2, 1), (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)d); return 0; }' >> %t.c
// RUN: %cc -std=c99 -Wall -Werror -Wno-unused-function %t.c -o %t
// RUN: %t | FileCheck %s --check-prefix=OUT
// OUT: 21 3 5 5 3

// row [2, 3, 4] applied to (v0, r0, r): r + r0 * 4 + v0 * 12.
// C:    static inline uint64_t names(uint64_t v0, uint64_t r0, uint64_t r) {
// CUDA: __host__ __device__ inline unsigned long long names(unsigned long long v0, unsigned long long r0, unsigned long long r) {
// CPP:  inline std::uint64_t names(std::uint64_t v0, std::uint64_t r0, std::uint64_t r) {
// RUST: pub fn names(v0: u64, r0: u64, r: u64) -> u64 {
// F90:  pure function names(v0, r0, r) result(r_)
// F90:    integer(int64), intent(in) :: v0, r0, r
// F90:    integer(int64) :: r_
// JULIA: function names(v0::UInt64, r0::UInt64, r::UInt64)::UInt64
// JS:   function names(v0, r0, r) {
// GLSL: uint names(uint v0, uint r0, uint r) {
// WGSL: fn names(v0: u32, r0: u32, r: u32) -> u32 {
// PY:   def names(v0, r0, r):
func.func @names(%v0: index, %r0: index, %r: index) -> index {
  %l = lego.row [2, 3, 4] : !lego.layout
  %f = lego.apply %l(%v0, %r0, %r) : !lego.layout
  return %f : index
}

// Two results: r0_ / r1 step aside for the parameter r0.
// C:    static inline void split(uint64_t r0, uint64_t v0, uint64_t *restrict r0_, uint64_t *restrict r1) {
// CUDA: __host__ __device__ inline void split(unsigned long long r0, unsigned long long v0, unsigned long long &r0_, unsigned long long &r1) {
// F90:  pure subroutine split(r0, v0, r0_, r1)
// GLSL: void split(uint r0, uint v0, out uint r0_, out uint r1) {
// WGSL: struct split_result { r0_: u32, r1: u32 }
// WGSL: fn split(r0: u32, v0: u32) -> split_result {
// PY:   def split(r0, v0):
func.func @split(%r0: index, %v0: index) -> (index, index) {
  %l = lego.row [%v0, 6] : !lego.layout
  %a, %b = lego.apply_inverse %l(%r0) : !lego.layout -> index, index
  return %a, %b : index, index
}

// A local used twice: v0_ steps aside for the parameter v0 (the inverse of an 8 x 8 XOR swizzle).
// C:         static inline void unswz(uint64_t v0, uint64_t *restrict r0, uint64_t *restrict r1) {
// C-NEXT:      const uint64_t v0_ = v0 >> 3;
// C-NEXT:      *r0 = v0_;
// C-NEXT:      *r1 = (v0 & 7) ^ v0_;
// RUST:      pub fn unswz(v0: u64) -> (u64, u64) {
// RUST-NEXT:   let v0_: u64 = v0 >> 3;
// F90:       pure subroutine unswz(v0, r0, r1)
// F90:         integer(int64) :: v0_
// PY:        def unswz(v0):
// PY-NEXT:       v0_ = v0 >> 3
func.func @unswz(%v0: index) -> (index, index) {
  %l = lego.gen_p [8, 8] apply (%a: index, %b: index) {
    %c8 = arith.constant 8 : index
    %x = arith.xori %b, %a : index
    %row = arith.muli %a, %c8 : index
    %f = arith.addi %row, %x : index
    lego.yield %f : index
  } inv (%f: index) {
    %c8 = arith.constant 8 : index
    %a = arith.divui %f, %c8 : index
    %m = arith.remui %f, %c8 : index
    %b = arith.xori %m, %a : index
    lego.yield %a, %b : index, index
  } : !lego.layout
  %i, %j = lego.apply_inverse %l(%v0) : !lego.layout -> index, index
  return %i, %j : index, index
}

// Twins: `lambda` is a Python keyword, `flat` a GLSL one, `_Reserved` reserved in C, `end` in Fortran and
// Julia (Fortran names also start with a letter); each becomes argN (N: its position), the others keep their names.
// C:     static inline uint64_t keywords(uint64_t lambda, uint64_t flat, uint64_t arg2, uint64_t end) {
// F90:   pure function keywords(lambda, flat, arg2, arg3) result(r)
// JULIA: function keywords(lambda::UInt64, flat::UInt64, _Reserved::UInt64, arg3::UInt64)::UInt64
// GLSL:  uint keywords(uint lambda, uint arg1, uint _Reserved, uint end) {
// PY:    def keywords(arg0, flat, _Reserved, end):
func.func @keywords(%lambda: index, %flat: index, %_Reserved: index, %end: index) -> index {
  %s = arith.addi %lambda, %flat : index
  %t = arith.addi %_Reserved, %end : index
  %u = arith.addi %s, %t : index
  return %u : index
}
