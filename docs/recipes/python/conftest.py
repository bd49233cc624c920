"""The pytest recipe is now the authmock wheel's pytest plugin (python/ at the repository root).

With the wheel installed (`pip install authmock`), the `authmock_server` fixture is there in every test
suite, with the binary and the shipped scenarios it carries: no conftest.py is needed at all.

    def test_login(authmock_server):
        server = authmock_server("scenarios/basic.yaml")   # or a scenario dict
        ...
        assert [e["verdict"] for e in server.journal()] == ["no-credentials", "basic.ok"]

This file only makes the same plugin available in this checkout without the wheel, so that ci/test runs
these examples against the binary it built:

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q docs/recipes/python

The plugin's source is python/src/authmock/pytest_plugin.py (the fixture) and server.py (the machinery).
"""

import sys
from pathlib import Path

try:
    import authmock.pytest_plugin  # noqa: F401 - the installed wheel
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python" / "src"))

from authmock.pytest_plugin import authmock_server  # noqa: E402,F401 - the fixture, for this directory
