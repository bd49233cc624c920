import AuthMockCore
internal import Crypto

extension Judge {
    /// Lower-case hex SHA-256, as the journal's `body_sha256` records bodies.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexString
    }
}
