"""The limits the sources keep (issue 27): no file over 400 lines, no line over 120 characters, no
function over 60 lines, in Sources/ and Fuzz/Sources/. A function's length is counted from the line of its
`func`/`init` keyword to its closing brace.

Run alone: python3 Tests/docs/test_source_limits.py (prints every breach).
"""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_FILE, MAX_LINE, MAX_FUNCTION = 400, 120, 60
DECLARATION = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|"
                         r"mutating|nonmutating|override|final|convenience|required|nonisolated|class)\s+)*"
                         r"(?:func\s+[^\s(<]+|init[?!]?)\s*[(<]")


def sources():
    for folder in ("Sources", "Fuzz/Sources"):
        yield from sorted((ROOT / folder).rglob("*.swift"))


def strip_strings_and_comments(line, in_block):
    """The line without comments and string contents, so braces in them do not count."""
    out, i, in_string = [], 0, False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
            continue
        if in_string:
            if line[i] == "\\":
                i += 2
                continue
            if line[i] == '"':
                in_string = False
            i += 1
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block, i = True, i + 2
            continue
        if line[i] == '"':
            in_string = True
        else:
            out.append(line[i])
        i += 1
    return "".join(out), in_block


def long_functions(text):
    """(first line, length, signature) of every function longer than the limit."""
    lines = text.split("\n")
    found, open_functions, depth, in_block, in_multiline = [], [], 0, False, False
    for number, line in enumerate(lines, 1):
        if line.count('"""') % 2 == 1:
            in_multiline = not in_multiline
            continue
        if in_multiline:
            continue
        code, in_block = strip_strings_and_comments(line, in_block)
        if DECLARATION.match(line):
            open_functions.append((number, depth, line.strip()))
        for char in code:
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if open_functions and depth == open_functions[-1][1]:
                    start, _, signature = open_functions.pop()
                    if number - start + 1 > MAX_FUNCTION:
                        found.append((start, number - start + 1, signature))
    return found


def breaches():
    problems = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT)
        lines = text.split("\n")
        count = len(lines) - (1 if text.endswith("\n") else 0)
        if count > MAX_FILE:
            problems.append(f"{name}: {count} lines (at most {MAX_FILE})")
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_LINE:
                problems.append(f"{name}:{number}: {len(line)} characters (at most {MAX_LINE})")
        for start, length, signature in long_functions(text):
            problems.append(f"{name}:{start}: a function of {length} lines (at most {MAX_FUNCTION}): {signature[:80]}")
    return problems


def test_sources_keep_their_limits():
    problems = breaches()
    assert not problems, "\n".join(problems)


def test_a_long_function_is_found():
    body = "\n".join(f"    let x{i} = {i}" for i in range(70))
    text = f"struct S {{\n    func long() {{\n{body}\n    }}\n    func short() {{ \"}}\" }}\n}}\n"
    assert [(start, length) for start, length, _ in long_functions(text)] == [(2, 72)]


if __name__ == "__main__":
    for problem in breaches():
        print(problem)
