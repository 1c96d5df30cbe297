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
config.environment["PATH"] = os.pathsep.join(tool_dirs + [config.environment.get("PATH", os.environ.get("PATH", ""))])
# Deterministic, panic-free runs: a Rust backtrace in a test's output is a bug, never expected text.
config.environment["RUST_BACKTRACE"] = "0"
config.substitutions.append(("%lego_root", root))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
