import AuthMockCore
import NIOHTTP1

/// A request whose head and body have arrived: the engine's view of it, and its head for the answer.
struct ExchangeRequest {
    var request: Request
    var head: HTTPRequestHead
}
