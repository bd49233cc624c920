package authmock

import (
	"crypto/tls"
	"io"
	"net/http"
	"reflect"
	"testing"
)

// get fetches url with Basic credentials (none when user is ""), as a net/http user would.
func get(t *testing.T, client *http.Client, url, user, password string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password) // net/http sends Basic up front; it never answers a 401 itself
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

type verdict struct {
	Status  int
	Verdict string
}

// requests keeps the journal entries of HTTP requests (user changes and TLS records have no method).
func requests(entries []Entry) []verdict {
	var out []verdict
	for _, e := range entries {
		if e.Method != "" {
			out = append(out, verdict{e.Status, e.Verdict})
		}
	}
	return out
}

func TestBasicSuccessAndFailure(t *testing.T) {
	srv := Start(t, "scenarios/basic.yaml")
	client := &http.Client{}
	alice := srv.Users()[0]

	if status, body := get(t, client, srv.URL(), "", ""); status != 401 {
		t.Errorf("no credentials: got %d %q, want 401", status, body)
	}
	if status, body := get(t, client, srv.URL(), alice.Name, alice.Password); status != 200 || body != "Hello, alice!\n" {
		t.Errorf("right password: got %d %q, want 200", status, body)
	}
	if status, _ := get(t, client, srv.URL(), alice.Name, "wrong"); status != 401 {
		t.Errorf("wrong password: got %d, want 401", status)
	}
	if status, _ := get(t, client, srv.URL()+"admin", alice.Name, alice.Password); status != 403 {
		t.Errorf("/admin: got %d, want 403 (valid credentials, forbidden resource)", status)
	}

	entries := srv.Journal(t)
	want := []verdict{{401, "no-credentials"}, {200, "basic.ok"}, {401, "basic.bad-password"}, {403, "basic.ok"}}
	if got := requests(entries); !reflect.DeepEqual(got, want) {
		t.Errorf("journal: got %v, want %v", got, want)
	}
	if c := entries[2].Credentials; c == nil || c.Scheme != "Basic" || c.User != "alice" || c.Password != "wrong" {
		t.Errorf("journal entry 3 credentials: got %+v", c)
	}
}

func TestPasswordChange(t *testing.T) {
	srv := Start(t, "scenarios/basic.yaml")
	client := &http.Client{}
	old := srv.Password("alice")

	status := srv.SetPassword(t, "alice", "looking-glass")
	if status.Password != "looking-glass" || status.PasswordChanges != 1 {
		t.Fatalf("SetPassword: got %+v", status)
	}
	if code, _ := get(t, client, srv.URL(), "alice", old); code != 401 {
		t.Errorf("old password: got %d, want 401", code)
	}
	if code, _ := get(t, client, srv.URL(), "alice", srv.Password("alice")); code != 200 {
		t.Errorf("new password: got %d, want 200", code)
	}
	var verdicts []string
	for _, e := range srv.Journal(t) {
		verdicts = append(verdicts, e.Verdict)
	}
	want := []string{"user.password-changed", "credential.stale-password", "basic.ok"}
	if !reflect.DeepEqual(verdicts, want) {
		t.Errorf("journal: got %v, want %v", verdicts, want)
	}

	srv.Reset(t)
	if got := srv.Journal(t); len(got) != 0 {
		t.Errorf("journal after reset: got %d entries, want 0", len(got))
	}
	if srv.Password("alice") != old {
		t.Errorf("after reset alice's password is %q, want %q", srv.Password("alice"), old)
	}
}

func TestHTTPSTrustingTheCA(t *testing.T) {
	srv := Start(t, "scenarios/tls-ca-signed.yaml")
	pool, err := srv.CertPool() // the ready line's tls.ca_file
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections() // a TLS connection is journaled when it closes
	if status, body := get(t, client, srv.URL(), "alice", "wonderland"); status != 200 {
		t.Errorf("with the CA: got %d %q, want 200", status, body)
	}
	if _, err := (&http.Client{}).Get(srv.URL()); err == nil {
		t.Error("without the CA the request succeeded; want a certificate error")
	}
	if got, want := requests(srv.Journal(t)), []verdict{{200, "basic.ok"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("journal: got %v, want %v", got, want)
	}
}

// TestControlBeyondLoopback: a server bound to 0.0.0.0 (as in a container) refuses control requests
// without the ready line's token; the helper sends it, so the journal and password changes still work.
func TestControlBeyondLoopback(t *testing.T) {
	srv := Start(t, "scenarios/basic.yaml", "--host", "0.0.0.0")
	if srv.Info().ControlToken == "" {
		t.Fatal("the ready line has no control_token")
	}
	resp, err := http.Get(srv.URL() + "_authmock/users")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer realm="authmock-control"` {
		t.Errorf("without the token: got %d %q, want 401 with a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if status := srv.SetPassword(t, "alice", "looking-glass"); status.Password != "looking-glass" {
		t.Fatalf("SetPassword with the token: got %+v", status)
	}
	var verdicts []string
	for _, e := range srv.Journal(t) {
		verdicts = append(verdicts, e.Verdict)
	}
	want := []string{"control.refused", "user.password-changed"}
	if !reflect.DeepEqual(verdicts, want) {
		t.Errorf("journal: got %v, want %v", verdicts, want)
	}
}
