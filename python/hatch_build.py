"""Hatchling build hook: the wheel carries a native binary, so it is a platform wheel.

python/build-wheel writes the platform tag it chose into src/authmock/_data/PLATFORM_TAG (for example
`linux_x86_64`); the wheel is then tagged `py3-none-<that>` (any Python 3, no ABI: the package is pure Python
around an executable) instead of hatchling's `py3-none-any`.
"""

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        data = Path(self.root, "src", "authmock", "_data")
        tag_file = data / "PLATFORM_TAG"
        if not (data / "bin" / "authmock").is_file() or not tag_file.is_file():
            raise RuntimeError("no staged binary in src/authmock/_data: build the wheel with "
                               "python/build-wheel PREFIX_OR_TARBALL")
        build_data["pure_python"] = False
        build_data["tag"] = "py3-none-" + tag_file.read_text().strip()
