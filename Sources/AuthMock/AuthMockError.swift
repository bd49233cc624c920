/// What the fixture throws.
public enum AuthMockError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchUser(String)
    case timedOut(Duration)
    case shutDown

    public var description: String {
        switch self {
        case .noSuchUser(let name): return "the scenario has no user named '\(name)'"
        case .timedOut(let timeout): return "no request arrived within \(timeout)"
        case .shutDown: return "the server was shut down"
        }
    }
}
