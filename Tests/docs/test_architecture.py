"""Keeps ARCHITECTURE.md true to the tree: every path and every type it names in backticks must exist.

What counts, in each `inline code` span outside fenced blocks:

- a repository path: a span that contains `/`, ends in a known extension (.swift .md .py .yaml …) or starts
  with a top-level folder (ci/ .ci/ Sources/ Tests/ docs/ scenarios/ clients/ Fuzz/ examples/). It must
  exist relative to the repository root; a glob (`Sources/AuthMockCore/Engine/Engine+*.swift`) must match
  at least one file; a trailing `/` must be a directory. In a span with spaces (a command line), each word
  that starts with a top-level folder is checked the same way. HTTP paths (`/_authmock/journal`), URLs and
  protocol ids (`http/1.1`) are not repository paths.
- a Swift type: an UpperCamelCase identifier, optionally `Type.member` or `Type.member(…)`, whose `Type`
  part must be declared (struct, class, enum, protocol, actor, typealias or extension) in a Swift file under
  Sources/, Tests/ or Fuzz/, or be a module of one of the packages (a target or a product it depends on),
  or be in EXTERNAL_TYPES below, each with the module it comes from. The `member` (of a type of ours) must
  be an identifier that Swift code there uses: a loose check, which catches a renamed or made-up method.
- an extension file's name without `.swift` (`Engine+Decide`): such a file must exist under Sources/,
  Tests/ or Fuzz/.

Anything else (verdict names, YAML keys, placeholders, commands without a folder) is prose and not checked.
The doc's lines must also stay within 120 characters, but for table rows and lines holding a URL.

Run: python3 -m pytest -q -p no:cacheprovider Tests/docs   (or python3 Tests/docs/test_architecture.py)
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "ARCHITECTURE.md"
MAX_LINE = 120

# Folders where declarations are looked for.
DECLARATION_ROOTS = ("Sources", "Tests", "Fuzz")
# Packages whose targets and products count as known module names.
PACKAGES = ("Package.swift", "Fuzz/Package.swift", "examples/swift-fixture/Package.swift")

PATH_PREFIXES = ("ci/", ".ci/", "Sources/", "Tests/", "docs/", "scenarios/", "clients/", "Fuzz/", "examples/")
PATH_EXTENSIONS = (
    ".swift", ".md", ".py", ".yaml", ".yml", ".json", ".sh", ".tsv", ".go", ".mod", ".java", ".c", ".h", ".pl",
    ".modulemap",
)

# Types the doc names that are not this repository's: (module, why the doc names it). Keep it short; a type
# of ours never belongs here.
EXTERNAL_TYPES = {
    # SwiftNIO and its HTTP/1, HTTP/2 and TLS parts: the handlers a connection's pipeline is made of.
    "ApplicationProtocolNegotiationHandler": ("NIOTLS", "waits for ALPN before the HTTP layers are added"),
    "BackPressureHandler": ("NIOCore", "holds reads while the client does not read its answers"),
    "ByteToMessageHandler": ("NIOCore", "wraps the HTTP/1.1 request decoder"),
    "ChannelShouldQuiesceEvent": ("NIOCore", "graceful shutdown of a connection"),
    "EmbeddedChannel": ("NIOEmbedded", "handler tests and the HTTP/2 fuzz target run without a socket"),
    "HTTP2FramePayloadToHTTP1ServerCodec": ("NIOHTTP2", "turns an HTTP/2 stream into HTTP/1 parts"),
    "HTTPRequestDecoder": ("NIOHTTP1", "the HTTP/1.1 parser RequestDecoderSlot renews"),
    "HTTPResponseEncoder": ("NIOHTTP1", "frames HTTP/1.1 answers"),
    "HTTPServerPipelineHandler": ("NIOHTTP1", "one request at a time, quiescing"),
    "NIOAny": ("NIOCore", "the box a pipeline stage passes data in"),
    "NIOHTTP2Handler": ("NIOHTTP2", "the HTTP/2 connection handler and its stream multiplexer"),
    "NIOHTTPResponseHeadersValidator": ("NIOHTTP1", "refuses invalid response header fields"),
    "NIOLockedValueBox": ("NIOConcurrencyHelpers", "the lock around the engines"),
    "NIOSSLContext": ("NIOSSL", "a TLS configuration, made per identity"),
    "NIOSSLServerHandler": ("NIOSSL", "the TLS handler of each HTTPS connection"),
    "NIOThreadPool": ("NIOPosix", "where slow password hashes run"),
    # The standard library and Foundation.
    "DispatchQueue": ("Dispatch", "the journal file's writer, certificate rotation"),
    "FileHandle": ("Foundation", "the journal file"),
    "Mutex": ("Synchronization", "the lock inside the core's password memo"),
    "Process": ("Foundation", "how the runner starts clients"),
    "SystemRandomNumberGenerator": ("Swift", "the random source without --seed"),
    "URLSession": ("Foundation", "the example package's client and the urlsession profiles"),
    # swift-argument-parser.
    "AsyncParsableCommand": ("ArgumentParser", "what each CLI subcommand is"),
}

FENCE = re.compile(r"^\s*(```|~~~)")
SPAN = re.compile(r"(`+)(.+?)\1")
TYPE = re.compile(r"^([A-Z][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\(.*\))?$")
EXTENSION_FILE = re.compile(r"^[A-Z][A-Za-z0-9_]*\+[A-Za-z0-9_]+$")
DECLARATION = re.compile(r"\b(?:struct|class|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")
TARGET_NAME = re.compile(
    r"""\.(?:target|testTarget|executableTarget|systemLibrary|library|executable|product)\(\s*name:\s*"([^"]+)\""""
)
PROTOCOL_ID = re.compile(r"^(?i:https?)/\d(?:\.\d)?$")
GLOB = re.compile(r"[*?\[]")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def spans(text):
    """(line number, code span) for every inline code span outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in SPAN.finditer(line):
            yield number, match.group(2).strip()


