"""The conformance report read as a person reads it, in headless Chromium (Selenium; see conftest.py): the
whole exchange on a cell page, retries told from the first challenge, every entry a finding counts marked,
the decisive sentence beside the verdict, notes rendered with links, the run header, a reproduce block,
navigation, the filter in the URL, a clean output folder, glyphs that need no emoji font nor colour, a page
that fits 400 px, and axe-core's accessibility rules.

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q Tests/browser/test_report_pages.py
"""
import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed (ci/install-deps)").By

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("AUTHMOCK_BIN", str(ROOT / ".build" / "debug" / "authmock"))
CASES = ["basic.challenge", "digest.bad-password", "digest.stale-nonce", "h2.basic"]

# A client that retries refused credentials: seven transfers whatever the answers, each with curl's --anyauth.
RETRYING = """#!/bin/sh
ca=""
[ -n "$AUTHMOCK_CA_FILE" ] && ca="--cacert $AUTHMOCK_CA_FILE"
for i in 1 2 3 4 5 6 7; do
  code=$(curl -s -o /dev/null -w '%{http_code}' $ca --anyauth -u "$AUTHMOCK_USER:$AUTHMOCK_PASSWORD" "$AUTHMOCK_URL")
  echo "$code"
done
[ "$code" = 200 ]
"""


