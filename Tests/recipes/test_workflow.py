"""The GitHub Actions workflow cannot run here; what it runs can. These checks keep the workflow and the
scripts it calls (ci/github-check, ci/install-clients, ci/profiles, `authmock matrix`), which ci/test and
ci/conformance run for real, from drifting apart."""
import pathlib
import subprocess

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "conformance.yml"


def load():
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    data = yaml.safe_load(WORKFLOW.read_text())
    data["on"] = data.pop(True, data.get("on"))
    return data


def runs(job):
    return [step.get("run", "") for step in load()["jobs"][job]["steps"]]


def test_the_workflow_builds_once_checks_clients_by_shard_and_merges():
    data = load()
    assert data["on"], "the workflow needs triggers"
    jobs = data["jobs"]
    assert list(jobs) == ["build", "check", "matrix"]
    assert jobs["check"]["needs"] == "build" and set(jobs["matrix"]["needs"]) == {"build", "check"}
    matrix = jobs["check"]["strategy"]["matrix"]
    assert "needs.build.outputs.clients" in matrix["client"], "the clients come from ci/profiles, not a second list"
    assert matrix["shard"] == list(range(1, int(data["env"]["SHARDS"]) + 1)), "one job per shard of SHARDS"
    assert any("ci/profiles names" in run for run in runs("build"))
    assert any("ci/install-clients" in run for run in runs("check"))
    assert any("ci/github-check" in run and '--shard "${{ matrix.shard }}/$SHARDS"' in run for run in runs("check"))
    assert any("authmock matrix" in run and "--guide clients/guide.md" in run for run in runs("matrix"))
    for script in ("github-check", "install-clients", "profiles"):
        assert (ROOT / "ci" / script).stat().st_mode & 0o111, f"ci/{script} must be executable"


def test_the_reports_the_script_writes_are_the_ones_uploaded_and_merged():
    steps = load()["jobs"]["check"]["steps"]
    uploads = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads, "the reports must be uploaded"
    paths = str(uploads[0]["with"]["path"])
    assert "out/github-check/report.json" in paths
    assert uploads[0]["with"]["name"] == "report-${{ matrix.client }}-${{ matrix.shard }}"
    assert any("reports/report-$client-$shard/report.json" in run for run in runs("matrix"))
    script = (ROOT / "ci" / "github-check").read_text()
    for report in ("junit.xml", "report.json", "summary.md"):
        assert report in script


def test_the_matrix_job_uploads_the_html_report_it_writes():
    steps = load()["jobs"]["matrix"]["steps"]
    assert any("authmock matrix" in run and "--html html" in run for run in runs("matrix"))
    uploads = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert any(str(step["with"]["path"]).strip() == "html" for step in uploads), "the HTML report must be uploaded"
    assert '--html "$REPORTS/html"' in (ROOT / "ci" / "conformance").read_text(), "ci/conformance writes the same report"


def test_profiles_lists_every_profile_once_in_column_order():
    names = subprocess.run([str(ROOT / "ci" / "profiles"), "names"], check=True, capture_output=True, text=True).stdout.split()
    on_disk = sorted(p.stem for p in (ROOT / "clients").glob("*.yaml"))
    assert sorted(names) == on_disk and len(set(names)) == len(names)
    assert names[0] == "curl"
    debian = subprocess.run([str(ROOT / "ci" / "profiles"), "debian", "curl", "wget", "curl"], check=True, capture_output=True, text=True)
    assert debian.stdout.split() == ["curl", "gss-ntlmssp", "wget"]
    none = subprocess.run([str(ROOT / "ci" / "profiles"), "pypi", "curl"], check=True, capture_output=True, text=True)
    assert none.stdout == "", "no package, no line: an empty line would reach pip as a package name"
