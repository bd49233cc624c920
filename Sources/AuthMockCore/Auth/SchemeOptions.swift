#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one scheme's challenge options (``BasicChallenge``, ``DigestChallenge``, ``NTLMChallenge``) know of
/// themselves: the keys a scenario writes them with, how they are read, how they read to people, the
/// challenge they send, and how they verify the credentials that answer it.
///
/// Each scheme conforms in its own file (`Engine+Basic`, `Engine+Digest`, `Engine+NTLM`), and
/// ``AuthScheme/options`` names the type: the scenario reader, the engine's challenges and its
/// verification reach a scheme only through this protocol.
protocol SchemeOptions: Sendable, Equatable {
    /// The keys of a `challenges:` entry of this scheme, `scheme` included.
    static var keys: [String] { get }

    /// Reads a `challenges:` entry of `scheme`, reporting what is wrong through `reader`.
    static func read(_ fields: Fields, scheme: AuthScheme, reader: ScenarioReader) -> Challenge

    /// A short description for people: `Digest SHA-256 qop=auth`, `Basic charset=UTF-8`.
    func summary(_ scheme: AuthScheme) -> String

    /// The challenge as sent, when it never changes; nil when each one is fresh (Digest's nonce).
    func fixedChallenge(_ scheme: AuthScheme, realm: String) -> String?

    /// Verifies the credentials `attempt` carries on `engine`.
    func verify(
        _ attempt: Engine.Attempt, engine: inout Engine, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> Engine.AuthOutcome
}

extension Engine {
    /// One credentials field, as the engine hands it to its scheme.
    struct Attempt {
        /// The whole field, `Digest username="…", …`.
        var field: String
        var scheme: AuthScheme
        /// What follows the scheme name, white space included.
        var token: Substring
        var request: Request
        var now: Date
    }
}
