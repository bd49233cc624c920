/// One of the server's origin listeners, as a target of its proxy.
struct OriginListener: Sendable {
    var port: Int
    var tls: TLSRuntime?
}
