#!/usr/bin/env python3
"""Runs one lego-opt command under a time and memory limit and classifies what happened (issue 15's contract:
any input, any flags -> success, or located diagnostics and exit status 1).

Classes, worst first:
  signal           killed by a signal (segfault, abort, stack overflow)
  timeout          over the time limit (then killed): the limit is on CPU time (user + system, all threads),
                   so a loaded machine does not turn a slow run into a finding; wall time has a safety net
                   of max(4 x limit, limit + 60 s) for a child that hangs without using CPU
  memory           over the memory limit (address-space limit hit: allocation failure, or RSS above the limit)
  error-exit-0     exit status 0 although an error was printed
  silent-error     exit status 1 without any error message
  unlocated-error  exit status 1 with an error that has no file:line:col (driver errors such as a bad flag,
                   `lego-opt: error: ...`, count as located: they are about the command line, not the input)
  bad-exit         any other exit status
  error            exit status 1, every error located
  ok               exit status 0, no error

As a command:  outcome.py [--timeout CPU-SECONDS] [--memory-mib M] [--expect CLASS[,CLASS...]] -- COMMAND...
prints `outcome: CLASS`, the command's stderr and its stdout, and exits 0 when CLASS is expected
(default: ok,error). lit tests use it through the %outcome substitution; bench/fuzz/lego_fuzz.py imports it."""
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ACCEPTABLE = ("ok", "error")
# `file:line:col: error: ...` (MLIR and lego-opt diagnostics), `lego-opt: error: ...` (command line).
LOCATED = re.compile(r"^(?:.+:\d+:\d+: |lego-opt: )error: ")
ANY_ERROR = re.compile(r"(?:^|: )error: ")
# What running out of the address space looks like from inside the process.
OUT_OF_MEMORY = re.compile(r"memory allocation of \d+ bytes failed|std::bad_alloc|out of memory|Cannot allocate memory",
                           re.IGNORECASE)


@dataclass
class Result:
    outcome: str
    returncode: int
    seconds: float  # wall time
    cpu_seconds: float  # user + system CPU time of the child, all its threads
    max_rss_mib: float
    stdout: str
    stderr: str


def diagnostic_lines(lines):
    """The lines of stderr that are diagnostics: lego-opt follows a located one with the source line it points
    into and a caret line, and that source line may itself contain `error: ` (a comment, a string)."""
    index = 0
    while index < len(lines):
        yield lines[index]
        located = LOCATED.match(lines[index]) or re.match(r"^.+:\d+:\d+: (?:warning|note|remark): ", lines[index])
        if located and index + 2 < len(lines) and re.fullmatch(r"\s*\^\s*", lines[index + 2]):
            index += 3
        else:
            index += 1


def classify(returncode, stderr, timed_out=False, max_rss_mib=0.0, memory_mib=None):
    if timed_out:
        return "timeout"
    lines = stderr.splitlines()
    if returncode < 0 or returncode > 128:
        if OUT_OF_MEMORY.search(stderr) or (memory_mib and max_rss_mib > memory_mib):
            return "memory"
        return "signal"
    if memory_mib and max_rss_mib > memory_mib:
        return "memory"
    errors = [line for line in diagnostic_lines(lines) if ANY_ERROR.search(line)]
    if returncode == 0:
        return "error-exit-0" if errors else "ok"
    if returncode == 1:
        if OUT_OF_MEMORY.search(stderr):
            return "memory"
        if not errors:
            return "silent-error"
        if any(not LOCATED.match(line) for line in errors):
            return "unlocated-error"
        return "error"
    return "bad-exit"


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def wall_limit(timeout):
    """The wall-time safety net for a CPU-time limit of `timeout` seconds."""
    return max(4 * timeout, timeout + 60)


def cpu_seconds_of(pid):
    """User + system CPU time (all threads, live and exited) of a running process from /proc/PID/stat, or
    None when it cannot be read (the process is gone, or there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces and ')': the fields after the
    # last ')' start with field 3, so utime (14) and stime (15) are at 11 and 12 of them.
    rest = fields[fields.rfind(b")") + 2:].split()
    try:
        return (int(rest[11]) + int(rest[12])) / CLOCK_TICKS
    except (IndexError, ValueError):
        return None


def run(command, timeout=20.0, memory_mib=4096, stdin_text=None, env=None):
    """Runs `command` (a list), returns a Result. `timeout` limits the child's CPU time (user + system,
    polled from /proc); its wall time is limited to wall_limit(timeout), which counts as a timeout too. The
    memory limit is an address-space limit (RLIMIT_AS) on the child, plus a check of its peak RSS."""
    def limit():
        if memory_mib:
            limit_bytes = memory_mib * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
        # No core files from crashing inputs.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setsid()

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin_text is not None:
            inp.write(stdin_text.encode())
            inp.seek(0)
        start = time.monotonic()
        process = subprocess.Popen(command, stdin=inp, stdout=out, stderr=err, preexec_fn=limit, env=env)
        timed_out = False
        status, usage = None, None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            cpu = cpu_seconds_of(process.pid)
            if (cpu is not None and cpu > timeout) or time.monotonic() - start > wall_limit(timeout):
                timed_out = True
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.005)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    max_rss_mib = usage.ru_maxrss / 1024 if usage else 0.0
    cpu_seconds = usage.ru_utime + usage.ru_stime if usage else 0.0
    outcome = classify(process.returncode, stderr, timed_out, max_rss_mib, memory_mib)
    return Result(outcome, process.returncode, seconds, cpu_seconds, max_rss_mib, stdout, stderr)


def main(argv):
    timeout, memory_mib, expect = 20.0, 4096, ACCEPTABLE
    args = list(argv)
    while args and args[0] != "--":
        option = args.pop(0)
        if option == "--timeout":
            timeout = float(args.pop(0))
        elif option == "--memory-mib":
            memory_mib = int(args.pop(0))
        elif option == "--expect":
            expect = tuple(args.pop(0).split(","))
        else:
            sys.exit(f"outcome.py: unknown option {option}")
    if not args or len(args) < 2:
        sys.exit("usage: outcome.py [--timeout S] [--memory-mib M] [--expect CLASS,...] -- COMMAND...")
    result = run(args[1:], timeout=timeout, memory_mib=memory_mib)
    print(f"outcome: {result.outcome}")
    # The diagnostics, then the output, for FileCheck lines after the outcome.
    sys.stdout.write(result.stderr)
    sys.stdout.write(result.stdout)
    if result.outcome not in expect:
        print(f"outcome.py: expected {', '.join(expect)}; exit status {result.returncode} after "
              f"{result.seconds:.1f} s ({result.cpu_seconds:.1f} s CPU), {result.max_rss_mib:.0f} MiB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
