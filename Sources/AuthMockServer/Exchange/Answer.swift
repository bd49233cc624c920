import AuthMockCore
import NIOHTTP1

/// A response on its way to the client, with what writing it needs from the request it answers.
struct Answer: Sendable {
    var response: Response
    /// The request's head: its version, its method (a HEAD answer has no body) and keep-alive.
    var request: HTTPRequestHead
    /// False keeps a `Connection: close` response's connection open until the request's body has been
    /// read (a challenge sent instead of 100 Continue, see ``ExchangeHandler``).
    var closeAfter = true
}
