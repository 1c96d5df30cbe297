"""`make wheel-test`: lets the fresh wheel venv import the test frameworks installed in .venv without seeing .venv's
own (development) install of lego.

    link_test_packages.py DEV_PYTHON WHEEL_PYTHON

Makes `<wheel venv>/test-packages/`, a directory of symbolic links to every entry of .venv's site-packages except
lego's (the package, its dist-info and its .pth files), and a .pth file in the wheel venv's site-packages naming
it. Its line comes after the venv's own site-packages on sys.path, so the wheel's numpy/sympy would win too.
"""

import os
import subprocess
import sys


def purelib(python: str) -> str:
    return subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()


def is_lego(name: str) -> bool:
    lowered = name.lower()
    return lowered == "lego" or lowered.startswith("lego-") or lowered.startswith("lego.") or lowered.startswith("_lego")


def main(dev_python: str, wheel_python: str) -> None:
    source, target = purelib(dev_python), purelib(wheel_python)
    links = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(target))), "test-packages")
    os.makedirs(links, exist_ok=True)
    count = 0
    for name in sorted(os.listdir(source)):
        if is_lego(name) or name.endswith(".pth"):
            continue
        os.symlink(os.path.join(source, name), os.path.join(links, name))
        count += 1
    with open(os.path.join(target, "test-packages-from-dot-venv.pth"), "w") as handle:
        handle.write(links + "\n")
    print(f"wheel-test: {count} packages of {source} linked into {links} (lego's own left out)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
