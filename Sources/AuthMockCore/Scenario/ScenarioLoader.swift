/// Reads scenario files (YAML, schema version 1) into ``Scenario`` values, strictly.
///
/// Every key is known, every value has one type, and every problem is reported at its position as
/// `file:line:column: what is wrong — what would be right`. All problems of a file are reported at once,
/// so that a user fixes them in one pass; a file with any problem yields no scenario at all.
///
/// ```yaml
/// version: 1
/// name: digest
/// users:
///   - name: alice
///     password: wonderland
/// challenges:
///   - scheme: Digest
///     algorithm: SHA-256
/// ```
public enum ScenarioLoader {
    /// Reads and validates a scenario file; a file that cannot be read is a diagnostic at `path:1:1`.
    /// `files` reads it and the files it names: hosts pass ``ScenarioFileReader/fileSystem``.
    public static func load(file path: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> Scenario {
        try load(yaml: text(of: path, files: files), file: path, files: files)
    }

    /// Parses and validates scenario text; `file` names it in diagnostics, and files the scenario names
    /// (`users: {htpasswd: …}`) are read through `files`, relative to `file`'s directory.
    ///
    /// The `case:` and `expect:` sections of a conformance case are accepted and not read: they are the
    /// runner's (AuthMockCheck's `CaseLoader` reads them), and `serve` has no use for them.
    public static func load(yaml text: String, file: String, files: ScenarioFileReader) throws(ScenarioLoadError)
        -> Scenario
    {
        try ScenarioReader(file: file, files: files).read(text, empty: noScenario) { reader in
            { root in reader.scenario(root, sections: { _, _ in }) }
        }
    }

    /// What to say about a file with nothing in it.
    package static let noScenario = (
        message: "the file holds no scenario",
        hint: "start with `version: 1` and `name: …`, then users, challenges and resources"
    )

    /// The text of a scenario file, or the diagnostic at `path:1:1` that says why it cannot be read.
    package static func text(of path: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> String {
        do {
            return try files.read(path)
        } catch {
            throw ScenarioLoadError(diagnostics: [
                ScenarioDiagnostic(
                    file: path, line: 1, column: 1,
                    message: "cannot read the file (\(ScenarioFileReader.reason(error)))",
                    hint: "give the path of a scenario YAML file"
                )
            ])
        }
    }

    /// The keys the loader accepts, by section: the single source for the docs and the schema test.
    /// `case` and `expect` are the runner's sections; their own keys are AuthMockCheck's `CaseLoader.keys`.
    public static let keys: [String: [String]] = [
        "scenario": [
            "version", "name", "description", "realm", "users", "challenges", "challenge-style", "nonce",
            "unauthorized", "resources", "tls", "timeline", "proxy", "second-port", "subdomains", "faults", "http2",
            "socks5", "oauth", "case", "expect",
        ],
        "http2": ["mode", "connection-auth"],
        "user": ["name", "password", "domain", "token", "scope"],
        "users file": ["htpasswd", "htdigest"],
        "challenge.basic": BasicChallenge.keys,
        "challenge.digest": DigestChallenge.keys,
        "authentication-info": DigestAuthenticationInfo.keys,
        "challenge.custom": ["custom"],
        "challenge.raw": ["raw", "fields"],
        "piece": ["repeat", "times"],
        "challenge.ntlm": NTLMChallenge.keys,
        "challenge.bearer": BearerChallenge.keys,
        "nonce": ["lifetime", "max-uses", "strict-nc", "remember", "stale-first", "size"],
        "unauthorized": ["challenge", "body", "content-type", "chunked", "close", "before-body"],
        "proxy.unauthorized": ["challenge", "body", "content-type", "chunked", "close", "status"],
        "resource": [
            "path", "protected", "status", "body", "content-type", "headers", "set-cookies", "schemes", "scope",
        ],
        "set-cookie": ["name", "value", "domain", "path", "secure", "http-only"],
        "tls": [
            "identity", "key", "hosts", "intermediate", "client-certificate", "plain-http", "rotate", "min-version",
            "max-version",
        ],
        "tls.rotate": ["after-requests", "keep-key"],
        "proxy": ["realm", "users", "challenges", "unauthorized", "faults", "tls"],
        "proxy.tls": ["identity"],
        "socks5": ["methods", "users", "fault"],
        "socks5 user": ["name", "password"],
        "fault": ["when", "effect", "duration", "times", "path"],
        "timeline step": [
            "after-successes", "after", "at-request", "user", "password", "lock", "unlock", "remove", "expire-tokens",
        ],
        "oauth": ["token-path", "clients", "grants", "scope", "access-token", "refresh-token"],
        "oauth client": ["id", "secret", "scope"],
        "oauth.access-token": ["lifetime", "uses", "format"],
        "oauth.refresh-token": ["rotate", "reuse-detection"],
    ]
}
