import ArgumentParser
import AuthMockCertificates
import AuthMockCore
import AuthMockServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthMockCommand {
    struct Certs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "certs",
            abstract: "Generate a TLS identity's files without serving.",
            discussion: """
                Writes ca.pem, chain.pem, leaf.pem, key.pem (and client-ca.pem and clients/ with --client) to --out,
                and prints the same JSON as the ready line's "tls" field, pins included.
                """
        )

        @Option(help: ArgumentHelp("Directory to write the files to (created if missing).", valueName: "dir"))
        var out: String

        @Option(
            help: ArgumentHelp(
                "One of: \(IdentityKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "kind"
            )
        )
        var kind: IdentityKind = .caSigned

        @Option(name: .customLong("key-type"), help: ArgumentHelp("ecdsa-p256 or rsa-2048.", valueName: "type"))
        var keyType: KeyType = .ecdsaP256

        @Option(
            parsing: .upToNextOption,
            help: ArgumentHelp("Names and addresses the certificate is for.", valueName: "host")
        )
        var hosts: [String] = IdentityRequest.defaultHosts

        @Flag(help: "Put an intermediate CA between root and leaf.")
        var intermediate = false

        @Option(
            name: .customLong("client"),
            help: ArgumentHelp("Also make a client certificate for this user (repeatable).", valueName: "user")
        )
        var clients: [String] = []

        func run() throws {
            let identity = try TLSIdentity.generate(
                IdentityRequest(
                    kind: kind, keyType: keyType, hosts: hosts, intermediate: intermediate, clientUsers: clients
                )
            )
            let info = try TLSInfo.write(identity, to: URL(fileURLWithPath: out))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys, .prettyPrinted]
            printOut(String(decoding: try encoder.encode(info), as: UTF8.self))
        }
    }
}

extension IdentityKind: ExpressibleByArgument {}
extension KeyType: ExpressibleByArgument {}