def swift_sources(root=ROOT):
    """(path, code) of every Swift file under Sources/, Tests/ and Fuzz/, without its comment lines."""
    for folder in DECLARATION_ROOTS:
        for path in sorted((root / folder).rglob("*.swift")):
            if ".build" in path.parts:
                continue
            code = "\n".join(
                line for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
                if not line.lstrip().startswith("//")  # "the struct Foo" in a comment declares nothing
            )
            yield path, code


def declared_names(root=ROOT):
    """Names declared in Swift under Sources/, Tests/ and Fuzz/, and the packages' module names."""
    names = set()
    for _, code in swift_sources(root):
        names.update(DECLARATION.findall(code))
    for package in PACKAGES:
        path = root / package
        if path.exists():
            names.update(TARGET_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def swift_file_stems(root=ROOT):
    return {path.stem for path, _ in swift_sources(root)}


def identifiers(root=ROOT):
    """Every identifier the Swift code uses: a loose check that `Type.member` names a real member."""
    words = set()
    for _, code in swift_sources(root):
        words.update(IDENTIFIER.findall(code))
    return words


def looks_like_path(token):
    if token.startswith("/") or "://" in token or PROTOCOL_ID.match(token):
        return False
    return "/" in token or token.endswith(PATH_EXTENSIONS) or token.startswith(PATH_PREFIXES)


def path_exists(token, root=ROOT):
    if GLOB.search(token):
        return any(root.glob(token.rstrip("/")))
    path = root / token
    return path.is_dir() if token.endswith("/") else path.exists()


def problems(text, root=ROOT):
    """Every path or type the text names that does not exist, as `line N: …` strings, in line order."""
    names, stems, words = declared_names(root), swift_file_stems(root), identifiers(root)
    found = []
    for number, token in spans(text):
        if not token:
            continue
        if any(c.isspace() for c in token):
            for word in token.split():
                if word.startswith(PATH_PREFIXES) and not path_exists(word, root):
                    found.append(f"line {number}: path `{word}` (in `{token}`) does not exist")
            continue
        if looks_like_path(token):
            if not path_exists(token, root):
                found.append(f"line {number}: path `{token}` does not exist")
            continue
        if EXTENSION_FILE.match(token):
            if token not in stems:
                found.append(f"line {number}: no file {token}.swift under {', '.join(DECLARATION_ROOTS)}")
            continue
        match = TYPE.match(token)
        if not match or not re.search(r"[a-z]", match.group(1)):
            continue  # not UpperCamelCase: a constant (GOAWAY, RST_STREAM) or prose
        name = match.group(1)
        if name in EXTERNAL_TYPES:
            continue
        if name not in names:
            found.append(f"line {number}: type `{name}` (in `{token}`) is declared nowhere in "
                         f"{', '.join(DECLARATION_ROOTS)} and is not a known external type")
        elif match.group(2) and match.group(2).split(".")[1] not in words:
            found.append(f"line {number}: `{name}` has no member `{match.group(2).split('.')[1]}` (in `{token}`)")
    return found


def long_lines(text):
    return [
        f"line {number}: {len(line)} characters"
        for number, line in enumerate(text.splitlines(), start=1)
        if len(line) > MAX_LINE and not line.lstrip().startswith("|") and "://" not in line
    ]


# The doc itself.

def test_every_path_and_type_in_the_architecture_doc_exists():
    found = problems(DOC.read_text(encoding="utf-8"))
    assert not found, "ARCHITECTURE.md names what does not exist:\n" + "\n".join(found)


def test_the_architecture_doc_keeps_lines_within_120_characters():
    found = long_lines(DOC.read_text(encoding="utf-8"))
    assert not found, "ARCHITECTURE.md has long lines:\n" + "\n".join(found)


def unmentioned(text, root=ROOT):
    """Swift files under Sources/ the text names neither by path, nor by file name, nor by a type declared in
    them; and tracked top-level folders and ci/ scripts it does not name. A new file must find its place."""
    tokens = {token for _, token in spans(text)}
    words = set(tokens)
    for token in tokens:
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_+]*", token))
    missing = []
    for path, code in swift_sources(root):
        relative = path.relative_to(root).as_posix()
        if not relative.startswith("Sources/") or relative in tokens or path.stem in words:
            continue
        if not set(DECLARATION.findall(code)) & words:
            missing.append(relative)
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    entries = sorted({f.split("/")[0] + "/" for f in tracked if "/" in f}
                     | {"ci/" + f.split("/")[1] for f in tracked if f.startswith("ci/")})
    for entry in entries:
        if not any(token.startswith(entry.rstrip("/")) or f" {entry.rstrip('/')}" in token for token in tokens):
            missing.append(entry)
    return missing


