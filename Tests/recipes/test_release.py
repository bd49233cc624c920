"""The release workflow and the GitHub Action cannot run here; what they run can (ci/release, ci/tarball-check,
ci/action/run.sh through ci/action-check, which .ci/run runs for real). These checks keep the YAML and the
scripts from drifting apart."""
import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
ACTION = ROOT / "action.yml"


def load_workflow():
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    data = yaml.safe_load(WORKFLOW.read_text())
    data["on"] = data.pop(True, data.get("on"))
    return data


def test_the_release_runs_on_version_tags_for_both_architectures():
    data = load_workflow()
    assert data["on"] == {"push": {"tags": ["v*"]}}, "releases are made from v* tags only"
    assert data["permissions"] == {"contents": "write"}, "uploading release assets needs contents: write"
    build = data["jobs"]["tarball"]
    include = build["strategy"]["matrix"]["include"]
    assert {(row["arch"], row["runner"]) for row in include} == {
        ("x86_64", "ubuntu-latest"), ("aarch64", "ubuntu-24.04-arm")}
    assert build["runs-on"] == "${{ matrix.runner }}"
    assert str(build["container"]).startswith("swift:6."), "built in the Swift image"
    runs = [step.get("run", "") for step in build["steps"]]
    assert any(re.search(r"^\s*ci/release\s*$", run, re.M) for run in runs), "the release build is ci/release"
    # The tag must name the version the binary reports: the tarball's name comes from `authmock --version`.
    assert any('authmock-${GITHUB_REF_NAME#v}-linux-${{ matrix.arch }}.tar.gz' in run for run in runs)
    # Every package Package.swift links is installed where it builds (a CYAML without libyaml-dev fails).
    packages = " ".join(runs)
    for package in re.findall(r'\.apt\(\[([^]]*)\]\)', (ROOT / "Package.swift").read_text()):
        for name in re.findall(r'"([^"]+)"', package):
            assert name in packages, f"release.yml does not install {name}, which Package.swift names"


def test_the_tarball_is_checked_outside_the_swift_image():
    # ci/tarball-check refuses a machine with swift on /usr/bin:/bin, which the Swift image is.
    verify = load_workflow()["jobs"]["verify"]
    assert "container" not in verify and verify["needs"] == "tarball"
    runs = [step.get("run", "") for step in verify["steps"]]
    assert any("ci/tarball-check" in run and "${{ matrix.arch }}" in run for run in runs)
    assert any("libyaml-0-2" in run for run in runs), "the binary links libyaml at run time"
    assert set(load_workflow()["jobs"]["publish"]["needs"]) == {"tarball", "verify"}


def test_the_release_attaches_what_ci_release_writes():
    jobs = load_workflow()["jobs"]
    uploads = [s for s in jobs["tarball"]["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1
    paths = uploads[0]["with"]["path"]
    assert "out/release/*.tar.gz" in paths and "out/release/*.tar.gz.sha256" in paths
    publish = " ".join(step.get("run", "") for step in jobs["publish"]["steps"])
    assert "gh release upload" in publish and "dist/*.tar.gz.sha256" in publish
    script = (ROOT / "ci" / "release").read_text()
    assert "out/release" in script and ".tar.gz.sha256" in script and "--static-swift-stdlib" in script
    for name in ("release", "tarball-check", "action-check", "action/run.sh", "release.d/install.sh"):
        assert (ROOT / "ci" / name).stat().st_mode & 0o111, f"ci/{name} must be executable"


def load_action():
    return yaml.safe_load(ACTION.read_text())


def test_the_action_is_composite_over_its_script():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    assert {"client", "command", "cases", "jobs", "version", "tarball", "fail-on-fail"} <= set(action["inputs"])
    assert action["inputs"]["fail-on-fail"]["default"] == "false", "the README documents fail-on-fail off"
    steps = action["runs"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs == [f'"$GITHUB_ACTION_PATH/ci/action/run.sh" {word}' for word in ("install", "check", "verdict")]
    for step in steps:
        if "run" in step:
            assert step["shell"] == "bash"
            # Inputs reach the script through env:, never spliced into the command (no injection).
            assert "${{" not in step["run"]
    script = (ROOT / "ci" / "action" / "run.sh").read_text()
    for step in steps:
        for name in step.get("env", {}):
            assert name in script, f"run.sh does not read {name}"


def test_the_action_uploads_the_reports_the_check_step_names():
    action = load_action()
    steps = action["runs"]["steps"]
    names = [step.get("id") or step.get("name") for step in steps]
    upload = next(step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact@"))
    assert names.index("check") < steps.index(upload) < len(steps) - 1, "uploaded after check, before the verdict"
    assert upload["with"]["path"] == "${{ steps.check.outputs.report-dir }}"
    assert upload["if"].startswith("always()"), "a failing run's reports are the ones worth reading"
    for output in ("status", "passed", "failed", "report-dir"):
        assert action["outputs"][output]["value"] == f"${{{{ steps.check.outputs.{output} }}}}"
    readme = (ROOT / "README.md").read_text()
    assert re.search(r"uses: [\w-]+/authmock@v1", readme), "the README shows the three-line workflow"
