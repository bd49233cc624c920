"""A warm start for Python adapters: the runner's profile key `warm:` (README, "The client contract").

    warm: [python3, warm.py, requests]    # the modules to import once, before any case

`authmock check` starts this once per job slot instead of a fresh interpreter per case, and hands it each
case's command as one JSON line on standard input: {"argv": [...], "env": {...}, "cwd": "...",
"stdout": "file", "stderr": "file"}. For each, it forks; the child is what `python3 SCRIPT ARGS` would
have been with the listed modules already imported (the runner sends only commands whose program is
this process's own): its own process group, the case's environment,
working directory, argv and output files, the script run as `__main__` with its directory first on
sys.path, and its exit status (or the signal that ended it) is the case's. Only the cost of starting
an interpreter and importing the library is saved; no state crosses from one case to the next, because
nothing runs in this process but imports (and the hooks of main(), which run here and never in a case),
and each case runs in a child that is thrown away.

Replies, one JSON line each on the descriptor the runner reads: {"pid": N} once the child is forked (it starts
the case only after this line is written), then
{"exit": CODE} or {"signal": NUMBER}. The child is reaped only when the next line arrives, so the runner
can signal its process group until it has read the reply. A command that is not `python3 SCRIPT …` is
run with exec, unchanged. Standard library only.
"""
import atexit
import ctypes
import importlib
import json
import os
import runpy
import signal
import site
import sys
import threading
import traceback

STARTUP_ENVIRONMENT = dict(os.environ)
ORIGINAL_HANDLERS = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}


def run_child(job, requests_fd, replies_fd, parent, go):
    """In the forked child: become the case's client, run it, and never return."""
    os.setpgid(0, 0)
    for number, handler in ORIGINAL_HANDLERS.items():
        signal.signal(number, handler)
    end_with_parent(parent)
    os.close(requests_fd)
    os.close(replies_fd)
    # Nothing of the case runs before the runner has been told its pid: a child the runner cannot
    # signal (its parent died before the reply) would leave whatever it started behind.
    if os.read(go, 1) != b"g":
        os._exit(1)
    os.close(go)
    status = 1
    try:
        os.chdir(job["cwd"])
        for number, path, flags in ((0, os.devnull, os.O_RDONLY),
                                    (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                    (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            fd = os.open(path, flags, 0o644)
            os.dup2(fd, number)
            os.close(fd)
        os.environ.clear()
        os.environ.update(job["env"])
        argv = job["argv"]
        if not is_python_script(argv) or not started_like(job["env"]):
            os.execvpe(argv[0], argv, job["env"])
        script = os.path.abspath(argv[1])
        sys.argv = argv[1:]
        sys.path[0] = os.path.dirname(script)
        runpy.run_path(script, run_name="__main__")
        status = 0
        finish()
    except SystemExit as stop:
        code = stop.code
        if code is None:
            status = 0
        elif isinstance(code, int):
            status = code & 0xff
        else:
            print(code, file=sys.stderr)
            status = 1
        finish()
    except BaseException:
        # What the interpreter prints for an exception nobody caught, and its status.
        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(status)


def finish():
    """What the interpreter does at a normal exit before the process ends: join the non-daemon threads,
    then run the atexit handlers (os._exit, which ends the child, would skip both)."""
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()


def end_with_parent(parent):
    """The child dies with this process (a SIGKILL from the kernel), so a warm process that is killed leaves
    no case running; and if it is already gone, the child ends at once."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


# What the interpreter reads from its environment when it starts, and never again: a case whose
# environment says otherwise (a profile's PYTHONPATH, LANG…) starts cold, exec'd with its own.
STARTUP_VARIABLES = ("PYTHON", "LANG", "LC_")


def started_like(env):
    """Whether this interpreter started under the same start-up variables as the case's environment, and
    with the same user site-packages (chosen from HOME at start: a case's own HOME usually has none)."""
    def pick(values):
        return {k: v for k, v in values.items() if k.startswith(STARTUP_VARIABLES)}
    version = "python%d.%d" % sys.version_info[:2]
    wanted = os.path.join(env.get("HOME", ""), ".local", "lib", version, "site-packages")
    wanted = wanted if env.get("HOME") and os.path.isdir(wanted) else None
    have = site.USER_SITE if site.ENABLE_USER_SITE and site.USER_SITE and os.path.isdir(site.USER_SITE) else None
    return pick(env) == pick(STARTUP_ENVIRONMENT) and wanted == have


def is_python_script(argv):
    """`PYTHON SCRIPT …` with no interpreter options. The runner hands over only commands whose program is
    the one that started this process (the same name on the same PATH, e.g. pyenv's shim)."""
    return len(argv) >= 2 and not argv[1].startswith("-")


def hooks(modules, name):
    """The listed modules' functions called `name` (see main), in the order the modules were listed."""
    return [getattr(m, name) for m in modules if callable(getattr(m, name, None))]


def call_hooks(functions, *arguments):
    """A hook that fails is reported on this process's stderr (the warm log) and the case goes on without it."""
    for function in functions:
        try:
            function(*arguments)
        except Exception:
            traceback.print_exc()


def main():
    modules = [importlib.import_module(module) for module in sys.argv[1:]]
    # A listed module may keep something alive across cases that no case can change (the browsers of
    # browser_warm.py, each case in a user context of its own), through three optional functions, all called
    # in this process, never in a child:
    #   authmock_warm_job(job)             before the job's fork; may add to job["env"]
    #   authmock_warm_ended(job, status)   after the child ended ({"exit": N} or {"signal": N})
    #   authmock_warm_exit()               when the runner closes this process's input
    before, after, leaving = (hooks(modules, name) for name in
                              ("authmock_warm_job", "authmock_warm_ended", "authmock_warm_exit"))
    # The protocol moves off 0 and 1, which each child points at its own files.
    requests_fd, replies_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    requests = os.fdopen(requests_fd, "r", encoding="utf-8")
    reply = lambda value: os.write(replies_fd, (json.dumps(value) + "\n").encode())
    previous = None
    parent = os.getpid()
    # SIGTERM or SIGINT (authmock passes Ctrl-C on to the groups it started) end the loop, and the exit
    # hooks still run; each child gets the signals' dispositions back before it runs its case.
    for number in ORIGINAL_HANDLERS:
        signal.signal(number, lambda number, _: sys.exit(128 + number))
    try:
        for line in requests:
            if previous is not None:
                os.waitpid(previous, 0)
                previous = None
            job = json.loads(line)
            call_hooks(before, job)
            sys.stdout.flush()
            sys.stderr.flush()
            go_read, go_write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(go_write)
                run_child(job, requests_fd, replies_fd, parent, go_read)
            os.close(go_read)
            try:
                os.setpgid(pid, pid)  # as the child does: whichever runs first, the group exists before the reply
            except OSError:
                pass
            reply({"pid": pid})
            try:
                os.write(go_write, b"g")
            except BrokenPipeError:
                pass  # the runner's signal ended the child before it started the case
            os.close(go_write)
            # Learn of the end without reaping: until the next line, the pid and its group stay the child's.
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
            status = {"exit": info.si_status} if info.si_code == os.CLD_EXITED else {"signal": info.si_status}
            # Before the reply: what the hook ends (a kept browser the case left unclean) must not go on
            # reaching the case's servers once the runner has judged it.
            call_hooks(after, job, status)
            reply(status)
            previous = pid
    finally:
        if os.getpid() == parent:  # never in a child that raised before its case began
            call_hooks(leaving)


if __name__ == "__main__":
    main()