def test_every_source_file_script_and_folder_has_its_place_in_the_doc():
    missing = unmentioned(DOC.read_text(encoding="utf-8"))
    assert not missing, "ARCHITECTURE.md does not mention:\n" + "\n".join(missing)


def test_external_types_are_not_declared_here():
    # An allow-listed name that the repository declares after all should be checked as ours.
    ours = sorted(set(EXTERNAL_TYPES) & declared_names())
    assert not ours, f"declared in this repository, remove from EXTERNAL_TYPES: {ours}"


# The checker, on small synthetic docs.

SYNTHETIC = """\
# A doc

`Engine` decides; `Engine.handle(_:now:random:)` too; `EmbeddedChannel` is NIO's.
`Frobnicator` does not exist, nor does `Frobnicator.shared`, nor `Engine.frobnicate(_:)`.
`Sources/AuthMockCore/Engine/Engine.swift` and `Sources/AuthMockCore/Engine/Engine+*.swift` exist.
`Sources/AuthMockCore/Engine/Nope.swift` and `Sources/Nowhere/*.swift` do not.
`ci/test` runs `python3 -m pytest Tests/docs`, but not `ci/nothing --flag`.
`Engine+Decide` is a file; `Engine+Nothing` is not.
`GOAWAY`, `http/1.1`, `/_authmock/journal`, `{url}` and `http2: offer` are prose.
`Sources/AuthMockCore/` is a folder; `ARCHITECTURE.md/` is not one.

```
FencedTypeThatDoesNotExist Sources/fenced/path.swift
```
"""


def test_the_checker_reports_made_up_names_with_their_lines():
    found = problems(SYNTHETIC)
    assert found == [
        "line 4: type `Frobnicator` (in `Frobnicator`) is declared nowhere in Sources, Tests, Fuzz and is not a "
        "known external type",
        "line 4: type `Frobnicator` (in `Frobnicator.shared`) is declared nowhere in Sources, Tests, Fuzz and is "
        "not a known external type",
        "line 4: `Engine` has no member `frobnicate` (in `Engine.frobnicate(_:)`)",
        "line 6: path `Sources/AuthMockCore/Engine/Nope.swift` does not exist",
        "line 6: path `Sources/Nowhere/*.swift` does not exist",
        "line 7: path `ci/nothing` (in `ci/nothing --flag`) does not exist",
        "line 8: no file Engine+Nothing.swift under Sources, Tests, Fuzz",
        "line 10: path `ARCHITECTURE.md/` does not exist",
    ]


def test_the_checker_passes_a_doc_that_names_only_what_exists():
    doc = "`Engine`, `EnginePair.handle`, `Sources/AuthMockCore/`, `ci/fuzz FuzzTLSHello`, `AuthMockCore`, `NIOSSL`."
    assert problems(doc) == []


def test_a_name_that_appears_only_in_a_comment_is_not_declared(tmp_path):
    (tmp_path / "Sources").mkdir()
    (tmp_path / "Sources" / "A.swift").write_text("/// Unlike the struct Ghost of old,\nstruct Real {}\n")
    names = declared_names(tmp_path)
    assert "Real" in names and "Ghost" not in names


def test_the_checker_reads_declarations_of_every_kind():
    names = declared_names()
    # struct, final class, enum, protocol, typealias, a test-support struct, a fuzz-package module.
    for name in ("Engine", "LockedEngines", "ProxyRouting", "ExchangeResponder", "AuthMock", "Harness", "FuzzDriver"):
        assert name in names, name


def test_a_doc_that_leaves_out_a_source_file_or_a_script_says_which():
    doc = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = unmentioned(doc.replace("`UserFile`", "user files").replace("`ci/profiles`", "ci/profiles"))
    assert missing == ["Sources/AuthMockCore/Scenario/UserFile.swift", "ci/profiles"]


def test_a_long_prose_line_is_reported_and_a_table_row_is_not():
    text = "x" * 121 + "\n| " + "y" * 200 + " |\n"
    assert long_lines(text) == ["line 1: 121 characters"]


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    report = problems(text) + long_lines(text) + [f"not mentioned: {m}" for m in unmentioned(text)]
    print("\n".join(report) if report else "ARCHITECTURE.md: every path and type exists")
    sys.exit(1 if report else 0)
