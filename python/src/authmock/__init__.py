"""authmock: the scripted-auth HTTP(S) server, packaged for Python.

The wheel carries the `authmock` binary and its data in the install layout of the release tarball:

    authmock/_data/bin/authmock
    authmock/_data/share/authmock/{scenarios,clients,ci}/...
    authmock/_data/share/doc/authmock/{README.md,LICENSE}

so the binary finds its suite at `<exe dir>/../share/authmock`. The `authmock` console script runs that
binary; `authmock.pytest_plugin` (registered with pytest through the `pytest11` entry point) gives tests the
`authmock_server` fixture; `authmock.server.start()` does the same without pytest.
"""

import os
from pathlib import Path

try:  # written by python/build-wheel from the binary's `--version`; absent in the source tree
    from ._version import __version__
except ImportError:  # pragma: no cover - running from python/src without a build
    __version__ = "0+source"

__all__ = ["__version__", "bundled_binary", "bundled_share", "data_dir"]


def data_dir():
    """The directory the wheel unpacks its install prefix into (`authmock/_data`)."""
    return Path(__file__).resolve().parent / "_data"


def bundled_binary():
    """The binary this package carries, or None (a source checkout of python/src carries none)."""
    path = data_dir() / "bin" / "authmock"
    return path if path.is_file() else None


def bundled_share():
    """The shipped scenarios, conformance suite and client profiles (`share/authmock`), or None."""
    path = data_dir() / "share" / "authmock"
    return path if path.is_dir() else None


def _ensure_executable(path):
    """Installers keep the wheel's executable bit; a copy made some other way may have lost it."""
    if not os.access(path, os.X_OK):
        os.chmod(path, os.stat(path).st_mode | 0o111)
