#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Bearer tokens a scenario's token endpoint issued, and what became of them: expired, used up,
/// rotated, revoked with their family.
///
/// Tokens are kept by SHA-256 of their text, never by the text: a lookup compares digests, so the time it
/// takes says nothing about how much of a guessed token was right. Bounded: beyond ``capacity`` tokens of
/// a kind, the oldest half is forgotten (a client that loops on the endpoint cannot grow it without end).
struct TokenStore: Sendable, Equatable {
    /// An access token's record.
    struct Access: Sendable, Equatable {
        /// The user (password grant, static token) or the client (client credentials) it speaks for.
        var subject: String
        /// The client it was issued to; nil for a user's static token.
        var client: String?
        var scope: [String]?
        var issuedAt: Date
        var expiresAt: Date?
        /// Requests it may still serve; nil: any number.
        var usesLeft: Int?
        /// The grant it descends from (a password grant and its refreshes); nil for client credentials.
        var family: Int?
        /// Expired by the timeline (`expire-tokens`).
        var expired = false
        /// Its place in issue order (``TokenStore/insert(access:_:)`` sets it), for forgetting the oldest.
        var serial = 0
    }

    /// A refresh token's record.
    struct Refresh: Sendable, Equatable {
        var subject: String
        var client: String
        var scope: [String]?
        var family: Int
        /// Exchanged already: rotation retired it, and presenting it again is reuse.
        var used = false
        /// Its place in issue order, set by ``TokenStore/insert(refresh:_:)``.
        var serial = 0
    }

    typealias Key = [UInt8]

    private(set) var access: [Key: Access] = [:]
    private(set) var refresh: [Key: Refresh] = [:]
    /// Families revoked because one of their retired refresh tokens came back (OAuth 2.0 Security BCP §4.14.2).
    private(set) var revokedFamilies: Set<Int> = []
    private(set) var families = 0
    private(set) var issued = 0
    /// Subjects whose static tokens expired by the timeline.
    private(set) var expiredStatic: Set<String> = []
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    static func key(_ token: some StringProtocol) -> Key {
        HashFunction.sha256.hash(token.utf8)
    }

    mutating func newFamily() -> Int {
        families += 1
        return families
    }

    mutating func insert(access token: String, _ record: Access) {
        Self.insert(record, for: token, serial: \.serial, into: &access, issued: &issued, capacity: capacity)
    }

    mutating func insert(refresh token: String, _ record: Refresh) {
        Self.insert(record, for: token, serial: \.serial, into: &refresh, issued: &issued, capacity: capacity)
    }

    /// Numbers `record` in issue order and keeps it by its token's digest, first forgetting the older half of
    /// `table` when it is full.
    private static func insert<Record>(
        _ record: Record, for token: String, serial: WritableKeyPath<Record, Int>, into table: inout [Key: Record],
        issued: inout Int, capacity: Int
    ) {
        if table.count >= capacity { table = newerHalf(of: table, serial: { $0[keyPath: serial] }) }
        var record = record
        issued += 1
        record[keyPath: serial] = issued
        table[key(token)] = record
    }

    mutating func updateAccess(_ key: Key, _ change: (inout Access) -> Void) {
        guard var record = access[key] else { return }
        change(&record)
        access[key] = record
    }

    mutating func markUsed(refresh key: Key) {
        refresh[key]?.used = true
    }

    /// Revokes a family: its refresh tokens and access tokens stop working.
    mutating func revoke(family: Int) {
        revokedFamilies.insert(family)
    }

    func isRevoked(_ family: Int?) -> Bool {
        family.map(revokedFamilies.contains) ?? false
    }

    /// Expires every access token of `subject`, its static one included; refresh tokens stay.
    /// Returns how many issued tokens it expired.
    mutating func expireTokens(of subject: String) -> Int {
        expiredStatic.insert(subject)
        var count = 0
        for (key, record) in access where record.subject == subject && !record.expired {
            access[key]?.expired = true
            count += 1
        }
        return count
    }

    private static func newerHalf<Record>(of records: [Key: Record], serial: (Record) -> Int) -> [Key: Record] {
        let cut = records.values.map(serial).sorted()[records.count / 2]
        return records.filter { serial($0.value) >= cut }
    }
}
