/// A way the server misbehaves at one point of an exchange, in the spirit of OkHttp's socket effects:
/// what a client's retries and timeouts are tested against.
///
/// ```yaml
/// faults:
///   - when: challenge     # challenge (401/407) | granted (the resource's answer) | any
///     effect: close       # close | disconnect | stall | drop-body | delay | server-error
///     times: 1            # only the first N matching answers (default: every one)
/// ```
///
/// The engine decides which answer carries a fault (``Response/fault``) and journals it; the shell
/// carries it out on the connection.
public struct Fault: Sendable, Equatable {
    /// Which answers the fault applies to.
    public enum Trigger: String, Sendable, Equatable, CaseIterable {
        /// The 401 (or the proxy's 407) challenge.
        case challenge
        /// The resource's answer once access is granted (or a public resource's answer).
        case granted
        /// Every answer of the scenario (control endpoints excepted).
        case any
    }

    public enum Effect: Sendable, Equatable {
        /// Sends the answer as if the connection stayed open (no `Connection: close`), then ends the
        /// connection, unanswered, as soon as the client sends anything more on it: a client that reuses
        /// it must retry on a new one. (Closing at once would race with the client's next request.)
        case close
        /// Closes the connection without answering.
        case disconnect
        /// Holds the answer: the connection stays open and silent until the client gives up, or for
        /// `seconds`, after which it is closed without an answer.
        case stall(seconds: Double?)
        /// Sends the head (with the full `Content-Length`) and half the body, then closes.
        case dropBody
        /// Sends the answer after `seconds`.
        case delay(seconds: Double)
        /// Answers `500 Internal Server Error` instead, after deciding as usual (a token endpoint that
        /// rotated the refresh token and then failed: the client never sees the new one).
        case serverError

        /// The name used in scenario files and the journal.
        public var name: String {
            switch self {
            case .close: "close"
            case .disconnect: "disconnect"
            case .stall: "stall"
            case .dropBody: "drop-body"
            case .delay: "delay"
            case .serverError: "server-error"
            }
        }

        public static let names = ["close", "disconnect", "stall", "drop-body", "delay", "server-error"]

        /// How the journal shows it over a protocol: over HTTP/2, `close` is played as a `GOAWAY` after the
        /// answer and `drop-body` as an `RST_STREAM` after half the body, and named so.
        public func journalText(over httpProtocol: HTTPProtocol) -> String {
            switch (self, httpProtocol) {
            case (.close, .h2): "goaway"
            case (.dropBody, .h2): "drop-body rst-stream"
            default: journalText
            }
        }

        /// How the journal shows it: `stall 2s`, `delay 0.5s`, `close`.
        public var journalText: String {
            switch self {
            case .stall(let seconds?), .delay(let seconds): "\(name) \(Self.format(seconds))s"
            default: name
            }
        }

        private static func format(_ seconds: Double) -> String {
            seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        }
    }

    public var trigger: Trigger
    public var effect: Effect
    /// Only answers for this resource path (as written in `resources:`); nil for every path.
    public var path: String?
    /// Only the first N matching answers; nil for every one.
    public var times: Int?

    public init(when trigger: Trigger, effect: Effect, path: String? = nil, times: Int? = nil) {
        self.trigger = trigger
        self.effect = effect
        self.path = path
        self.times = times
    }
}
