import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a password-protected resource with URLSession, answering the server's challenge from a
/// delegate — the pattern Apple's URL loading system intends:
///
/// - answer only the challenges this client knows how to (Basic and Digest; server trust and client
///   certificates are left to the system with `.performDefaultHandling`);
/// - use the credential the system proposes when it has one, else ours;
/// - give up once `previousFailureCount` says the credential was already refused: a wrong password does
///   not become right by sending it again, and a loop would lock the account on real servers.
public final class ProfileClient: NSObject, URLSessionTaskDelegate, Sendable {
    public let user: String
    public let password: String
    private let challenges = Counter()

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// How many authentication challenges the delegate was asked about.
    public var challengesSeen: Int { challenges.value }

    public enum Failure: Error, Equatable {
        /// The server refused the credentials.
        case unauthorized
        case status(Int)
    }

    /// GETs `url` and returns the body as text.
    public func fetch(_ url: URL) async throws -> String {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(from: url)
        } catch let error as URLError where error.code == .cancelled || error.code == .userAuthenticationRequired {
            // We cancelled the challenge because the credential was refused.
            throw Failure.unauthorized
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200..<300: return String(decoding: data, as: UTF8.self)
        case 401: throw Failure.unauthorized
        default: throw Failure.status(status)
        }
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        challenges.increment()
        let method = challenge.protectionSpace.authenticationMethod
        guard method == NSURLAuthenticationMethodHTTPBasic || method == NSURLAuthenticationMethodHTTPDigest else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        guard challenge.previousFailureCount == 0 else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        let credential = challenge.proposedCredential ?? URLCredential(user: user, password: password, persistence: .forSession)
        completionHandler(.useCredential, credential)
    }
}

/// A counter the delegate (called on URLSession's queue) and the caller share.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
}
