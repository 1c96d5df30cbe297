# lit configuration for lego-rs. Run with `lit -v test/` (make test does), from the repository root.
import os
import lit.formats

config.name = "lego-rs"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]

root = os.path.dirname(os.path.abspath(__file__))
config.test_source_root = os.path.join(root, "test")
config.test_exec_root = os.path.join(root, "target", "lit")

llvm_bin = "/usr/lib/llvm-22/bin"
tool_dirs = [os.path.join(root, "target", "debug"), llvm_bin]
# LEGO_PROFILE=release (what `make test` sets): lego-opt from target/release, as users run it (undefined
# behaviour the debug build hides crashes there); the other tools and libraries stay the debug build's.
if os.environ.get("LEGO_PROFILE", "debug") == "release":
    tool_dirs.insert(0, os.path.join(root, "target", "release"))
    config.available_features.add("release-lego-opt")
# The x86 vector ISAs this CPU runs (test/vectorize: the AVX-512 differential run needs such a CPU; on one
# without, lit reports that test UNSUPPORTED, never passed).
try:
    _cpu_flags = set(open("/proc/cpuinfo").read().split())
except OSError:
    _cpu_flags = set()
if {"avx2", "fma"} <= _cpu_flags:
    config.available_features.add("x86-avx2")
if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= _cpu_flags:
    config.available_features.add("x86-avx512")
config.environment["PATH"] = os.pathsep.join(tool_dirs + [config.environment.get("PATH", os.environ.get("PATH", ""))])
# Deterministic, panic-free runs: a Rust backtrace in a test's output is a bug, never expected text.
config.environment["RUST_BACKTRACE"] = "0"
config.substitutions.append(("%lego_root", root))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
# Runs a command under time and memory limits and prints its outcome class (bench/fuzz/outcome.py).
config.substitutions.append(("%outcome", "python3 " + os.path.join(root, "bench", "fuzz", "outcome.py")))
# C and C++ hosts of the C API (test/capi): the system compilers, as an embedder would use them.
import shutil
config.substitutions.append(("%cc", os.environ.get("CC", "cc")))
config.substitutions.append(("%cxx", os.environ.get("CXX", "c++")))
if shutil.which(os.environ.get("CXX", "c++")):
    config.available_features.add("cxx")
# GPU toolkits at their fallback locations: where they exist, test/targets' "tool is missing" errors cannot be
# provoked, so those tests are skipped.
if os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
    config.available_features.add("cuda-fallback-toolkit")
if os.access("/opt/rocm/llvm/bin/ld.lld", os.X_OK):
    config.available_features.add("rocm-fallback-toolkit")
# MLIR's runtime libraries for mlir-runner (test/targets/llvm-jit.mlir).
config.substitutions.append(("%mlir_lib", "/usr/lib/llvm-22/lib"))
# SPIRV-Tools (spirv-dis) to disassemble lego-to-spirv's words (test/targets/spirv.mlir).
if shutil.which("spirv-dis"):
    config.available_features.add("spirv-tools")
# lego-to-wasm's run test (test/targets/wasm.mlir): wasm-ld (Debian's lld-22, installed by `make setup`) links
# the object, node runs it.
if os.access(os.path.join(llvm_bin, "wasm-ld"), os.X_OK) or shutil.which("wasm-ld"):
    config.available_features.add("wasm-ld")
if shutil.which("node"):
    config.available_features.add("node")
