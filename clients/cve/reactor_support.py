"""The plumbing the Twisted-based CVE adapters share (twisted.web.client, treq), none of it an HTTP library's API:
run one Deferred-returning fetch on the reactor and hand back its statuses, or raise what it failed with."""
from twisted.internet import reactor
from twisted.python.failure import Failure

from adapter_support import report


def run_fetch(fetch):
    """Runs fetch() (a Deferred of a list of statuses) to its end on the reactor: report() of the statuses,
    or the failure's exception raised, for exit_with to sort into a documented error or a crash."""
    outcome = []
    d = fetch()
    d.addBoth(outcome.append)
    d.addBoth(lambda _: reactor.stop())
    reactor.run()
    if isinstance(outcome[0], Failure):
        outcome[0].raiseException()
    return report(outcome[0])
