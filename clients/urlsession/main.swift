// authmock adapter for Foundation's URLSession (swift-corelibs-foundation on Linux).
//
// Build: swiftc -O clients/urlsession/main.swift -o /tmp/urlsession-client
// Run:   /tmp/urlsession-client [--delegate documented|naive]   (inputs in AUTHMOCK_* variables)
// Version: `swift --version` (first line); FoundationNetworking ships with the toolchain.
//
// The adapter only maps the inputs onto URLSession's API. Which scheme is used, redirects and
// TLS checks are URLSession's decisions. URLSession on Linux (like on Apple platforms) leaves the
// answer to an authentication challenge to the session's delegate, so the delegate is part of
// what a user writes; two are offered, chosen by `--delegate`:
//
// - `documented` (the default, profile `urlsession`): the delegate Apple's article "Handling an
//   authentication challenge" teaches
//   (https://developer.apple.com/documentation/foundation/handling-an-authentication-challenge,
//   formerly .../url_loading_system/handling_an_authentication_challenge), with the
//   URLAuthenticationChallenge class overview
//   (https://developer.apple.com/documentation/foundation/urlauthenticationchallenge):
//     * a challenge it does not answer with a password (server trust, client certificate)
//       gets `.performDefaultHandling` (Listing 1);
//     * previousFailureCount > 0 means the server refused the credential; the article's answer
//       ("Handle failures gracefully") is to ask the user again, and with no one to ask the
//       adapter cannot create a credential, which Listing 3 answers with
//       `.cancelAuthenticationChallenge`;
//     * with previousFailureCount == 0, a proposedCredential "has not yet been tried, which
//       means you should try it" (class overview);
//     * otherwise a new URLCredential(user:password:persistence: .forSession) (Listing 2), or
//       `.cancelAuthenticationChallenge` when the case gave no user (Listing 3).
// - `naive` (profile `urlsession-naive`): answers every password challenge with the case's
//   credential and never looks at previousFailureCount or proposedCredential, so any retry
//   limit must come from URLSession itself.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

let environment = ProcessInfo.processInfo.environment
func input(_ name: String) -> String? {
    guard let value = environment[name], !value.isEmpty else { return nil }
    return value
}

/// Which challenge handler the delegate runs (see the header).
enum DelegateStyle: String {
    case documented, naive
}

/// Answers authentication challenges and records how each task ended.
final class Delegate: NSObject, URLSessionDataDelegate {
    let style: DelegateStyle
    let user = input("AUTHMOCK_USER")
    let password = input("AUTHMOCK_PASSWORD") ?? ""
    let proxyUser = input("AUTHMOCK_PROXY_USER")
    let proxyPassword = input("AUTHMOCK_PROXY_PASSWORD") ?? ""
    /// taskIdentifier -> status code, or the error that ended the task.
    let outcomes = Mutex<[Int: Result<Int, Error>]>([:])
    let group = DispatchGroup()