def authmock(*arguments, timeout=180):
    done = subprocess.run([BIN, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Two clients over the same four cases: curl's profile, and a client that retries refused credentials;
    one `check --html` site (with its JSON and JUnit beside it) and one `matrix --html` site of both."""
    work = tmp_path_factory.mktemp("site")
    client = work / "retrying"
    client.write_text(RETRYING)
    client.chmod(0o755)
    selection = [argument for case in CASES for argument in ("--case", case)]
    authmock("check", "--client", "curl", *selection, "--no-color", "--json", str(work / "curl.json"))
    authmock("check", *selection, "--no-color", "--json", str(work / "retrying.json"), "--junit",
             str(work / "retrying.xml"), "--html", str(work / "check"), "--", str(client))
    done = subprocess.run([BIN, "matrix", str(work / "curl.json"), str(work / "retrying.json"), "--profiles",
                           str(ROOT / "clients"), "--html", str(work / "matrix")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (work / "matrix" / "index.html").is_file(), done.stderr[-3000:]
    return work


def cell(site, client, case, root="matrix"):
    return (site / root / "cases" / client / f"{case}.html").as_uri()


def visible_text(driver, selector):
    return " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, selector))


# ---------------------------------------------------------------------------------------------------
# 1. The whole exchange.

def test_every_entry_shows_the_whole_exchange(browser, site):
    driver = browser.open(cell(site, "retrying", "digest.bad-password"))
    first = driver.find_element(By.CSS_SELECTOR, "li.entry")
    text = first.text
    assert re.search(r"GET / HTTP/1\.1", text), text                  # request line and protocol
    assert re.search(r"\d\d:\d\d:\d\d\.\d{3} UTC", text), text         # time
    request = [th.text for th in first.find_elements(By.CSS_SELECTOR, "table.request th")]
    assert {"Host", "User-Agent", "Accept", "body"} <= set(request), request
    response = [th.text for th in first.find_elements(By.CSS_SELECTOR, "table.response th")]
    assert {"Content-Type", "WWW-Authenticate"} <= set(response), response
    assert "401 Unauthorized" in first.find_element(By.CSS_SELECTOR, "table.response caption").text


def test_the_protocol_of_an_http2_exchange_is_named(browser, site):
    driver = browser.open(cell(site, "curl", "h2.basic"))
    lines = visible_text(driver, "li.entry .line")
    assert "HTTP/2" in lines, lines


def test_credentials_are_masked_until_revealed_and_digest_is_decoded(browser, site):
    driver = browser.open(cell(site, "retrying", "digest.bad-password"))
    entry = driver.find_element(By.CSS_SELECTOR, "li.entry.rejected")
    secret = entry.find_element(By.CSS_SELECTOR, "table.request details.secret")
    raw = secret.find_element(By.CSS_SELECTOR, "code.raw")
    assert not raw.is_displayed(), "the raw Authorization shows before it is asked for"
    decoded = dict(zip([dt.text for dt in entry.find_elements(By.CSS_SELECTOR, "dl.decoded dt")],
                       [dd.text for dd in entry.find_elements(By.CSS_SELECTOR, "dl.decoded dd")]))
    assert re.fullmatch(r"[0-9a-f]{32}", decoded.get("response", "")), decoded  # the hash a user debugs
    assert decoded.get("username") == "alice" and decoded.get("algorithm") == "MD5", decoded
    secret.find_element(By.TAG_NAME, "summary").click()
    assert raw.is_displayed()
    assert f'response="{decoded["response"]}"' in raw.text, raw.text


def test_retries_with_refused_credentials_are_told_from_the_first_challenge(browser, site):
    driver = browser.open(cell(site, "retrying", "digest.bad-password"))
    entries = driver.find_elements(By.CSS_SELECTOR, "li.entry")
    tones = [e.get_attribute("class").split()[1] for e in entries]
    assert tones[0] == "challenge", tones
    rejected = [e for e in entries if "rejected" in e.get_attribute("class")]
    assert len(rejected) >= 5, tones
    labels = [e.find_element(By.CSS_SELECTOR, ".tone").text.lower() for e in rejected]
    assert labels[0] == "credentials refused, retry 1" and labels[4] == "credentials refused, retry 5", labels
    # Not by colour alone: the first challenge and a refusal differ in border style too.
    style = lambda e: browser.js("return getComputedStyle(arguments[0]).borderLeftStyle", e)
    assert style(entries[0]) != style(rejected[0])


def test_every_entry_a_finding_counts_is_marked_not_only_those_it_quotes(browser, site):
    driver = browser.open(cell(site, "retrying", "digest.bad-password"))
    finding = driver.find_element(By.ID, "finding-1")
    quoted = set(re.findall(r"#(\d+) GET", finding.text))
    counted = driver.find_elements(By.CSS_SELECTOR, "li.entry.counted")
    seqs = {e.get_attribute("data-seq") for e in counted}
    assert len(seqs) == 7 and quoted < seqs, (quoted, seqs)           # the text quotes 4 of the 7
    assert all("counted by finding 1" in e.text for e in counted)
    outline = browser.js("return getComputedStyle(arguments[0]).boxShadow", counted[0])
    assert outline != "none"


# ---------------------------------------------------------------------------------------------------
# 2. Findings and notes.

def test_the_decisive_sentence_stands_beside_the_verdict(browser, site):
    driver = browser.open(cell(site, "retrying", "digest.bad-password"))
    line = driver.find_element(By.CSS_SELECTOR, "header .verdict-line")
    assert "fail" in line.find_element(By.CSS_SELECTOR, ".badge").text
    decisive = line.find_element(By.CSS_SELECTOR, ".decisive").text
    assert decisive.startswith("expected: stops after the response is refused"), decisive
    assert "7 request(s) with Digest credentials, at most 2 expected" in decisive
    # The header comes before the findings, which come one per item.
    order = browser.js("""return [document.querySelector('.decisive'), document.querySelector('section.findings')]
        .map(e => e.getBoundingClientRect().top)""")
    assert order[0] < order[1]
    assert len(driver.find_elements(By.CSS_SELECTOR, "ol.findings > li")) == 1


def test_index_notes_are_rendered_markdown_with_links_one_finding_per_line(browser, site):
    driver = browser.open((site / "matrix" / "index.html").as_uri())
    notes = driver.find_element(By.ID, "client-curl")
    text = notes.text
    assert "`" not in text and "**" not in text, "Markdown shows as typed"
    assert notes.find_elements(By.CSS_SELECTOR, ".note code"), "no code span in curl's notes"
    # One line per finding, each its sentence without the journal lines it quotes.
    report = json.loads((site / "retrying.json").read_text())
    retrying = driver.find_element(By.ID, "client-retrying")
    items = retrying.find_elements(By.CSS_SELECTOR, "ul.notable > li")
    assert items
    for item in items:
        case = next(c for c in report["cases"] if c["id"] in item.text)
        lines = item.find_elements(By.CSS_SELECTOR, "ul.findings > li")
        assert len(lines) == len(case["findings"]) + len(case["observations"]), item.text
        assert all("GET /" not in line.text for line in lines), item.text
    external = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a[href^='https://']")]
    assert external, "no external link on the index"
    page = browser.open(cell(site, "curl", "digest.bad-password"))
    references = [a.get_attribute("href") for a in page.find_elements(By.CSS_SELECTOR, ".reference a")]
    assert any(href.startswith("https://www.rfc-editor.org/rfc/rfc7616") for href in references), references


# ---------------------------------------------------------------------------------------------------
# 3. Header, reproduce, navigation, URL, folder, glyphs, width.

def test_the_run_header_says_when_where_what_and_links_the_other_reports(browser, site):
    driver = browser.open((site / "check" / "index.html").as_uri())
    facts = dict(zip([dt.text for dt in driver.find_elements(By.CSS_SELECTOR, "dl.run dt")],
                     [dd for dd in driver.find_elements(By.CSS_SELECTOR, "dl.run dd")]))
    assert {"started", "host", "authmock", "duration", "files"} <= set(facts), list(facts)
    assert re.match(r"\d{4}-\d\d-\d\dT", facts["started"].text)
    links = {a.text: a.get_attribute("href") for a in facts["files"].find_elements(By.TAG_NAME, "a")}
    assert links.get("JSON") == (site / "retrying.json").as_uri(), links
    assert links.get("JUnit XML") == (site / "retrying.xml").as_uri(), links


def test_each_cell_says_how_to_reproduce_it(browser, site):
    driver = browser.open(cell(site, "curl", "digest.bad-password"))
    block = driver.find_element(By.CSS_SELECTOR, "section.reproduce")
    command = block.find_element(By.TAG_NAME, "pre").text
    assert re.fullmatch(r"authmock check --case digest\.bad-password( --suite \S+)? --client curl", command), command
    block.find_element(By.TAG_NAME, "summary").click()
    names = [th.text for th in block.find_elements(By.CSS_SELECTOR, "th")]
    assert "AUTHMOCK_URL" in names and "AUTHMOCK_PASSWORD" in names, names


def test_previous_next_and_other_clients_lead_to_pages_that_exist(browser, site):
    driver = browser.open(cell(site, "curl", "digest.bad-password"))
    previous = driver.find_element(By.CSS_SELECTOR, "a[rel=prev]").get_attribute("href")
    following = driver.find_element(By.CSS_SELECTOR, "a[rel=next]").get_attribute("href")
    assert previous.endswith("/curl/basic.challenge.html") and following.endswith("/curl/digest.stale-nonce.html")
    others = driver.find_elements(By.CSS_SELECTOR, "nav.others a")
    assert len(others) == 1 and "retrying" in others[0].text, [a.text for a in others]
    for href in (previous, following, others[0].get_attribute("href")):
        assert Path(href.removeprefix("file://")).is_file(), href


def test_the_chosen_filter_is_in_the_url_and_restored_from_it(browser, site):
    index = (site / "matrix" / "index.html").as_uri()
    driver = browser.open(index)
    driver.find_element(By.CSS_SELECTOR, "label[for=verdict-fail]").click()
    assert browser.js("return location.hash") == "#verdict=fail"
    driver = browser.open(index + "#family=digest")
    assert browser.js("return document.getElementById('family-digest').checked")
    shown = [row.get_attribute("data-family") for row in driver.find_elements(By.CSS_SELECTOR, "table.matrix tbody tr")
             if row.is_displayed()]
    assert shown and set(shown) == {"digest"}, shown


def test_writing_a_site_again_leaves_no_stale_page(site, tmp_path):
    out = tmp_path / "html"
    authmock("matrix", str(site / "curl.json"), str(site / "retrying.json"), "--html", str(out))
    assert (out / "cases" / "retrying" / "h2.basic.html").is_file()
    authmock("matrix", str(site / "curl.json"), "--html", str(out))
    assert not (out / "cases" / "retrying").exists(), "the pages of a client the run lacks are left behind"
    assert (out / "cases" / "curl" / "h2.basic.html").is_file()


def is_emoji(character):
    point = ord(character)
    return (character == "\ufe0f" or 0x1F000 <= point <= 0x1FAFF or 0x2600 <= point <= 0x26FF
            or 0x2700 <= point <= 0x27BF and character not in "✓✗" or 0x2B00 <= point <= 0x2BFF
            or point in (0x2139, 0x23ED, 0x2796, 0x274C, 0x2705))


def test_verdict_glyphs_need_no_emoji_font_and_differ_in_shape(browser, site):
    driver = browser.open((site / "matrix" / "index.html").as_uri())
    glyphs = {}
    for badge in driver.find_elements(By.CSS_SELECTOR, ".legend .badge"):
        glyph = badge.find_element(By.CSS_SELECTOR, ".glyph").text
        glyphs[badge.text.split()[-1]] = glyph
        assert glyph and not any(is_emoji(c) for c in glyph), (badge.text, [unicodedata.name(c, "?") for c in glyph])
    assert len(set(glyphs.values())) == 7, glyphs                      # one shape per verdict, colour aside
    for mark in driver.find_elements(By.CSS_SELECTOR, "td.cell .glyph"):
        assert mark.text in glyphs.values()
    colour = lambda verdict: browser.js(
        "return getComputedStyle(document.querySelector('.legend .badge.v-' + arguments[0])).color", verdict)
    assert colour("skip") == colour("unimplemented") != colour("non-strict"), "skip reads as a warning"


@pytest.mark.parametrize("page", ["index", "cell"])
def test_the_pages_fit_400_pixels(browser, site, page):
    url = (site / "matrix" / "index.html").as_uri() if page == "index" else cell(site, "retrying", "digest.bad-password")
    browser.open(url, width=400)
    browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": 400, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    width = browser.js("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] == 400, width


def test_the_pages_log_no_error_to_the_console(browser, site):
    for url in [(site / "matrix" / "index.html").as_uri() + "#family=digest&verdict=fail",
                cell(site, "retrying", "digest.bad-password"), cell(site, "curl", "h2.basic")]:
        browser.open(url)
        errors = [m for m in browser.console() if m["level"] in ("SEVERE", "WARNING")]
        assert errors == [], (url, errors)


# ---------------------------------------------------------------------------------------------------
# 5. Accessibility, and the screenshots of the closing note.

@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_no_serious_accessibility_violation(browser, site, dark):
    for url in [(site / "matrix" / "index.html").as_uri(), cell(site, "retrying", "digest.bad-password")]:
        browser.open(url, dark=dark)
        assert browser.serious_violations() == [], url


def test_screenshots(browser, site):
    # AUTHMOCK_SCREENSHOTS=docs/screenshots asks for the PNGs of the closing note.
    directory = Path(os.environ["AUTHMOCK_SCREENSHOTS"]) if os.environ.get("AUTHMOCK_SCREENSHOTS") else None
    if directory is None:
        pytest.skip("AUTHMOCK_SCREENSHOTS is not set")
    for name, url in [("report-index", (site / "matrix" / "index.html").as_uri()),
                      ("report-fail-with-retries", cell(site, "retrying", "digest.bad-password"))]:
        browser.open(url)
        height = min(browser.js("return document.documentElement.scrollHeight"), 2600)
        browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
        browser.screenshot(directory / f"{name}.png")
