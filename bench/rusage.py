#!/usr/bin/env python3
"""Runs a command and writes "WALL MAXRSS_KB USER SYS" to a file, as `/usr/bin/time -f "%e %M
%U %S"` does, but with the CPU seconds to the microsecond that the kernel accounts (GNU time
prints hundredths, too coarse for runs of a few hundredths of a second). The CPU seconds are
the command's own (with the processes it waited for), from wait4; the peak memory is GNU
time's, which runs the command (a child of this interpreter would count its memory too).

Usage:  rusage.py OUTFILE CMD...   (exits with the command's exit status)
"""
import os
import sys
import time


def main(argv):
    out, cmd = argv[1], argv[2:]
    memory = out + ".rss"
    timed = ["/usr/bin/time", "-f", "%M", "-o", memory] + cmd
    started = time.monotonic()
    pid = os.posix_spawn(timed[0], timed, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - started
    try:
        with open(memory) as f:
            rss = f.read().split()[-1]
    except (OSError, IndexError):
        rss = "0"
    with open(out, "w") as f:
        f.write(f"{wall:.3f} {rss} {usage.ru_utime:.4f} {usage.ru_stime:.4f}\n")
    rc = os.waitstatus_to_exitcode(status)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
