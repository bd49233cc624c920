"""The Dockerfile against the package it builds, and the reader ci/container-check runs it with
(ci/container-check.d/dockerfile.py). What the image does at run time is checked by ci/container-check in a
debootstrap root; these are the rules that need no root and no network:

- every Debian package Package.swift's system libraries name (`.apt(["libssl-dev"])`) is installed in the
  build stage, and the library package it depends on (libssl3) in the runtime stage;
- the image runs as a numeric, non-root user, `ENTRYPOINT ["authmock"]`, a default command that serves a
  shipped scenario beyond loopback, and a health check on the ready file that command writes;
- the reader refuses a Dockerfile it cannot follow instead of guessing.

Run alone: python3 -m pytest -q -p no:cacheprovider Tests/container
"""

import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
READER = ROOT / "ci" / "container-check.d" / "dockerfile.py"


def read(path):
    """The reader's assignments for the Dockerfile at PATH, as {name: list or str}."""
    result = subprocess.run([sys.executable, str(READER), str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    found = {}
    for line in result.stdout.splitlines():
        name, _, value = line.partition("=")
        if value.startswith("(") and value.endswith(")"):
            found[name] = shlex.split(value[1:-1])
        else:
            found[name] = shlex.split(value)[0] if value else ""
    return found


def refusal(tmp_path, text):
    path = tmp_path / "Dockerfile"
    path.write_text(text, encoding="utf-8")
    result = subprocess.run([sys.executable, str(READER), str(path)], capture_output=True, text=True)
    return result.returncode, result.stderr


@pytest.fixture(scope="module")
def image():
    return read(ROOT / "Dockerfile")


def build_stage_packages():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    build = text.split("\nFROM ")[1]
    match = re.search(r"apt-get install ([^&]+)&&", build.replace("\\\n", " "))
    assert match, "no apt-get install in the build stage"
    return [word for word in match.group(1).split() if not word.startswith("-")]


def system_library_packages():
    package = (ROOT / "Package.swift").read_text(encoding="utf-8")
    names = re.findall(r"\.apt\(\[([^\]]*)\]\)", package)
    return sorted({name.strip().strip('"') for group in names for name in group.split(",") if name.strip()})


def test_every_system_library_is_installed_to_build_and_to_run(image):
    needed = system_library_packages()
    assert "libssl-dev" in needed and "libcrypt-dev" in needed, needed
    build = build_stage_packages()
    for dev in needed:
        assert dev in build, f"Package.swift needs {dev}; the build stage does not install it"
    if shutil.which("apt-cache") is None:
        pytest.skip("no apt-cache to find the runtime package of each -dev package")
    for dev in needed:
        depends = subprocess.run(["apt-cache", "depends", dev], capture_output=True, text=True).stdout
        runtime = [line.split(":", 1)[1].strip() for line in depends.splitlines()
                   if line.strip().startswith("Depends: lib") and not line.strip().endswith("-dev")]
        assert runtime, f"apt-cache names no library package {dev} depends on"
        assert any(name in image["packages"] for name in runtime), \
            f"{dev} links {runtime}; the runtime stage installs {image['packages']}"


def test_the_image_runs_authmock_as_a_numeric_non_root_user(image):
    uid, _, gid = image["user"].partition(":")
    assert uid.isdigit() and int(uid) != 0, image["user"]
    assert gid == "" or gid.isdigit(), image["user"]
    assert f"--uid {uid}" in image["setup_run"], "the runtime stage creates no user with the USER's uid"
    assert image["entrypoint"] == ["authmock"]


def test_the_default_command_serves_a_shipped_scenario_beyond_loopback_with_a_health_check(image):
    command = image["cmd"]
    assert command[0] == "serve"
    scenario = pathlib.PurePosixPath(command[1])
    # PREFIX/share/authmock/scenarios is the repository's scenarios/ (the install layout).
    assert scenario.parts[:5] == ("/", "usr", "share", "authmock", "scenarios"), scenario
    assert (ROOT / "scenarios" / pathlib.PurePosixPath(*scenario.parts[5:])).is_file(), scenario
    options = dict(zip(command[2::2], command[3::2]))
    assert options.get("--host") == "0.0.0.0"
    assert options.get("--port", "").isdigit()
    ready = options.get("--ready-file")
    assert ready, "the default command writes no ready file for the health check"
    assert ready in image["health"], f"the health check {image['health']} does not read {ready}"
    assert image["health"][0] == "test", "the health check should need nothing but coreutils"


def test_the_copies_place_the_tarball_as_prefix_usr(image):
    copies = dict(zip(image["copies"][::2], image["copies"][1::2]))
    assert copies == {"bin/authmock": "/usr/bin/authmock", "share/": "/usr/share/"}


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("FROM a AS build\nRUN tar -xzf x.tar.gz -C /staging --strip-components=1\nFROM b\n"
         "RUN apt-get install -y libssl3\nENTRYPOINT [\"authmock\"]\nCMD [\"serve\"]\nHEALTHCHECK CMD [\"true\"]\n",
         "no RUN after"),
        ("FROM a AS build\nRUN tar -xzf x.tar.gz -C /staging --strip-components=1\nFROM b\n"
         "# container-check: runtime-setup\nRUN apt-get install -y libssl3\nCOPY ./authmock /usr/bin/\n"
         "ENTRYPOINT [\"authmock\"]\nCMD [\"serve\"]\nHEALTHCHECK CMD [\"true\"]\n",
         "COPY must be"),
        ("FROM a AS build\nRUN tar -xzf x.tar.gz -C /staging --strip-components=1\nFROM b\n"
         "# container-check: runtime-setup\nRUN apt-get install -y libssl3\nENTRYPOINT authmock\n"
         "CMD [\"serve\"]\nHEALTHCHECK CMD [\"true\"]\n",
         "exec form"),
        ("FROM b\nRUN true\n", "expected a build stage and a runtime stage"),
    ],
)
def test_the_reader_refuses_what_it_cannot_follow(tmp_path, text, complaint):
    status, stderr = refusal(tmp_path, text)
    assert status != 0
    assert complaint in stderr, stderr
