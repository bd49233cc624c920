// Package authmock runs `authmock serve` for the duration of a Go test.
//
//	func TestLogin(t *testing.T) {
//		srv := authmock.Start(t, "scenarios/basic.yaml") // stopped by t.Cleanup
//		resp, _ := http.Get(srv.URL())
//		...
//		for _, e := range srv.Journal(t) { t.Log(e.Seq, e.Status, e.Verdict) }
//	}
//
// The binary is $AUTHMOCK_BIN, or .build/release/authmock of the repository this file sits in. It relies
// only on authmock's CLI contract (see docs/recipes/README.md): `serve SCENARIO --port 0` prints one JSON
// line on stdout once it accepts connections, SIGTERM stops it with exit status 0, and the journal and
// control endpoints live under {url}_authmock/, called with the ready line's control_token as a Bearer
// token and Content-Type: application/json. Standard library only; builds with Go 1.19.
package authmock

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ReadyTimeout is how long Start waits for the ready line.
var ReadyTimeout = 30 * time.Second

// StopTimeout is how long the cleanup waits after SIGTERM before killing the server. The server
// itself gives in-flight responses up to 10 s.
var StopTimeout = 15 * time.Second

// ReadyInfo is the JSON line `authmock serve` prints on stdout once it accepts connections.
type ReadyInfo struct {
	URL       string     `json:"url"`      // "http://127.0.0.1:PORT/" or "https://localhost:PORT/"; ends in "/"
	Port      int        `json:"port"`     // the port --port 0 picked
	Scenario  string     `json:"scenario"` // the scenario's name
	Users     []User     `json:"users"`    // the scenario's users, as at start
	Journal   string     `json:"journal"`  // URL of GET journal
	TLS       *TLSInfo   `json:"tls,omitempty"`
	HTTPURL   string     `json:"http_url,omitempty"`   // TLS scenario with plain-http: true
	SecondURL string     `json:"second_url,omitempty"` // scenario with second-port: true
	Proxy     *ProxyInfo `json:"proxy,omitempty"`      // scenario with a proxy: section
	// ControlToken goes with every control request as "Authorization: Bearer TOKEN": required when the
	// server listens beyond loopback (--host 0.0.0.0), optional (but checked) on loopback.
	ControlToken string `json:"control_token,omitempty"`
}

// User is a scenario user; Domain is set for NTLM users that have one.
type User struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Domain   string `json:"domain,omitempty"`
}

// TLSInfo is the ready line's "tls" object: the files and pins clients need.
type TLSInfo struct {
	Identity          string                 `json:"identity"`
	CAFile            string                 `json:"ca_file"` // what clients should trust
	ChainFile         string                 `json:"chain_file"`
	LeafFile          string                 `json:"leaf_file"`
	KeyFile           string                 `json:"key_file"`
	PinSHA256         string                 `json:"pin_sha256"` // base64 SPKI SHA-256 (RFC 7469)
	CurlPin           string                 `json:"curl_pin"`
	FingerprintSHA256 string                 `json:"fingerprint_sha256"` // hex SHA-256 of the leaf's DER
	CertSHA256        string                 `json:"cert_sha256"`        // the same certificate pin, as {cert_sha256}
	ClientCAFile      string                 `json:"client_ca_file,omitempty"`
	ClientCerts       map[string]ClientFiles `json:"client_certs,omitempty"`
}

// ClientFiles is a user's client certificate (mutual TLS scenarios).
type ClientFiles struct {
	CertFile string `json:"cert_file"`
	KeyFile  string `json:"key_file"`
	Subject  string `json:"subject"`
}

// ProxyInfo is the forward proxy of a scenario with a proxy: section.
type ProxyInfo struct {
	URL   string `json:"url"`
	Users []User `json:"users"`
}

// Entry is one journal entry. Requests have a Method; user changes (user.password-changed…) and TLS
// connection records (tls.ok, tls.handshake-failed…) do not.
type Entry struct {
	Seq         int               `json:"seq"`
	Time        time.Time         `json:"time"`
	Connection  uint64            `json:"connection"`
	Exchange    int               `json:"exchange"`
	Remote      string            `json:"remote,omitempty"`
	Method      string            `json:"method,omitempty"`
	Target      string            `json:"target,omitempty"`
	Headers     []Header          `json:"headers"`
	BodyBytes   int               `json:"body_bytes"`
	Credentials *Credentials      `json:"credentials,omitempty"`
	Verdict     string            `json:"verdict"` // e.g. "basic.ok", "credential.stale-password"
	Detail      string            `json:"detail,omitempty"`
	Status      int               `json:"status"` // 0 for entries that are not responses
	Challenges  []string          `json:"challenges,omitempty"`
	TLS         map[string]string `json:"tls,omitempty"` // version, alpn, client_certificate
	Requests    *int              `json:"requests,omitempty"`
	Hop         string            `json:"hop,omitempty"` // "proxy" for the forward proxy
	Leaks       []string          `json:"leaks,omitempty"`
}

