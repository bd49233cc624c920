//! authmock adapter for reqwest's blocking client (Debian's reqwest 0.11.13 crates).
//!
//! Build: `cargo build --offline` in clients/reqwest (its .cargo/config.toml points cargo at Debian's
//! crate registry, /usr/share/cargo/registry, and Debian's rustc).
//! Run:   clients/reqwest/target/debug/reqwest-client   (inputs in the AUTHMOCK_* environment variables)
//!
//! The adapter only maps the inputs onto reqwest's API as its documentation teaches it
//! (https://docs.rs/reqwest/0.11.13/reqwest/blocking/index.html):
//!   - origin credentials: `RequestBuilder::basic_auth(user, Some(password))` on every request. reqwest has
//!     no challenge handling at all (no Digest, no retry on a 401): Basic goes up front, and a 401 is the
//!     final answer.
//!   - proxy: `Proxy::all(url)?.basic_auth(user, password)`, sent up front as Proxy-Authorization;
//!     without a proxy, `no_proxy()` (reqwest otherwise reads HTTP_PROXY/HTTPS_PROXY itself).
//!   - trust: `Certificate::from_pem` + `ClientBuilder::add_root_certificate`.
//!   - client certificate: `Identity::from_pkcs8_pem(cert, key)`, the PEM identity of the native-tls
//!     backend (reqwest's default TLS); `Identity::from_pem` exists only with rustls.
//!   - redirects: the default `redirect::Policy` (up to 10); reqwest decides which headers follow.
//!   - timeouts: `ClientBuilder::timeout` (the blocking client's default is 30 s).
//!   - cookies: `ClientBuilder::cookie_store(true)` in the cookie cases only (off by default).
//! Retries, challenges, header stripping and TLS checks are reqwest's, hyper's and OpenSSL's decisions.
//!
//! Exit: 0 when every fetch got a 2xx, 1 otherwise; an error reqwest returns (`reqwest::Error`, the only
//! error type of its API) or a setup error of the adapter is one line `Type: message` on stderr, exit 1.
//! A panic is a crash: Rust's runtime prints "thread '…' panicked at" and exits 101, which this adapter
//! never uses otherwise; the profile declares both.

use std::env;
use std::error::Error;
use std::fs;
use std::process::exit;
use std::thread;
use std::time::Duration;

use reqwest::blocking::{Body, Client};
use reqwest::{Certificate, Identity, Method, Proxy};

fn input(name: &str) -> Option<String> {
    env::var(name).ok().filter(|value| !value.is_empty())
}

fn count(name: &str) -> usize {
    input(name).and_then(|value| value.parse().ok()).filter(|n| *n > 0).unwrap_or(1)
}

/// One line `Type: message` on stderr, exit 1: a clean failure.
fn fail(kind: &str, message: impl std::fmt::Display) -> ! {
    eprintln!("{}: {}", kind, message);
    exit(1)
}

/// reqwest's Display already names the kind, the URL and the first cause; the deeper causes (hyper's,
/// OpenSSL's) are appended so that a refusal says why.
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source().and_then(|cause| cause.source());
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text.replace('\n', " ")
}

fn read(path: &str) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|error| fail("std::io::Error", format!("{}: {}", path, error)))
}

fn or_fail<T>(result: reqwest::Result<T>) -> T {
    result.unwrap_or_else(|error| fail("reqwest::Error", describe(&error)))
}

/// One Client as an application builds it: proxy (with its credentials), trust, identity, timeout,
/// cookies. Proxy credentials belong to the Client in reqwest (`Proxy::basic_auth`), not to a request.
fn client(proxy_user: Option<String>, proxy_password: Option<String>) -> Client {
    let mut builder = Client::builder();
    match input("AUTHMOCK_PROXY") {
        Some(url) => {
            let mut proxy = or_fail(Proxy::all(url.as_str()));
            if let Some(user) = proxy_user {
                proxy = proxy.basic_auth(&user, &proxy_password.unwrap_or_default());
            }
            builder = builder.proxy(proxy);
        }
        None => builder = builder.no_proxy(),
    }
    // The case's CA, and an https:// proxy's: added to the trusted roots (the TLS settings are the
    // Client's, for the proxy and the origin alike).
    for name in ["AUTHMOCK_CA_FILE", "AUTHMOCK_PROXY_CA_FILE"] {
        if let Some(path) = input(name) {
            builder = builder.add_root_certificate(or_fail(Certificate::from_pem(&read(&path))));
        }
    }
    if let Some(cert) = input("AUTHMOCK_CLIENT_CERT") {
        let key = input("AUTHMOCK_CLIENT_KEY").unwrap_or_else(|| cert.clone());
        builder = builder.identity(or_fail(Identity::from_pkcs8_pem(&read(&cert), &read(&key))));
    }
    if let Some(value) = input("AUTHMOCK_TIMEOUT") {
        let seconds: f64 = value.parse().unwrap_or_else(|_| fail("ParseFloatError", &value));
        builder = builder.timeout(Duration::from_secs_f64(seconds));
    }
    if input("AUTHMOCK_COOKIE_JAR").is_some() {
        // The cookie cases: reqwest keeps no cookies unless told to (feature `cookies`).
        builder = builder.cookie_store(true);
    }
    or_fail(builder.build())
}

