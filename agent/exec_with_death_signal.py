"""`python exec_with_death_signal.py SIGNAL PARENT_PID COMMAND...`: ask Linux for SIGNAL when
our parent dies, then become COMMAND (the request survives exec).

`agent.process.spawn` starts children through this file, run by path with `-I -S` (so it
imports nothing of ours), instead of making the request in a `preexec_fn`: a preexec_fn
makes Python fork() a threaded process, and fork() runs OpenBLAS's at-fork handler, which
deadlocks with a NumPy product running on another thread (the question's embeddings while
the model starts). Without a preexec_fn, Python starts the child with vfork and no handlers.
"""

import ctypes
import os
import sys

_PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> None:
    signal_number, parent_pid, command = int(argv[1]), int(argv[2]), argv[3:]
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal_number, 0, 0, 0)
        if os.getppid() != parent_pid:  # the parent died before the request: nobody would signal
            sys.exit(1)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv)
