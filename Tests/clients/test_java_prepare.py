"""The Java profiles' prepare (clients/java-common/prepare.py): the adapter in a jar and a class-data sharing
archive the profile's own command can map. A stale or mismatched archive is silently ignored by the JVM
(the cases run, only slower), so these tests are what notices one.

    python3 -m pytest -q Tests/clients/test_java_prepare.py
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
sys.path.insert(0, str(CLIENTS / "java-common"))

import prepare  # noqa: E402


def java_profiles():
    names = []
    for path in sorted(CLIENTS.glob("*.yaml")):
        profile = yaml.safe_load(path.read_text())
        if "java-common/prepare.py" in (profile.get("prepare") or []):
            names.append(path.stem)
    return names


def test_every_java_profile_goes_through_prepare():
    commands = {p.stem: yaml.safe_load(p.read_text()).get("command") for p in CLIENTS.glob("*.yaml")}
    assert {name for name, command in commands.items() if command and command[0] == "java"} == set(java_profiles())


@pytest.mark.parametrize("name", java_profiles())
def test_the_command_maps_the_archive_prepare_makes(name):
    profile = yaml.safe_load((CLIENTS / f"{name}.yaml").read_text())
    command = profile["command"]
    jar = command[command.index("-cp") + 1].split(":")[0]
    archive = prepare.option(command, "-XX:SharedArchiveFile=")
    assert jar.endswith(".jar") and archive, "the class path starts with the adapter's jar; the archive is named"
    # The JVM prints its CDS warnings (a stale archive) on stdout, which is the client's output.
    assert "-Xlog:cds*=off" in command
    # Both are build products, never committed.
    for product in (jar, archive):
        assert subprocess.run(["git", "check-ignore", "-q", f"clients/{product}"], cwd=ROOT).returncode == 0, product
    # Each archive and jar is its profile's own: two profiles writing one file would race in ci/conformance.
    others = [yaml.safe_load((CLIENTS / f"{n}.yaml").read_text())["command"] for n in java_profiles() if n != name]
    assert all(archive != prepare.option(other, "-XX:SharedArchiveFile=") for other in others)
    assert all(jar != other[other.index("-cp") + 1].split(":")[0] for other in others)


def test_up_to_date_means_newer_than_every_input(tmp_path):
    source, archive = tmp_path / "Main.java", tmp_path / "adapter.jsa"
    source.write_text("class Main {}")
    assert not prepare.up_to_date(str(archive), [str(source)])
    archive.write_bytes(b"x")
    assert prepare.up_to_date(str(archive), [str(source)])
    later = archive.stat().st_mtime + 10
    os.utime(source, (later, later))
    assert not prepare.up_to_date(str(archive), [str(source)]), "a source edited after the dump makes it stale"
    assert not prepare.up_to_date(str(archive), [str(tmp_path / "adapter.jar")]), "a missing jar is built, not trusted"


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("openssl") is None,
                    reason="no JDK here (.ci/run installs one for the matrix)")
def test_prepare_makes_an_archive_the_command_maps(tmp_path, monkeypatch):
    # A copy of the JDK profile and its sources, so that the test leaves clients/ as it was.
    name = "java-httpurlconnection"
    shutil.copy(CLIENTS / f"{name}.yaml", tmp_path)
    shutil.copytree(CLIENTS / "java-common", tmp_path / "java-common", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "java-jdk").mkdir()
    shutil.copy(CLIENTS / "java-jdk" / "Main.java", tmp_path / "java-jdk")
    arguments = yaml.safe_load((tmp_path / f"{name}.yaml").read_text())["prepare"]
    done = subprocess.run(arguments, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no class-data archive" not in done.stderr, done.stderr
    command = yaml.safe_load((tmp_path / f"{name}.yaml").read_text())["command"]
    # -Xshare:on turns "ignored" into an error: the archive maps with the command's own class path, and
    # names the adapter's classes (the training runs loaded them).
    mapped = subprocess.run([command[0], "-Xshare:on", *command[1:command.index("-cp")],
                             "-Xlog:class+load=info", "-cp", command[command.index("-cp") + 1], "Main", "--help"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    loaded = [line for line in mapped.stdout.splitlines() if " Main source: " in line]
    assert loaded and "shared objects file" in loaded[0], (mapped.stdout[-2000:], mapped.stderr[-500:])
    # A second prepare finds everything up to date and touches nothing.
    archive, jar = tmp_path / "java-jdk" / "urlconnection.jsa", tmp_path / "java-jdk" / "urlconnection.jar"
    before = archive.stat().st_mtime
    subprocess.run(arguments, cwd=tmp_path, check=True, timeout=60)
    assert archive.stat().st_mtime == before
    # A jar replaced since the dump but older by its mtime (as dpkg installs a library's new jar): the JVM
    # would refuse the archive, so prepare dumps it again.
    monkeypatch.chdir(tmp_path)  # the archive holds the class path as the command gives it: relative
    relative = ("java-jdk/urlconnection.jsa", ["java-jdk/urlconnection.jar"])
    assert prepare.maps("java", *relative)
    os.utime(jar, (before - 100, before - 100))
    assert prepare.up_to_date(str(archive), [str(jar)]) and not prepare.maps("java", *relative)
    subprocess.run(arguments, cwd=tmp_path, check=True, timeout=300)
    assert archive.stat().st_mtime != before
    assert prepare.maps("java", *relative)
