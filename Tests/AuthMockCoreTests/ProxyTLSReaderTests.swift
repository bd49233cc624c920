import AuthMockCore
import Testing

/// `proxy.tls`: the forms the reader takes and the ones it refuses, with file, line and column.
struct ProxyTLSReaderTests {
    func scenario(tls: String) -> String {
        """
        version: 1
        name: x
        users: []
        challenges: []
        resources: [{path: /, protected: false}]
        proxy:
          users: [{name: carrier, password: pigeon}]
          challenges: [{scheme: Basic}]
          tls: \(tls)
        """
    }

    @Test func takesTrueFalseAndAnIdentity() throws {
        #expect(try load(scenario(tls: "true")).proxy?.tls == ProxyTLSSettings())
        #expect(try load(scenario(tls: "false")).proxy?.tls == nil)
        let selfSigned = try load(scenario(tls: "{identity: self-signed}")).proxy?.tls
        #expect(selfSigned == ProxyTLSSettings(identity: .selfSigned))
        #expect(selfSigned?.hosts == ["localhost", "127.0.0.1"])
        #expect(try load(scenario(tls: "{}")).proxy?.tls == ProxyTLSSettings(), "a mapping without keys is the default")
        #expect(try load(scenario(tls: "true")).tls == nil, "the origin stays plain HTTP")
    }

    @Test func refusesOtherValuesWithTheirPlace() {
        #expect(diagnostics(scenario(tls: "yes please")) == [
            "bad.yaml:9:8: proxy.tls must be true, false or a mapping, found 'yes please' — write `tls: true`, or "
                + "`tls: {identity: self-signed}` for another certificate",
        ])
        let identity = diagnostics(scenario(tls: "{identity: trusted}"))
        #expect(identity.count == 1)
        #expect(identity.first?.hasPrefix("bad.yaml:9:19: proxy.tls.identity") == true, "\(identity)")
        let key = diagnostics(scenario(tls: "{hosts: [localhost]}"))
        #expect(key.count == 1)
        #expect(key.first?.hasPrefix("bad.yaml:9:9: ") == true, "\(key)")
        #expect(key.first?.contains("hosts") == true, "\(key)")
    }
}