    init(style: DelegateStyle) {
        self.style = style
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let space = challenge.protectionSpace
        switch space.authenticationMethod {
        // The values of NSURLAuthenticationMethodServerTrust / ...ClientCertificate, spelled
        // out because corelibs-foundation marks those constants unavailable (it never sends
        // TLS challenges). TLS trust and client identity: leave the decision to URLSession
        // (Listing 1 of Apple's article: a challenge you do not handle gets default handling).
        case "NSURLAuthenticationMethodServerTrust", "NSURLAuthenticationMethodClientCertificate":
            completionHandler(.performDefaultHandling, nil)
        default:
            // HTTP Basic, Digest, NTLM, Negotiate (whichever ones URLSession chooses to pass
            // on): a user name and password, the proxy's for a proxy challenge.
            let name = space.isProxy() ? proxyUser : user
            let secret = space.isProxy() ? proxyPassword : password
            switch style {
            case .documented:
                if challenge.previousFailureCount > 0 {
                    // "Handle failures gracefully": the credential was refused. The article
                    // would ask the user for a new one; there is none, so: cancel (Listing 3).
                    completionHandler(.cancelAuthenticationChallenge, nil)
                } else if let proposed = challenge.proposedCredential {
                    // Not yet tried (class overview of URLAuthenticationChallenge): try it.
                    completionHandler(.useCredential, proposed)
                } else if let name {
                    // Listing 2: a credential kept for this session only.
                    completionHandler(.useCredential,
                                      URLCredential(user: name, password: secret, persistence: .forSession))
                } else {
                    // Listing 3: no credential can be created.
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
            case .naive:
                // Kept as it was: no look at previousFailureCount. (Without a user it asks for
                // default handling, which in corelibs does nothing when there is no
                // proposedCredential; no case of the suite gets there.)
                if let name {
                    completionHandler(.useCredential,
                                      URLCredential(user: name, password: secret, persistence: .forSession))
                } else {
                    completionHandler(.performDefaultHandling, nil)
                }
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let outcome: Result<Int, Error>
        if let error {
            outcome = .failure(error)
        } else if let response = task.response as? HTTPURLResponse {
            outcome = .success(response.statusCode)
        } else {
            outcome = .failure(URLError(.badServerResponse))
        }
        outcomes.withLock { $0[task.taskIdentifier] = outcome }
        group.leave()
    }
}

var style = DelegateStyle.documented
let arguments = CommandLine.arguments.dropFirst()
if !arguments.isEmpty {
    guard arguments.count == 2, arguments.first == "--delegate",
          let chosen = arguments.last.flatMap(DelegateStyle.init(rawValue:)) else {
        FileHandle.standardError.write("ConfigurationError: usage: urlsession-client [--delegate documented|naive]\n".data(using: .utf8)!)
        exit(1)
    }
    style = chosen
}

guard let urlString = input("AUTHMOCK_URL"), let url = URL(string: urlString) else {
    FileHandle.standardError.write("ConfigurationError: AUTHMOCK_URL is missing or invalid\n".data(using: .utf8)!)
    exit(1)
}
let repeatCount = Int(input("AUTHMOCK_REPEAT") ?? "1") ?? 1
let parallelCount = Int(input("AUTHMOCK_PARALLEL") ?? "1") ?? 1

let configuration = URLSessionConfiguration.default
if let timeout = input("AUTHMOCK_TIMEOUT").flatMap(Double.init) {
    // How long a task may wait for data; the default (60 s) is longer than the runner waits.
    configuration.timeoutIntervalForRequest = timeout
}
if let proxy = input("AUTHMOCK_PROXY"), let proxyURL = URL(string: proxy),
   let host = proxyURL.host, let port = proxyURL.port {
    // The documented way to set a proxy for a session (keys of kCFNetworkProxies*). On Linux it is
    // stored and never handed to libcurl (the proxy TODO in EasyHandle.swift at swift-6.3.1-RELEASE).
    configuration.connectionProxyDictionary = [
        "HTTPEnable": 1, "HTTPProxy": host, "HTTPPort": port,
        "HTTPSEnable": 1, "HTTPSProxy": host, "HTTPSPort": port,
    ]
    // What does reach libcurl: FoundationNetworking never sets CURLOPT_PROXY, so each easy handle
    // uses libcurl's own proxy environment ("libcurl respects the proxy environment variables named
    // http_proxy, ftp_proxy, sftp_proxy etc.", https://curl.se/libcurl/c/CURLOPT_PROXY.html), the
    // way a Linux user sets a proxy for a URLSession program. Proxy credentials go in that URL's
    // userinfo (percent-encoded by URLComponents): libcurl sends them as Basic up front, and a 407
    // never reaches the delegate (FoundationNetworking makes challenges of 401s only).
    if var components = URLComponents(url: proxyURL, resolvingAgainstBaseURL: false) {
        if let name = input("AUTHMOCK_PROXY_USER") {
            components.user = name
            components.password = input("AUTHMOCK_PROXY_PASSWORD") ?? ""
        }
        if let value = components.string {
            setenv("http_proxy", value, 1)
            setenv("https_proxy", value, 1)
        }
    }
}
if let socks = input("AUTHMOCK_SOCKS_PROXY"), var components = URLComponents(string: socks) {
    // SOCKS5 the same way: libcurl takes a socks5h:// URL (the proxy resolves the name) from the same
    // variables, with the RFC 1929 user name and password in its userinfo.
    if let name = input("AUTHMOCK_SOCKS_USER") {
        components.user = name
        components.password = input("AUTHMOCK_SOCKS_PASSWORD") ?? ""
    }
    if let value = components.string {
        setenv("http_proxy", value, 1)
        setenv("https_proxy", value, 1)
    }
}
// Not mapped, because URLSession on Linux has no way to take them:
// - AUTHMOCK_CA_FILE: no API for extra trust roots, and no server-trust challenge. The
//   URLSessionCertificateAuthorityInfoFile variable is read only when built for Android
//   (EasyHandle.setCARootBundlePath); on Linux it was tried and changes nothing.
// - AUTHMOCK_CLIENT_CERT/KEY: no client-certificate support (the method is unavailable).
// - AUTHMOCK_PIN_SHA256: no pinning API. AUTHMOCK_DOMAIN: no NTLM.

var request = URLRequest(url: url)
request.httpMethod = input("AUTHMOCK_METHOD") ?? "GET"
if let bodyFile = input("AUTHMOCK_BODY_FILE") {
    do {
        request.httpBody = try Data(contentsOf: URL(fileURLWithPath: bodyFile))
    } catch {
        FileHandle.standardError.write("\(type(of: error)): \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

let delegate = Delegate(style: style)
// One session for every fetch. Tasks are created without a completion handler: on Linux a
// task with a completion handler never asks the delegate about authentication challenges.
let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
var taskIDs: [Int] = []
for _ in 0..<max(repeatCount, 1) {
    // PARALLEL tasks at once, REPEAT rounds one after the other.
    for _ in 0..<max(parallelCount, 1) {
        let task = session.dataTask(with: request)
        taskIDs.append(task.taskIdentifier)
        delegate.group.enter()
        task.resume()
    }
    delegate.group.wait()
}
session.finishTasksAndInvalidate()

let outcomes = delegate.outcomes.withLock { $0 }
var codes: [String] = []
var ok = true
for id in taskIDs {
    switch outcomes[id] {
    case .success(let code)?:
        codes.append(String(code))
        if !(200..<300).contains(code) { ok = false }
    case .failure(let error)?:
        ok = false
        let ns = error as NSError
        FileHandle.standardError.write("\(type(of: error)): \(ns.domain) \(ns.code) \(ns.localizedDescription)\n".data(using: .utf8)!)
    case nil:
        ok = false
    }
}
print(codes.joined(separator: " "))
exit(ok ? 0 : 1)
