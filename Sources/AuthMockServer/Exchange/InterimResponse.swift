import NIOHTTP1

/// What to answer a request head that carries `Expect: 100-continue` before its body arrives
/// (RFC 9110 §10.1.1; HTTP/1.1 only).
enum InterimResponse: Equatable {
    /// Nothing: the request does not ask, or its body is refused (413) anyway.
    case none
    /// `100 Continue`: the client may send its body.
    case sendContinue
    /// The challenge instead of 100 Continue: the client need not send a body it must repeat with
    /// credentials (Apache and IIS do the same). The body, if it still comes, is dropped.
    case challenge

    /// - Parameter challengesBeforeBody: whether the engine would challenge this request whatever its
    ///   body; asked only when the request expects 100-continue.
    static func decide(for head: HTTPRequestHead, bodyRefused: Bool, challengesBeforeBody: () -> Bool)
        -> InterimResponse
    {
        guard head.version.major == 1, head.version.minor >= 1, !bodyRefused,
            head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" })
        else { return .none }
        return challengesBeforeBody() ? .challenge : .sendContinue
    }
}
