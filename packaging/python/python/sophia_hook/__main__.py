"""`python -m sophia_hook ARGS`: runs the native binary with ARGS and its exit status."""

import os
import sys

from sophia_hook import find_bin


def main():
    binary = find_bin()
    argv = [binary] + sys.argv[1:]
    if sys.platform == "win32":
        import subprocess

        try:
            completed = subprocess.run(argv)
        except KeyboardInterrupt:
            sys.exit(130)
        sys.exit(completed.returncode)
    # The binary replaces this process: no Python stays in between, and the binary sees its own
    # path (what `sophia-hook install` registers).
    os.execvp(binary, argv)


if __name__ == "__main__":
    main()
