import AuthMockCore
import Foundation
import FuzzDriver
import FuzzSupport

// Token requests (RFC 6749 §3.2) through the whole engine, then the token they got (if any) at the resource.
//
// An input is `SELECTOR` `AUTHORIZATION` `\n` `BODY`: the selector's bits choose the method (bit 0: GET
// instead of POST) and the content type (bit 1: none; bit 2: `application/json`; else the form type); the
// first line is the `Authorization` value (empty: none); the rest is the body. Before each input the engine
// starts over and logs alice in, so that `{refresh}` and `{access}` in the body (replaced by her live refresh
// and access tokens) reach the refresh grant's checks, rotation and reuse detection.
//
// Invariants (a violation is a crash for libFuzzer): every request yields one journal entry; the status is
// 200, 400, 401 or 405 and the body is JSON with `access_token` and `token_type: Bearer` (200) or an `error`
// of §5.2 (any other status); every answer carries `Cache-Control: no-store`; a 401 names its scheme in
// `WWW-Authenticate`; the verdict header names the entry's verdict; no response header holds CR, LF or NUL.
// A token issued is then sent to "/" as a Bearer token, which answers 200, 401 or 403 and is journaled.

let scenario: Scenario = {
    let yaml = """
        version: 1
        name: fuzz-oauth
        users: [{name: alice, password: wonderland, token: alice-static, scope: read}]
        challenges: [{scheme: Bearer}]
        resources: [{path: /}, {path: /admin, scope: admin}]
        oauth:
          clients: [{id: app, secret: app-secret, scope: read admin}, {id: public}]
          grants: [client_credentials, password, refresh_token]
          access-token: {lifetime: 60s, uses: 3}
        """
    do {
        return try ScenarioLoader.load(yaml: yaml, file: "fuzz.yaml", files: ScenarioFileReader.inMemory([:]))
    } catch {
        fatalError("the fuzz scenario does not load: \(error)")
    }
}()

let errors: Set<String> = [
    "invalid_request", "invalid_client", "invalid_grant", "unsupported_grant_type", "invalid_scope",
]
let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let newline = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
    let authorization = String(decoding: rest[..<newline], as: UTF8.self)
    var body = Array(rest[min(newline + 1, rest.count)...])

    var random = RandomSource.seeded(1)
    var engine = JournaledEngine(Engine(scenario: scenario, random: &random), capacity: 64)
    let login = send(
        &engine, method: "POST", headers: form + [HeaderField("Authorization", "Basic YXBwOmFwcC1zZWNyZXQ=")],
        body: Array("grant_type=password&username=alice&password=wonderland".utf8), exchange: 1
    )
    precondition(login.response.status == 200, "the login failed: \(login.response.bodyText)")
    let tokens = json(login.response.body)
    body = replace(body, "{refresh}", with: tokens["refresh_token"]?.text ?? "")
    body = replace(body, "{access}", with: tokens["access_token"]?.text ?? "")

    var headers: [HeaderField] = []
    if selector & 2 == 0 {
        headers.append(selector & 4 == 0 ? form[0] : HeaderField("Content-Type", "application/json"))
    }
    if !authorization.isEmpty { headers.append(HeaderField("Authorization", authorization)) }
    let answer = send(&engine, method: selector & 1 == 0 ? "POST" : "GET", headers: headers, body: body, exchange: 2)
    let status = answer.response.status
    precondition([200, 400, 401, 405].contains(status), "status \(status) (\(answer.entry!.verdict))")
    let document = json(answer.response.body)
    if status == 200 {
        precondition(document["token_type"] == .string("Bearer"), "a 200 without token_type Bearer")
        guard let access = document["access_token"]?.text else { fatalError("a 200 without access_token") }
        let used = send(
            &engine, method: "GET", target: "/", headers: [HeaderField("Authorization", "Bearer \(access)")], body: [],
            exchange: 3
        )
        precondition([200, 401, 403].contains(used.response.status), "the issued token got \(used.response.status)")
    } else {
        precondition(errors.contains(document["error"]?.text ?? ""), "status \(status) with \(document)")
    }
    if status == 401 {
        precondition(answer.response.headers.first("WWW-Authenticate") != nil, "a 401 without WWW-Authenticate")
    }
    precondition(answer.response.headers.first("Cache-Control") == "no-store", "a token answer that may be cached")
    return 0
}

let form = [HeaderField("Content-Type", "application/x-www-form-urlencoded")]

/// Handles one request and checks what every exchange must satisfy.
func send(
    _ engine: inout JournaledEngine, method: String, target: String = "/oauth/token", headers: [HeaderField],
    body: [UInt8], exchange: Int
) -> Exchange {
    let request = Request(
        method: method, target: target, headers: headers, body: body,
        connection: ConnectionInfo(id: 1, exchange: exchange, remote: "127.0.0.1:40000")
    )
    let before = engine.state.journal.count
    var random = RandomSource.seeded(UInt64(exchange))
    let result = engine.handle(request, now: now, random: &random)
    guard let entry = result.entry else { fatalError("no journal entry for \(method) \(target)") }
    precondition(
        engine.state.journal.count == min(before + result.journalEntries.count, 64), "the journal lost an entry"
    )
    precondition(entry.status == result.response.status, "the journal says \(entry.status)")
    precondition(
        result.response.headers.first("X-Authmock-Verdict") == entry.verdict.rawValue,
        "the verdict header is not the entry's verdict"
    )
    for field in result.response.headers {
        precondition(
            !field.value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }, "\(field.name) holds CR, LF or NUL"
        )
    }
    _ = try! JSONEncoder().encode(entry)
    return result
}

func json(_ body: [UInt8]) -> [String: JSONValue] {
    (try? JSONDecoder().decode([String: JSONValue].self, from: Data(body))) ?? [:]
}

func replace(_ bytes: [UInt8], _ placeholder: String, with value: String) -> [UInt8] {
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.contains(placeholder) else { return bytes }
    return Array(text.replacing(placeholder, with: value).utf8)
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
