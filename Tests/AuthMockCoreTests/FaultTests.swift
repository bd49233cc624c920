import AuthMockCore
import Foundation
import Testing

/// Which answers carry a scenario fault, and how scenario files declare them.
struct FaultTests {
    static func engine(_ faults: [Fault]) -> (Engine, RandomSource) {
        var random = RandomSource.seeded(7)
        var scenario = Scenario(
            name: "faults", users: [User(name: "alice", password: "wonderland")], challenges: [.basic(BasicChallenge())],
            resources: [Resource(path: "/"), Resource(path: "/open", protected: false), Resource(path: "/slow")]
        )
        scenario.faults = faults
        return (Engine(scenario: scenario, random: &random), random)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let credentials = [HeaderField("Authorization", basic("alice", "wonderland"))]

    /// A `challenge` fault rides on the 401 and is journaled; a `granted` fault for /slow rides only on granted
    /// answers under /slow (whatever the query); a public resource gets neither.
    @Test func triggersPickTheirAnswers() {
        var (engine, random) = Self.engine([Fault(when: .challenge, effect: .close), Fault(when: .granted, effect: .dropBody, path: "/slow")])
        var journal = JournalLog()
        let challenged = engine.handle(Request(method: "GET", target: "/"), now: Self.now, random: &random, journal: &journal)
        #expect(challenged.response.status == 401)
        #expect(challenged.response.fault == .close)
        #expect(challenged.entry?.fault == "close")

        let granted = engine.handle(Request(method: "GET", target: "/", headers: Self.credentials), now: Self.now, random: &random, journal: &journal)
        #expect(granted.response.fault == nil, "the granted fault is only for /slow")
        let slow = engine.handle(Request(method: "GET", target: "/slow?x=1", headers: Self.credentials), now: Self.now, random: &random, journal: &journal)
        #expect(slow.response.fault == .dropBody)
        let open = engine.handle(Request(method: "GET", target: "/open"), now: Self.now, random: &random, journal: &journal)
        #expect(open.response.fault == nil)
        #expect(open.entry?.fault == nil)
    }

    /// A fault with `times: 2` fires on the first two answers only, and a reset starts the count again.
    @Test func timesCountsAndResetRestarts() {
        var (engine, random) = Self.engine([Fault(when: .any, effect: .delay(seconds: 0.5), times: 2)])
        var journal = JournalLog()
        let faults = (0..<3).map { _ in engine.handle(Request(method: "GET", target: "/open"), now: Self.now, random: &random, journal: &journal).response.fault }
        #expect(faults == [.delay(seconds: 0.5), .delay(seconds: 0.5), nil])
        engine.reset(at: Self.now)
        #expect(engine.handle(Request(method: "GET", target: "/open"), now: Self.now, random: &random, journal: &journal).entry?.fault == "delay 0.5s")
    }

    /// Even an `any` fault leaves the control endpoints alone: /_authmock/journal is answered without one.
    @Test func controlEndpointsNeverFault() {
        let (engine, random) = Self.engine([Fault(when: .any, effect: .disconnect)])
        var pair = EnginePair(origin: engine, random: random, journalCapacity: 100)
        let exchange = pair.handle(Request(method: "GET", target: "/_authmock/journal"), now: Self.now)
        #expect(exchange.response.fault == nil)
    }

    /// The loader reads the origin's faults in order, with their times, durations and paths, and the proxy's.
    @Test func loaderReadsFaults() throws {
        let scenario = try ScenarioLoader.load(yaml: """
            version: 1
            name: f
            users: [{name: a, password: b}]
            challenges: [{scheme: Basic}]
            faults:
              - {when: challenge, effect: close, times: 1}
              - {when: granted, effect: stall}
              - {when: any, effect: stall, duration: 2s, path: /api/*}
              - {when: granted, effect: delay, duration: 500ms}
              - {when: granted, effect: drop-body}
              - {when: any, effect: disconnect}
            proxy:
              users: [{name: c, password: d}]
              challenges: [{scheme: Basic}]
              faults: [{when: challenge, effect: close}]
            """, file: "f.yaml", files: .inMemory([:]))
        #expect(scenario.faults == [
            Fault(when: .challenge, effect: .close, times: 1), Fault(when: .granted, effect: .stall(seconds: nil)),
            Fault(when: .any, effect: .stall(seconds: 2), path: "/api/*"), Fault(when: .granted, effect: .delay(seconds: 0.5)),
            Fault(when: .granted, effect: .dropBody), Fault(when: .any, effect: .disconnect),
        ])
        #expect(scenario.proxy?.faults == [Fault(when: .challenge, effect: .close)])
        #expect(scenario.proxyScenario?.faults == [Fault(when: .challenge, effect: .close)])
    }

    /// A scenario file with one bad fault, and what the loader says about it.
    struct BadFault: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var yaml: String
        /// The diagnostics exactly, or nil where only their number (one) is checked.
        var diagnostics: [String]?
    }

    static let head = "version: 1\nname: f\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\n"
    static let badFaults = [
        BadFault(testDescription: "an unknown effect", yaml: head + "faults: [{when: challenge, effect: explode}]", diagnostics: [
            "bad.yaml:5:36: faults.effect 'explode' is not known — expected one of: close, disconnect, stall, drop-body, delay, server-error",
        ]),
        BadFault(testDescription: "a misspelt trigger", yaml: head + "faults: [{when: challange, effect: close}]", diagnostics: [
            "bad.yaml:5:17: faults.when 'challange' is not one of challenge, granted, any — did you mean 'challenge'? (expected one of: challenge, granted, any)",
        ]),
        BadFault(testDescription: "a delay without a duration", yaml: head + "faults: [{when: any, effect: delay}]", diagnostics: [
            "bad.yaml:5:30: effect delay needs a duration — add `duration: 2s`",
        ]),
        BadFault(testDescription: "a close with a duration", yaml: head + "faults: [{when: any, effect: close, duration: 1s}]", diagnostics: [
            "bad.yaml:5:47: effect close takes no duration — remove `duration:`; only stall and delay wait",
        ]),
        BadFault(testDescription: "times: 0", yaml: head + "faults: [{when: any, effect: close, times: 0}]", diagnostics: nil),
        BadFault(testDescription: "no trigger", yaml: head + "faults: [{effect: close}]", diagnostics: nil),
        BadFault(
            testDescription: "a proxy fault on granted answers",
            yaml: "version: 1\nname: f\nusers: []\nchallenges: []\nresources: [{path: /, protected: false}]\nproxy:\n  users: [{name: c, password: d}]\n  challenges: [{scheme: Basic}]\n  faults: [{when: granted, effect: close}]\n",
            diagnostics: [
                "bad.yaml:9:19: proxy.faults.when 'granted' is not one of challenge — the proxy's faults apply to its 407s: write `when: challenge`",
            ]
        ),
    ]

    /// A bad fault is refused: an unknown effect, a misspelt trigger (with a suggestion), a delay without a
    /// duration, a close with one, `times: 0`, no trigger, and a proxy fault on anything but its 407s.
    @Test(arguments: badFaults)
    func loaderRefusesBadFaults(_ c: BadFault) {
        if let expected = c.diagnostics {
            #expect(diagnostics(c.yaml) == expected)
        } else {
            #expect(diagnostics(c.yaml).count == 1)
        }
    }
}
