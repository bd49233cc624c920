"""The plugin's own tests. With the wheel installed, pytest loads the plugin through its entry point; in the
source tree (ci/test), python/src is put on sys.path and the fixture imported here. The binary is
$AUTHMOCK_BIN, else the wheel's. The `pytester` fixture runs inner pytest sessions in a subprocess, with
plugin autoloading off and `-p authmock.pytest_plugin`, so they see exactly this plugin."""

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
try:
    import authmock.pytest_plugin  # noqa: F401
except ImportError:
    sys.path.insert(0, str(SRC))

from authmock.pytest_plugin import authmock_server  # noqa: E402,F401

pytest_plugins = ["pytester"]
