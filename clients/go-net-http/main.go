// authmock adapter for Go's net/http (standard library only).
//
// Build: go build -o go-net-http/go-net-http-client go-net-http/main.go   (from clients/)
// Run:   go-net-http/go-net-http-client   (inputs in the AUTHMOCK_* environment variables)
// Version: `go version`.
//
// The adapter only maps the inputs onto net/http's API as its documentation teaches it.
// net/http has no challenge handling at all: the documented way to authenticate is
// Request.SetBasicAuth on every request (https://pkg.go.dev/net/http#Request.SetBasicAuth),
// so Basic goes up front, and a 401 is the final answer. Proxy credentials are the userinfo
// of the proxy URL (https://pkg.go.dev/net/http#ProxyURL), which the Transport sends up front
// as Proxy-Authorization on plain requests and on CONNECT. Redirects, retries and TLS
// checks are net/http's (and crypto/tls's) decisions.
//
// Not mapped, because net/http has no API for them:
//   - AUTHMOCK_DOMAIN (NTLM, Negotiate): only third-party packages (e.g. go-ntlmssp) do NTLM.
//   - AUTHMOCK_PIN_SHA256: crypto/tls has no pinning option; comparing pins in a
//     VerifyPeerCertificate callback would be the adapter doing the check, not the library.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func input(name string) (string, bool) {
	value := os.Getenv(name)
	return value, value != ""
}

func count(name string) int {
	if value, ok := input(name); ok {
		if n, err := strconv.Atoi(value); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// fail prints one line `Type: message` to stderr and exits 1: a clean failure. Clean failures are the
// `error` values net/http returns (Client.Do: "An error is returned if caused by client policy (such as
// CheckRedirect), or failure to speak HTTP (such as a network connectivity problem)",
// https://pkg.go.dev/net/http#Client.Do) and the adapter's own setup errors. A panic is a crash, left
// to Go's runtime: "panic: ..." and the goroutines' stacks on stderr, exit status 2, which this adapter
// never uses otherwise (a runtime "fatal error: ..." exits 2 too). The profile declares both.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "%T: %v\n", err, err)
	os.Exit(1)
}

func main() {
	target, ok := input("AUTHMOCK_URL")
	if !ok {
		fail(errors.New("AUTHMOCK_URL is missing"))
	}
	method := "GET"
	if value, ok := input("AUTHMOCK_METHOD"); ok {
		method = value
	}
	repeat, parallel := count("AUTHMOCK_REPEAT"), count("AUTHMOCK_PARALLEL")

	// The default transport's settings (keep-alives, idle pool, HTTP/2 attempt), with the
	// proxy and TLS configuration of this case.
	transport := http.DefaultTransport.(*http.Transport).Clone()

	// The default transport reads HTTP_PROXY/HTTPS_PROXY/NO_PROXY; here only the given proxy
	// is used, and without one none.
	transport.Proxy = nil
	if proxy, ok := input("AUTHMOCK_PROXY"); ok {
		proxyURL, err := url.Parse(proxy)
		if err != nil {
			fail(err)
		}
		if proxyUser, ok := input("AUTHMOCK_PROXY_USER"); ok {
			proxyPassword, _ := input("AUTHMOCK_PROXY_PASSWORD")
			proxyURL.User = url.UserPassword(proxyUser, proxyPassword)
		}
		transport.Proxy = http.ProxyURL(proxyURL)
	}

	tlsConfig := &tls.Config{}
	if caFile, ok := input("AUTHMOCK_CA_FILE"); ok {
		// Trust exactly this CA: RootCAs replaces the system pool.
		pem, err := os.ReadFile(caFile)
		if err != nil {
			fail(err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			fail(fmt.Errorf("no certificate in %s", caFile))
		}
		tlsConfig.RootCAs = pool
	}
	if certFile, ok := input("AUTHMOCK_CLIENT_CERT"); ok {
		keyFile, _ := input("AUTHMOCK_CLIENT_KEY")
		certificate, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			fail(err)
		}
		tlsConfig.Certificates = []tls.Certificate{certificate}
	}
	transport.TLSClientConfig = tlsConfig

	// One client for every fetch. CheckRedirect is left nil: the default policy follows up
	// to 10 redirects, and decides itself which headers (Authorization) go along.
	client := &http.Client{Transport: transport}
	if _, ok := input("AUTHMOCK_COOKIE_JAR"); ok {
		// The cookie cases: a Client keeps no cookies unless given a Jar (https://pkg.go.dev/net/http#Client);
		// net/http/cookiejar is the standard library's, which decides what goes where.
		jar, err := cookiejar.New(nil)
		if err != nil {
			fail(err)
		}
		client.Jar = jar
	}
	if value, ok := input("AUTHMOCK_TIMEOUT"); ok {
		// Client.Timeout bounds the whole exchange (connect, redirects, reading the body).
		seconds, err := strconv.ParseFloat(value, 64)
		if err != nil {
			fail(err)
		}
		client.Timeout = time.Duration(seconds * float64(time.Second))
	}

	var body []byte
	if bodyFile, ok := input("AUTHMOCK_BODY_FILE"); ok {
		var err error
		if body, err = os.ReadFile(bodyFile); err != nil {
			fail(err)
		}
	}
	user, hasUser := input("AUTHMOCK_USER")
	password, _ := input("AUTHMOCK_PASSWORD")

	fetch := func() (int, error) {
		var reader io.Reader
		if body != nil {
			// A bytes.Reader lets NewRequest set GetBody, so net/http can resend the body
			// on a 307/308 redirect if it chooses to.
			reader = bytes.NewReader(body)
		}
		request, err := http.NewRequest(method, target, reader)
		if err != nil {
			return 0, err
		}
		if hasUser {
			request.SetBasicAuth(user, password)
		}
		// A header the application sets itself (https://pkg.go.dev/net/http#Header.Set). Go reads no
		// netrc; credentials in the URL's userinfo it sends as Basic by itself.
		if name, ok := input("AUTHMOCK_HEADER_NAME"); ok {
			request.Header.Set(name, os.Getenv("AUTHMOCK_HEADER_VALUE"))
		}
		response, err := client.Do(request)
		if err != nil {
			return 0, err
		}
		defer response.Body.Close()
		// Read the whole body: a body cut short is an error, not a success.
		if _, err := io.Copy(io.Discard, response.Body); err != nil {
			return response.StatusCode, err
		}
		return response.StatusCode, nil
	}

	// PARALLEL goroutines share the one client, each doing REPEAT sequential fetches.
	codes := make([][]int, parallel)
	errs := make([]error, parallel)
	var wait sync.WaitGroup
	for i := 0; i < parallel; i++ {
		wait.Add(1)
		go func(i int) {
			defer wait.Done()
			for j := 0; j < repeat; j++ {
				code, err := fetch()
				if err != nil {
					errs[i] = err
					return
				}
				codes[i] = append(codes[i], code)
			}
		}(i)
	}
	wait.Wait()

	var printed []string
	success := true
	for i := range codes {
		for _, code := range codes[i] {
			printed = append(printed, strconv.Itoa(code))
			if code < 200 || code > 299 {
				success = false
			}
		}
	}
	fmt.Println(strings.Join(printed, " "))
	for _, err := range errs {
		if err != nil {
			fail(err)
		}
	}
	if !success {
		os.Exit(1)
	}
}
