"""The GitHub Actions workflow cannot run here; what it runs can. These checks keep the workflow and
ci/github-check (which ci/test runs for real) from drifting apart."""
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "conformance.yml"


def load():
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    data = yaml.safe_load(WORKFLOW.read_text())
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps():
    jobs = load()["jobs"]
    assert len(jobs) == 1, "one job: build authmock and check a client"
    return next(iter(jobs.values()))["steps"]


def test_the_workflow_triggers_and_runs_the_checked_script():
    data = load()
    assert data["on"], "the workflow needs triggers"
    runs = [step.get("run", "") for step in steps()]
    assert any("ci/github-check" in run for run in runs), "the check itself must be ci/github-check, which ci/test runs"
    assert (ROOT / "ci" / "github-check").stat().st_mode & 0o111, "ci/github-check must be executable"


def test_the_reports_the_script_writes_are_the_ones_uploaded():
    uploads = [step for step in steps() if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads, "the reports must be uploaded"
    paths = str(uploads[0]["with"]["path"])
    assert "out/github-check" in paths
    script = (ROOT / "ci" / "github-check").read_text()
    for report in ("junit.xml", "report.json", "summary.md"):
        assert report in script
