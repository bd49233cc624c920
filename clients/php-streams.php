<?php
// authmock adapter for PHP's own HTTP client, the http:// and https:// stream wrappers
// (file_get_contents with a stream context), PHP 8.2 CLI.
//
// Usage: php -n -d extension=openssl php-streams.php   (inputs in the AUTHMOCK_* environment variables)
//
// As PHP's manual teaches (https://www.php.net/manual/en/wrappers.http.php,
// https://www.php.net/manual/en/context.http.php, https://www.php.net/manual/en/context.ssl.php):
// credentials are the URL's userinfo, which the wrapper sends as Basic up front ("Basic
// authentication: http://user:password@example.com"); the proxy is the http context's `proxy`
// (tcp://host:port) with `request_fulluri` for plain http, and proxy credentials a
// `Proxy-Authorization` line in `header`, the wrapper's only way to authenticate to a proxy (it
// sends that line with a CONNECT too). TLS: the ssl context's `cafile`, `local_cert`/`local_pk`,
// and `peer_fingerprint` (a pin of the certificate's SHA-256 digest); verify_peer and
// verify_peer_name keep their defaults (true). Redirects: `follow_location` keeps its default (on,
// up to 20). The status is the last status line of $http_response_header; `ignore_errors` makes
// a 4xx/5xx an answer, not a failed open.

function input(string $name): ?string
{
    $value = getenv($name);
    return ($value === false || $value === '') ? null : $value;
}

function secret(string $name): string
{
    $value = getenv($name);
    return $value === false ? '' : $value;
}

// The URL with "user:password@" (each percent-encoded, which the wrapper decodes) before its host.
function with_userinfo(string $url, string $user, string $password): string
{
    return preg_replace('#^(https?://)#', '$1' . rawurlencode($user) . ':' . rawurlencode($password) . '@', $url, 1);
}

// One fetch of $url with its own credentials: the status of the last response, or null when the
// wrapper failed (its warning went to stderr).
function fetch(string $url, ?string $user, string $password, ?string $proxyUser, string $proxyPassword): ?int
{
    $http = [
        'method' => input('AUTHMOCK_METHOD') ?? 'GET',
        // A 4xx or 5xx is an answer to report, not a failed open (the manual's `ignore_errors`).
        'ignore_errors' => true,
    ];
    $headers = [];
    if (input('AUTHMOCK_HEADER_NAME') !== null) {
        // A header the application sets itself, in the context's `header`.
        $headers[] = input('AUTHMOCK_HEADER_NAME') . ': ' . secret('AUTHMOCK_HEADER_VALUE');
    }
    $proxy = input('AUTHMOCK_PROXY');
    if ($proxy !== null) {
        $parts = parse_url($proxy);
        $http['proxy'] = 'tcp://' . $parts['host'] . ':' . $parts['port'];
        // Absolute-form request lines, which a proxy needs for plain http (the manual's
        // `request_fulluri`); https goes through CONNECT.
        $http['request_fulluri'] = str_starts_with($url, 'http://');
        if ($proxyUser !== null) {
            $headers[] = 'Proxy-Authorization: Basic ' . base64_encode($proxyUser . ':' . $proxyPassword);
        }
    }
    if ($headers) {
        $http['header'] = $headers;
    }
    if (input('AUTHMOCK_BODY_FILE') !== null) {
        $http['content'] = file_get_contents(input('AUTHMOCK_BODY_FILE'));
    }
    if (input('AUTHMOCK_TIMEOUT') !== null) {
        // The http context's read timeout; connecting is bounded by default_socket_timeout.
        $http['timeout'] = (float) input('AUTHMOCK_TIMEOUT');
        ini_set('default_socket_timeout', input('AUTHMOCK_TIMEOUT'));
    }

    $ssl = [];
    if (input('AUTHMOCK_CA_FILE') !== null) {
        $ssl['cafile'] = input('AUTHMOCK_CA_FILE');
    }
    if (input('AUTHMOCK_CLIENT_CERT') !== null) {
        $ssl['local_cert'] = input('AUTHMOCK_CLIENT_CERT');
        $ssl['local_pk'] = input('AUTHMOCK_CLIENT_KEY');
    }
    if (input('AUTHMOCK_CERT_SHA256') !== null) {
        // A pin of the certificate: its SHA-256 digest (hex), checked after verification.
        $ssl['peer_fingerprint'] = ['sha256' => input('AUTHMOCK_CERT_SHA256')];
    }

    if ($user !== null) {
        $url = with_userinfo($url, $user, $password);
    }
    $context = stream_context_create(['http' => $http, 'ssl' => $ssl]);
    $body = file_get_contents($url, false, $context);
    // $http_response_header holds every response's header lines, redirects included.
    $status = null;
    foreach ($http_response_header ?? [] as $line) {
        if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $m)) {
            $status = (int) $m[1];
        }
    }
    return $body === false ? null : $status;
}

function main(): int
{
    $url = input('AUTHMOCK_URL');
    if ($url === null) {
        throw new InvalidArgumentException('AUTHMOCK_URL is missing');
    }
    $repeat = (int) (input('AUTHMOCK_REPEAT') ?? '1');
    $codes = [];
    $ok = true;
    for ($i = 0; $i < $repeat; $i++) {
        $code = fetch($url, input('AUTHMOCK_USER'), secret('AUTHMOCK_PASSWORD'),
            input('AUTHMOCK_PROXY_USER'), secret('AUTHMOCK_PROXY_PASSWORD'));
        if ($code === null) {
            $ok = false;
            break;
        }
        $codes[] = $code;
    }
    if ($ok && input('AUTHMOCK_URL2') !== null) {
        // The case's second transfer, with its own credentials (the wrapper keeps nothing between
        // calls: no connection pool, no credential cache).
        $code = fetch(input('AUTHMOCK_URL2'), input('AUTHMOCK_USER2'), secret('AUTHMOCK_PASSWORD2'),
            input('AUTHMOCK_PROXY_USER2'), secret('AUTHMOCK_PROXY_PASSWORD2'));
        $ok = $code !== null;
        if ($ok) {
            $codes[] = $code;
        }
    }
    echo implode(' ', $codes), "\n";
    if (!$ok) {
        return 1;
    }
    foreach ($codes as $code) {
        if ($code < 200 || $code >= 300) {
            return 1;
        }
    }
    return 0;
}

// The wrapper reports a failed request the way PHP's manual documents for file_get_contents: it
// returns false with an E_WARNING ("failed to open stream: ..."). Warnings go to stderr, one line
// each, "Warning: message". An uncaught Throwable is a crash: PHP's "PHP Fatal error:  Uncaught"
// on stderr and exit status 255.
ini_set('display_errors', 'stderr');
ini_set('log_errors', '0');
ini_set('html_errors', '0');
set_error_handler(function (int $errno, string $message): bool {
    fwrite(STDERR, ($errno === E_WARNING ? 'Warning' : 'Notice') . ": $message\n");
    return true;
});
exit(main());
