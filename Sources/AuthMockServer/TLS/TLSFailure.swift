/// Readable reasons for TLS handshake failures, from what BoringSSL reports.
enum TLSFailure {
    static func describe(_ error: any Error) -> String {
        let raw = String(describing: error)
        let known: [(String, String)] = [
            ("HTTP_REQUEST", "the client sent plain HTTP to the HTTPS port"),
            ("HTTPS_PROXY_REQUEST", "the client sent a plain-HTTP CONNECT to the TLS port"),
            ("TLSV1_ALERT_UNKNOWN_CA", "the client does not trust the certificate's issuer (alert unknown_ca)"),
            (
                "SSLV3_ALERT_CERTIFICATE_EXPIRED",
                "the client found the certificate expired or not yet valid (alert certificate_expired)"
            ),
            ("SSLV3_ALERT_BAD_CERTIFICATE", "the client rejected the certificate (alert bad_certificate)"),
            ("SSLV3_ALERT_CERTIFICATE_UNKNOWN", "the client rejected the certificate (alert certificate_unknown)"),
            (
                "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE",
                "the client does not support the certificate (alert unsupported_certificate)"
            ),
            ("TLSV1_ALERT_DECRYPT_ERROR", "the handshake failed to verify (alert decrypt_error)"),
            ("SSLV3_ALERT_HANDSHAKE_FAILURE", "the client and server share no parameters (alert handshake_failure)"),
            (
                "TLSV1_ALERT_PROTOCOL_VERSION",
                "the client refused the protocol versions the server offers (alert protocol_version)"
            ),
            (
                "TLSV1_ALERT_INSUFFICIENT_SECURITY",
                "the client finds the certificate too weak (alert insufficient_security)"
            ),
            ("PEER_DID_NOT_RETURN_A_CERTIFICATE", "the client sent no certificate, and one is required"),
            ("CERTIFICATE_VERIFY_FAILED", "the client certificate did not verify against the client CA"),
            ("WRONG_VERSION_NUMBER", "the client did not speak TLS 1.2 or 1.3"),
            ("UNSUPPORTED_PROTOCOL", "the client offered only TLS versions the server refuses"),
            ("NO_SHARED_CIPHER", "the client and server share no cipher"),
            // OpenSSL clients refusing a certificate in TLS 1.3 send an alert the server cannot decrypt.
            (
                "DECRYPTION_FAILED_OR_BAD_RECORD_MAC",
                "the client aborted the handshake with an alert the server could not read "
                    + "(a TLS 1.3 client refusing the certificate looks like this)"
            ),
        ]
        for (code, text) in known where raw.contains(code) { return "\(text) [\(code)]" }
        if raw.contains("uncleanShutdown") || raw.lowercased().contains("eof") {
            // Some clients (Python's asyncio and anyio, the JDK's HttpClient) refuse a certificate by closing
            // without the alert their TLS library wrote.
            return "the client closed the connection during the handshake, without an alert"
        }
        // Keep BoringSSL's reason codes, not its source paths.
        let codes = raw.split(separator: "OPENSSL_internal:", omittingEmptySubsequences: false).dropFirst().map {
            $0.prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
        }
        return codes.isEmpty
            ? "the handshake failed (\(raw.prefix(200)))" : "the handshake failed [\(codes.joined(separator: ", "))]"
    }

    /// Whether the client spoke plain HTTP where TLS was expected: BoringSSL names a request line it found
    /// instead of a ClientHello (`HTTP_REQUEST`, `HTTPS_PROXY_REQUEST` for a CONNECT).
    static func isPlainHTTP(_ error: any Error) -> Bool {
        let raw = String(describing: error)
        return raw.contains("HTTP_REQUEST") || raw.contains("HTTPS_PROXY_REQUEST")
    }

    /// The alert the client sent, by its RFC 8446 name, when BoringSSL's error names one
    /// (`TLSV1_ALERT_UNKNOWN_CA` → `unknown_ca`).
    static func alert(_ error: any Error) -> String? {
        let raw = String(describing: error)
        for prefix in ["SSLV3_ALERT_", "TLSV1_ALERT_"] {
            guard let start = raw.firstRange(of: prefix)?.upperBound else { continue }
            let name = raw[start...].prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
            if !name.isEmpty { return name.lowercased() }
        }
        return nil
    }
}