// Header is a request header as recorded; Credential marks Authorization, Proxy-Authorization, Cookie.
type Header struct {
	Name       string `json:"name"`
	Value      string `json:"value"`
	Credential bool   `json:"credential,omitempty"`
}

// Credentials are what the client presented, as the server read them.
type Credentials struct {
	Header   string            `json:"header"`
	Scheme   string            `json:"scheme"`
	User     string            `json:"user,omitempty"`
	Password string            `json:"password,omitempty"` // Basic only
	Params   map[string]string `json:"params,omitempty"`   // Digest and the like
}

// UserStatus is what the users control endpoint answers.
type UserStatus struct {
	Name            string `json:"name"`
	Password        string `json:"password"`
	Domain          string `json:"domain,omitempty"`
	Enabled         bool   `json:"enabled"`
	Removed         bool   `json:"removed"`
	PasswordChanges int    `json:"password_changes"`
	Successes       int    `json:"successes"`
}

// Server is a running `authmock serve`.
type Server struct {
	info    ReadyInfo
	client  *http.Client // for the control endpoints; trusts the CA with TLS
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	exited  chan struct{} // closed when the process has exited
	waitErr error
}

// Start runs `authmock serve SCENARIO --port 0 [args...]`, waits for its ready line and registers a
// cleanup that stops it with SIGTERM and reports a non-zero exit status as a test error. A relative
// scenario path is taken from the repository root.
func Start(t testing.TB, scenario string, args ...string) *Server {
	t.Helper()
	root := repoRoot()
	binary := os.Getenv("AUTHMOCK_BIN")
	if binary == "" {
		binary = filepath.Join(root, ".build", "release", "authmock")
	}
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("authmock: no binary at %s (build it with `swift build -c release`, or set AUTHMOCK_BIN): %v", binary, err)
	}
	if !filepath.IsAbs(scenario) {
		scenario = filepath.Join(root, scenario)
	}

	s := &Server{stderr: &lockedBuffer{}, exited: make(chan struct{})}
	ready := &firstLine{line: make(chan string, 1)}
	s.cmd = exec.Command(binary, append([]string{"serve", scenario, "--port", "0"}, args...)...)
	s.cmd.Stdout = ready    // exec copies the pipe into these in its own goroutines,
	s.cmd.Stderr = s.stderr // so the server never blocks on a full pipe
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("authmock: cannot start %s: %v", binary, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()

	var line string
	select {
	case line = <-ready.line:
	case <-s.exited:
		select { // it may have printed the line and exited at once
		case line = <-ready.line:
		default:
			t.Fatalf("authmock serve %s exited before it was ready (%v); stderr:\n%s", filepath.Base(scenario), s.waitErr, s.stderr)
		}
	case <-time.After(ReadyTimeout):
		// Wait also waits for the output copies to end; a grandchild holding the pipes would delay it
		// (Go 1.20's Cmd.WaitDelay bounds that), but `authmock serve` starts none.
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Fatalf("authmock serve %s printed no ready line within %v; stderr:\n%s", filepath.Base(scenario), ReadyTimeout, s.stderr)
	}
	// From here on the server is up: stop it whatever happens to the test.
	t.Cleanup(func() { s.stop(t) })

	if err := json.Unmarshal([]byte(line), &s.info); err != nil {
		t.Fatalf("authmock: the ready line is not JSON (%v): %q", err, line)
	}
	transport := &http.Transport{DisableKeepAlives: true}
	if s.info.TLS != nil {
		pool, err := s.CertPool()
		if err != nil {
			t.Fatalf("authmock: %v", err)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
		// With `client-certificate: required` the control endpoints want a client certificate too;
		// any user's will do (the first by name).
		if names := sortedKeys(s.info.TLS.ClientCerts); len(names) > 0 {
			files := s.info.TLS.ClientCerts[names[0]]
			cert, err := tls.LoadX509KeyPair(files.CertFile, files.KeyFile)
			if err != nil {
				t.Fatalf("authmock: %v", err)
			}
			transport.TLSClientConfig.Certificates = []tls.Certificate{cert}
		}
	}
	s.client = &http.Client{Transport: transport, Timeout: 10 * time.Second}
	return s
}

// URL is the server's base URL, ending in "/".
func (s *Server) URL() string { return s.info.URL }

// Users are the scenario's users; SetPassword keeps the list current.
func (s *Server) Users() []User { return append([]User(nil), s.info.Users...) }

// Info is the whole ready line.
func (s *Server) Info() ReadyInfo { return s.info }

// Password is a user's current password (as far as SetPassword changed it).
func (s *Server) Password(name string) string {
	for _, u := range s.info.Users {
		if u.Name == name {
			return u.Password
		}
	}
	return ""
}

// CertPool is a pool holding the CA to trust for an HTTPS scenario (tls.ca_file).
func (s *Server) CertPool() (*x509.CertPool, error) {
	if s.info.TLS == nil {
		return nil, fmt.Errorf("scenario %s serves no TLS", s.info.Scenario)
	}
	pem, err := os.ReadFile(s.info.TLS.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate in %s", s.info.TLS.CAFile)
	}
	return pool, nil
}

// Journal returns every entry the server keeps, oldest first.
func (s *Server) Journal(t testing.TB) []Entry {
	t.Helper()
	var page struct {
		Entries []Entry `json:"entries"`
		Evicted int     `json:"evicted"`
	}
	s.control(t, http.MethodGet, s.info.Journal, nil, &page)
	return page.Entries
}

// SetPassword changes a user's password; the old one is then journaled as credential.stale-password.
func (s *Server) SetPassword(t testing.TB, user, password string) UserStatus {
	t.Helper()
	var status UserStatus
	s.control(t, http.MethodPost, s.info.URL+"_authmock/users/"+url.PathEscape(user), map[string]string{"password": password}, &status)
	for i := range s.info.Users {
		if s.info.Users[i].Name == user {
			s.info.Users[i].Password = password
		}
	}
	return status
}

// Reset clears the journal and nonces, restores the scenario's users and restarts its timeline.
func (s *Server) Reset(t testing.TB) {
	t.Helper()
	s.control(t, http.MethodPost, s.info.URL+"_authmock/reset", nil, nil)
	s.info.Users = nil // restored below from a fresh listing
	var users []UserStatus
	s.control(t, http.MethodGet, s.info.URL+"_authmock/users", nil, &users)
	for _, u := range users {
		s.info.Users = append(s.info.Users, User{Name: u.Name, Password: u.Password, Domain: u.Domain})
	}
}

func (s *Server) control(t testing.TB, method, target string, body, out any) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, target, reader)
	if err != nil {
		t.Fatal(err)
	}
	// The control contract: JSON on every request that is not GET or HEAD (415 otherwise), and the run's
	// token (401 without it off loopback).
	req.Header.Set("Content-Type", "application/json")
	if s.info.ControlToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.info.ControlToken)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("authmock: %s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("authmock: %s %s: %s %s %v", method, target, resp.Status, strings.TrimSpace(string(data)), err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("authmock: %s %s: %v in %q", method, target, err, data)
		}
	}
}

// stop sends SIGTERM and waits; it kills the server after StopTimeout. A clean stop is exit status 0.
func (s *Server) stop(t testing.TB) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(StopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("authmock did not stop within %v of SIGTERM and was killed; stderr:\n%s", StopTimeout, s.stderr)
		return
	}
	if s.waitErr != nil {
		t.Errorf("authmock did not stop cleanly (%v); stderr:\n%s", s.waitErr, s.stderr)
	}
}

// repoRoot is three directories above this file (docs/recipes/go). Adjust it when you copy the file.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

func sortedKeys(m map[string]ClientFiles) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// firstLine is an io.Writer that hands the first complete line to a channel and discards the rest.
type firstLine struct {
	buf  bytes.Buffer
	sent bool
	line chan string
}

func (w *firstLine) Write(p []byte) (int, error) {
	if !w.sent {
		w.buf.Write(p)
		if i := bytes.IndexByte(w.buf.Bytes(), '\n'); i >= 0 {
			w.sent = true
			w.line <- string(w.buf.Bytes()[:i])
		}
	}
	return len(p), nil
}

// lockedBuffer collects stderr while the process runs and can be read at any time.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
