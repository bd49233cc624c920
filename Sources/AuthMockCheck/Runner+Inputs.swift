import AuthMockCore
import AuthMockServer
import AuthMockCertificates
import Foundation

/// What a case gives its client: placeholder values, the inputs that count as given for `when:`, the
/// environment, and the URL's authority.
extension CheckRunner {
    // MARK: - Inputs

    struct Inputs {
        /// Placeholder values.
        var values: [String: String]
        /// Which inputs the case gives (for profiles' `when:`).
        var given: Set<String>
        var environment: [String: String]
        /// `host:port` of the URL.
        var authority: String
    }

    /// Variables that would send the client's loopback requests elsewhere: never inherited.
    static let proxyVariables: Set<String> = ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"]

    func inputs(for item: ConformanceCase, server: AuthMockServer, directory: URL) throws -> Inputs {
        let definition = item.definition
        let request = definition.request
        var values: [String: String] = [:]
        let url = request.plainHTTP ? server.httpURL ?? server.url : server.url
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        values["url"] = base + request.path
        values["case"] = item.id
        values["method"] = request.method
        values["repeat"] = String(request.repeatCount)
        values["parallel"] = String(request.parallel)
        var given: Set<String> = []
        if request.method != "GET" { given.insert("method") }
        if request.repeatCount > 1 { given.insert("repeat") }
        if request.parallel > 1 { given.insert("parallel") }
        if let timeout = definition.give.timeout {
            // Whole seconds where they are whole: some clients (wget) take no fractions.
            values["timeout"] = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            given.insert("timeout")
        }

        if let user = item.scenario.users.first {
            values["user"] = user.name
            values["password"] = definition.give.password == .right ? user.password : Self.wrong(user.password)
            values["domain"] = user.domain
        }
        if let proxyURL = server.proxyURL {
            values["proxy"] = proxyURL
            if let user = item.scenario.proxy?.users.first {
                values["proxy_user"] = user.name
                values["proxy_password"] = definition.give.proxyPassword == .right ? user.password : Self.wrong(user.password)
            }
        }
        if let tls = server.tls {
            try Self.addTLSValues(tls, give: definition.give, to: &values)
        }
        if let user = item.scenario.users.first, values["password"] != nil {
            // gss-ntlmssp's credentials file (DOMAIN:user:password), for clients whose Negotiate goes through GSS-API.
            let file = directory.appendingPathComponent("ntlm-users")
            try Data("\(user.domain ?? ""):\(user.name):\(values["password"]!)\n".utf8).write(to: file)
            values["ntlm_user_file"] = file.path
        }
        if let body = request.body {
            let file = directory.appendingPathComponent("body.bin")
            try Data(body).write(to: file)
            values["body_file"] = file.path
        }
        for input in ClientInput.allCases where input.isGivenWhenSet && values[input.rawValue] != nil {
            given.insert(input.rawValue)
        }

        var environment = self.environment.filter {
            !$0.key.hasPrefix("AUTHMOCK_") && !Self.proxyVariables.contains($0.key.lowercased())
        }
        for input in ClientInput.allCases {
            if let value = values[input.rawValue] { environment[input.environmentName] = value }
        }
        environment.merge(profile.environment(values: values)) { $1 }

        let authority = URLComponents(string: values["url"]!).map { "\($0.host ?? ""):\($0.port ?? 0)" } ?? ""
        return Inputs(values: values, given: given, environment: environment, authority: authority)
    }

    /// The CA file, pin and client certificate a case gives the client.
    static func addTLSValues(_ tls: TLSInfo, give: CaseInputs, to values: inout [String: String]) throws {
        if give.ca { values["ca_file"] = tls.caFile }
        switch give.pin {
        case .none: break
        case .right: values["pin_sha256"] = tls.pinSHA256
        case .wrong: values["pin_sha256"] = try TLSIdentity.unrelatedPin()
        }
        switch give.certificatePin {
        case .none: break
        case .right: values["cert_sha256"] = tls.fingerprintSHA256
        case .wrong: values["cert_sha256"] = TLSIdentity.unrelatedFingerprint()
        }
        if give.clientCertificate, let user = values["user"], let files = tls.clientCerts?[user] {
            values["client_cert"] = files.certFile
            values["client_key"] = files.keyFile
        }
    }

    /// A password the server rejects, as close to the right one as a typo.
    static func wrong(_ password: String) -> String { password + "-wrong" }
}
