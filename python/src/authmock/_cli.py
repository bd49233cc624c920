"""The `authmock` console script: replaces this Python process with the bundled binary."""

import os
import sys

from . import _ensure_executable, bundled_binary


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    binary = bundled_binary()
    if binary is None:
        sys.stderr.write("authmock: this installation of the authmock package carries no binary "
                         "(build the wheel with python/build-wheel)\n")
        return 2
    # The bundled binary finds its data beside it (<exe dir>/../share/authmock) by itself.
    try:
        _ensure_executable(binary)
    except OSError:
        pass  # read-only site-packages: execv reports the real problem below
    try:
        os.execv(str(binary), [str(binary), *args])
    except OSError as error:
        sys.stderr.write(f"authmock: cannot run {binary}: {error}\n")
        return 126


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