struct Transfer {
    url: String,
    user: Option<String>,
    password: Option<String>,
}

/// One fetch: the request with its body and credentials, the whole response body read (a body cut
/// short is an error, not a success). Returns the status.
fn fetch(client: &Client, transfer: &Transfer, method: &Method) -> reqwest::Result<u16> {
    let mut request = client.request(method.clone(), transfer.url.as_str());
    if let Some(path) = input("AUTHMOCK_BODY_FILE") {
        request = request.body(read(&path));
    } else if input("AUTHMOCK_BODY_STDIN").is_some() {
        // A streamed body reqwest cannot rewind (`Body::new` over a reader).
        request = request.body(Body::new(std::io::stdin()));
    }
    if let Some(user) = &transfer.user {
        request = request.basic_auth(user, transfer.password.as_ref());
    }
    // A header the application sets itself. Credentials in the URL's userinfo reqwest turns into
    // Basic by itself; it reads no netrc.
    if let Some(name) = input("AUTHMOCK_HEADER_NAME") {
        request = request.header(name, input("AUTHMOCK_HEADER_VALUE").unwrap_or_default());
    }
    let response = request.send()?;
    let status = response.status().as_u16();
    response.bytes()?;
    Ok(status)
}

/// PARALLEL threads share the one Client (a handle on one pool), each doing REPEAT fetches in a row.
fn run(client: &Client, transfer: Transfer, method: &Method) -> bool {
    let (repeat, parallel) = (count("AUTHMOCK_REPEAT"), count("AUTHMOCK_PARALLEL"));
    let transfer = std::sync::Arc::new(transfer);
    let threads: Vec<_> = (0..parallel)
        .map(|_| {
            let (client, transfer, method) = (client.clone(), transfer.clone(), method.clone());
            thread::spawn(move || {
                let mut codes = Vec::new();
                for _ in 0..repeat {
                    match fetch(&client, &transfer, &method) {
                        Ok(code) => codes.push(code),
                        Err(error) => return (codes, Some(error)),
                    }
                }
                (codes, None)
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|thread| thread.join().expect("fetch thread")).collect();
    let printed: Vec<String> = results.iter().flat_map(|(codes, _)| codes.iter().map(u16::to_string)).collect();
    println!("{}", printed.join(" "));
    if let Some(error) = results.iter().find_map(|(_, error)| error.as_ref()) {
        fail("reqwest::Error", describe(error));
    }
    results.iter().all(|(codes, _)| codes.iter().all(|code| (200..300).contains(code)))
}

fn main() {
    let url = input("AUTHMOCK_URL").unwrap_or_else(|| fail("Error", "AUTHMOCK_URL is missing"));
    let method = input("AUTHMOCK_METHOD")
        .map(|name| Method::from_bytes(name.as_bytes()).unwrap_or_else(|error| fail("http::method::InvalidMethod", error)))
        .unwrap_or(Method::GET);

    let proxy_user = input("AUTHMOCK_PROXY_USER");
    let proxy_password = input("AUTHMOCK_PROXY_PASSWORD");
    let first = client(proxy_user.clone(), proxy_password.clone());
    let mut success = run(&first, Transfer { url, user: input("AUTHMOCK_USER"), password: input("AUTHMOCK_PASSWORD") }, &method);

    // A second transfer (`transfer.*` cases) goes through the same Client, with its own origin
    // credentials on the request. Other proxy credentials need another Client in reqwest (they are the
    // Proxy's, set when the Client is built), so the application builds one, with its own pool.
    if let Some(url2) = input("AUTHMOCK_URL2") {
        let (proxy_user2, proxy_password2) = (input("AUTHMOCK_PROXY_USER2"), input("AUTHMOCK_PROXY_PASSWORD2"));
        let second = if proxy_user2.is_some() && (proxy_user2 != proxy_user || proxy_password2 != proxy_password) {
            client(proxy_user2, proxy_password2)
        } else {
            first.clone()
        };
        let transfer = Transfer { url: url2, user: input("AUTHMOCK_USER2"), password: input("AUTHMOCK_PASSWORD2") };
        success = run(&second, transfer, &Method::GET) && success;
    }
    if !success {
        exit(1);
    }
}
