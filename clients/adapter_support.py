"""The plumbing the Python adapters share, none of it an HTTP library's API.

Reading the AUTHMOCK_* inputs, running REPEAT x PARALLEL fetches (threads or asyncio tasks), and
turning the statuses, or the exception that ended the run, into the output and exit status the
client contract asks for (README, "The client contract"): 1 with one line `Type: message` for an
error the library reports the way its documentation says it reports errors, 70 (EX_SOFTWARE) with
the traceback for anything else, a crash (issue 26). Each adapter imports it from its own
directory (clients/, first on sys.path when the adapter runs). Standard library only: it runs under
pyenv's python3 and Debian's /usr/bin/python3 (libsoup.py) alike.
"""
import argparse
import asyncio
import os
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit, urlunsplit


def env(name, default=None):
    """An AUTHMOCK_* input; unset or empty (an input that does not apply to the case) is `default`."""
    value = os.environ.get(name)
    return value if value else default


def auth_option(choices=("basic", "digest")):
    """The adapter's `--auth basic|digest` argument (or other `choices`, the first the default): which
    of the library's authentication APIs the profile asks for."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--auth", choices=list(choices), default=choices[0])
    return parser.parse_args().auth


def read_body():
    """The bytes of AUTHMOCK_BODY_FILE, or None when the case sends no body."""
    if not env("AUTHMOCK_BODY_FILE"):
        return None
    with open(env("AUTHMOCK_BODY_FILE"), "rb") as f:
        return f.read()


def with_userinfo(url, user, password):
    """The URL with "user:password@" (each percent-encoded) in front of its host."""
    parts = urlsplit(url)
    userinfo = quote(user, safe="") + ":" + quote(password, safe="")
    return urlunsplit(parts._replace(netloc=userinfo + "@" + parts.netloc))


def in_threads(fetch, repeat, parallel):
    """PARALLEL threads at once, each calling fetch() REPEAT times in a row: the statuses, thread by thread."""
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        batches = list(pool.map(lambda _: [fetch() for _ in range(repeat)], range(parallel)))
    return [c for batch in batches for c in batch]


async def in_tasks(fetch, repeat, parallel):
    """PARALLEL concurrent tasks, each awaiting fetch() REPEAT times in a row: the statuses, task by task."""
    async def worker():
        return [await fetch() for _ in range(repeat)]

    batches = await asyncio.gather(*(worker() for _ in range(parallel)))
    return [c for batch in batches for c in batch]


def report(codes):
    """Prints the statuses on one line; the exit status: 0 when every one is a 2xx, else 1."""
    print(" ".join(str(c) for c in codes))
    return 0 if all(200 <= c < 300 for c in codes) else 1


# The exit status of a crash (sysexits.h EX_SOFTWARE): the profiles declare it in `crash: exit-status`.
CRASHED = 70


def exit_with(main, *, errors, names=None):
    """Exits with main()'s status. An exception that ends it is reported, not retried.

    `errors` are the exception classes the library's documentation says it raises for a failed
    request (each adapter cites the page): such an exception is a clean failure, one line
    `Type: message` on stderr and status 1. Any other exception is a crash, the library (or the
    adapter) broke: Python's own traceback on stderr ("Traceback (most recent call last):", the
    marker the profiles declare in `crash: stderr`) and status 70. `names` maps an exception class
    to the name to print for it (pycurl.error's own __name__ is just "error")."""
    try:
        status = main()
    except tuple(errors) as e:
        name = next((n for cls, n in (names or {}).items() if isinstance(e, cls)), type(e).__name__)
        print(f"{name}: {e}", file=sys.stderr)
        status = 1
    except Exception:
        sys.stdout.flush()
        traceback.print_exc()
        status = CRASHED
    sys.exit(status)
