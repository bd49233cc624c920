// authmock adapter for System.Net.Http.HttpClient on Mono 6.8 (Debian's mono-runtime; not .NET 8).
//
// Build (the profile's prepare, from clients/): see mono-httpclient/build
// Run:   mono mono-httpclient/Adapter.exe   (inputs in the AUTHMOCK_* environment variables)
//
// The adapter only maps the inputs onto HttpClient's API as Microsoft's documentation teaches it:
// credentials are an ICredentials on the HttpClientHandler (`Credentials = new NetworkCredential(user,
// password[, domain])`), which the handler uses to answer 401 challenges itself (Basic, Digest, NTLM,
// Negotiate: it picks the scheme); proxy credentials are the proxy's `Credentials` (an IWebProxy; see
// CaseProxy for why not WebProxy), which it uses to answer 407. Redirects (AllowAutoRedirect, on by default), cookies (UseCookies, on by default),
// retries and TLS are the handler's decisions. On Mono 6.8, `new HttpClientHandler()` wraps the
// SocketsHttpHandler ported from corefx (HttpClientHandler.SocketsHandler.cs), not the older
// HttpWebRequest-based MonoWebRequestHandler.
//
// Not mapped, because HttpClient has no API for them: AUTHMOCK_PIN_SHA256 / AUTHMOCK_CERT_SHA256
// (pinning would be the adapter comparing hashes in a callback), AUTHMOCK_NETRC_FILE (no netrc),
// AUTHMOCK_SOCKS_PROXY (no SOCKS before .NET 6).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Threading.Tasks;
using MX = Mono.Security.X509;

static class Adapter
{
    static string Input(string name)
    {
        var value = Environment.GetEnvironmentVariable(name);
        return string.IsNullOrEmpty(value) ? null : value;
    }

    static int Count(string name)
    {
        int n;
        return int.TryParse(Input(name), out n) && n > 0 ? n : 1;
    }

    // The schemes a CredentialCache entry is added for (CredentialCache.Add(Uri, authType, credential)
    // takes one scheme per entry), in the second-transfer cases only.
    static readonly string[] Schemes = { "Basic", "Digest", "NTLM", "Negotiate" };

    static NetworkCredential Credential(string user, string password, string domain)
    {
        return domain != null
            ? new NetworkCredential(user, password ?? "", domain)
            : new NetworkCredential(user, password ?? "");
    }

    static string store;   // this run's XDG_CONFIG_HOME, holding Mono's trust store

    // Main ends the process with Environment.Exit once everything is printed: returning from Main, Mono 6.8
    // now and then (about 2 runs in 100 on a loaded machine) printed the result and then hung in its own
    // shutdown (a thread dump on SIGQUIT shows only the Finalizer, a Thread Pool Worker and an unnamed thread,
    // and the signal wakes it); Environment.Exit did not hang in 80 runs.
    static int Main()
    {
        int code = Guarded();
        Console.Out.Flush();
        Console.Error.Flush();
        Environment.Exit(code);
        return code;
    }

    static int Guarded()
    {
        try {
            return Run();
        } catch (Exception e) {
            var inner = e is AggregateException ? e.InnerException : e;
            if (Documented(inner)) {
                Console.Error.WriteLine(inner.GetType().FullName + ": " + Messages(inner));
                return 1;
            }
            // Anything HttpClient does not document is a crash: the stack trace, exit 70 (EX_SOFTWARE).
            Console.Error.WriteLine("Unhandled exception (crash): " + inner);
            return 70;
        } finally {
            if (store != null && Directory.Exists(store)) Directory.Delete(store, true);
        }
    }

    // The exceptions HttpClient.SendAsync documents: HttpRequestException ("The request failed due to an
    // underlying issue such as network connectivity, DNS failure, server certificate validation or
    // timeout"), TaskCanceledException (the timeout, .NET Framework/Core 2.x-3.x style), and
    // InvalidOperationException/ArgumentException for a request it refuses to send; reading the body:
    // HttpRequestException or IOException.
    static bool Documented(Exception e)
    {
        return e is HttpRequestException || e is OperationCanceledException || e is IOException
            || e is InvalidOperationException || e is ArgumentException || e is AuthenticationException
            || e is NotSupportedException;
    }

    static string Messages(Exception e)
    {
        var parts = new List<string>();
        for (var x = e; x != null; x = x.InnerException)
            parts.Add((x == e ? "" : x.GetType().Name + ": ") + x.Message.Replace('\n', ' '));
        return string.Join(" <- ", parts);
    }

    static int Run()
    {
        var url = Input("AUTHMOCK_URL");
        if (url == null) throw new ArgumentException("AUTHMOCK_URL is missing");

        var handler = new HttpClientHandler();

        // Origin credentials: one NetworkCredential for every scheme and host, as the documentation's
        // examples set HttpClientHandler.Credentials. The domain, when given, is NTLM's.
        string user = Input("AUTHMOCK_USER"), password = Input("AUTHMOCK_PASSWORD"), domain = Input("AUTHMOCK_DOMAIN");
        var url2 = Input("AUTHMOCK_URL2");
        CredentialCache cache = null;
        if (url2 != null) {
            // A second transfer with its own credentials, through the same handler (its connection pool):
            // credentials can no longer be replaced once the handler has sent a request, so they are a
            // CredentialCache keyed by URI prefix and scheme, the documented way to hold several
            // (https://learn.microsoft.com/dotnet/api/system.net.credentialcache); the second transfer's
            // entry is added before it starts.
            cache = new CredentialCache();
            if (user != null)
                foreach (var scheme in Schemes) cache.Add(new Uri(url), scheme, Credential(user, password, domain));
            handler.Credentials = cache;
        } else if (user != null) {
            handler.Credentials = Credential(user, password, domain);
        }

        // The proxy, with its own credentials; without one, none (not the environment's). Not a WebProxy:
        // Mono's WebProxy (the .NET Framework reference source) bypasses every loopback destination whatever
        // it is told ("bypass localhost from using a proxy", IsBypassedManual), and every case's origin is on
        // loopback; so the adapter gives the handler the plainest IWebProxy, the interface HttpClientHandler.Proxy
        // takes: this proxy for every destination.
        CaseProxy proxy = null;
        var proxyUrl = Input("AUTHMOCK_PROXY");
        if (proxyUrl != null) {
            proxy = new CaseProxy(new Uri(proxyUrl));
            var proxyUser = Input("AUTHMOCK_PROXY_USER");
            if (proxyUser != null) proxy.Credentials = new NetworkCredential(proxyUser, Input("AUTHMOCK_PROXY_PASSWORD") ?? "");
            handler.Proxy = proxy;
            handler.UseProxy = true;
        } else {
            handler.UseProxy = false;
        }

        // A custom CA: put into Mono's own trust store, where Mono's TLS (BoringSSL, "btls") looks for its
        // trusted roots, and let the library verify chain and host name itself. This is what Mono's
        // `cert-sync --user` tool does (Mono.Security's X509StoreManager.NewCurrentUser.TrustedRoot.Import;
        // https://www.mono-project.com/docs/about-mono/releases/3.12.0/#cert-sync), into a store of this run only
        // (XDG_CONFIG_HOME set to a fresh directory before anything reads it). The .NET Framework way, a
        // ServerCertificateCustomValidationCallback rebuilding the chain with the CA in ExtraStore, cannot work
        // on Mono 6.8: the chain it is handed is btls's, whose Build() always returns false
        // (Mono.Btls/X509ChainImplBtls.cs), and a new X509Chain is Mono's managed one, which cannot decode an
        // ECDSA key ("Cannot decode public key from unknown OID 1.2.840.10045.2.1").
        store = Path.Combine(Path.GetTempPath(), "authmock-mono-" + Process.GetCurrentProcess().Id);
        Environment.SetEnvironmentVariable("XDG_CONFIG_HOME", store);
        foreach (var name in new[] { "AUTHMOCK_CA_FILE", "AUTHMOCK_PROXY_CA_FILE" }) {
            var file = Input(name);
            if (file != null) MX.X509StoreManager.NewCurrentUser.TrustedRoot.Import(new MX.X509Certificate(new X509Certificate2(file).RawData));
        }

        // A client certificate: X509Certificate2 on Mono 6.8 loads a private key only from PKCS#12, so
        // the PEM pair is converted with openssl into a PKCS#12 file first (with the SHA-1/3DES encryption
        // Mono's BoringSSL can read: OpenSSL 3's default AES/PBKDF2 one makes `MonoBtlsPkcs12.Import` fail).
        var certFile = Input("AUTHMOCK_CLIENT_CERT");
        if (certFile != null) {
            handler.ClientCertificateOptions = ClientCertificateOption.Manual;
            var pkcs12 = Pkcs12(certFile, Input("AUTHMOCK_CLIENT_KEY") ?? certFile);
            try {
                handler.ClientCertificates.Add(new X509Certificate2(pkcs12, ""));
            } finally {
                File.Delete(pkcs12);
            }
        }

        // Cookies are kept by default (UseCookies = true, a CookieContainer per handler): AUTHMOCK_COOKIE_JAR,
        // a file for clients that need one, is not used.

        // The client is not disposed: the process ends right after the fetches (disposing it made Mono 6.8
        // hang now and then, see Main).
        return Fetch(new HttpClient(handler), proxy, cache, domain);
    }

    // Every fetch of the case, with the one client.
    static int Fetch(HttpClient client, CaseProxy proxy, CredentialCache cache, string domain)
    {
        var url = Input("AUTHMOCK_URL");
        var url2 = Input("AUTHMOCK_URL2");
        var method = new HttpMethod(Input("AUTHMOCK_METHOD") ?? "GET");
        int repeat = Count("AUTHMOCK_REPEAT"), parallel = Count("AUTHMOCK_PARALLEL");
        var timeout = Input("AUTHMOCK_TIMEOUT");
        if (timeout != null) client.Timeout = TimeSpan.FromSeconds(double.Parse(timeout, System.Globalization.CultureInfo.InvariantCulture));

        byte[] body = null;
        var bodyFile = Input("AUTHMOCK_BODY_FILE");
        if (bodyFile != null) body = File.ReadAllBytes(bodyFile);
        bool bodyStdin = Input("AUTHMOCK_BODY_STDIN") != null;
        string headerName = Input("AUTHMOCK_HEADER_NAME"), headerValue = Input("AUTHMOCK_HEADER_VALUE") ?? "";

        Func<string, Task<int>> fetch = async target => {
            var request = new HttpRequestMessage(method, target);
            if (body != null) request.Content = new ByteArrayContent(body);
            else if (bodyStdin) request.Content = new StreamContent(Console.OpenStandardInput());
            // A header the application sets itself, on the request.
            if (headerName != null && !request.Headers.TryAddWithoutValidation(headerName, headerValue))
                throw new ArgumentException("cannot set header " + headerName);
            using (var response = await client.SendAsync(request).ConfigureAwait(false)) {
                // Read the whole body: a body cut short is an error, not a success.
                await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
                return (int) response.StatusCode;
            }
        };

        // PARALLEL tasks share the one client, each doing REPEAT sequential fetches.
        var codes = new List<int>[parallel];
        var workers = new Task[parallel];
        for (int i = 0; i < parallel; i++) {
            var mine = codes[i] = new List<int>();
            workers[i] = Task.Run(async () => {
                for (int j = 0; j < repeat; j++) mine.Add(await fetch(url).ConfigureAwait(false));
            });
        }
        Exception failure = null;
        try { Task.WaitAll(workers); } catch (AggregateException e) { failure = e.InnerExceptions[0]; }
        var all = codes.SelectMany(c => c).ToList();

        if (url2 != null && failure == null) {
            // The case's second transfer, with the same client: its credentials join the cache under its
            // URI, and the proxy's new credentials replace the first's on the same WebProxy.
            var user2 = Input("AUTHMOCK_USER2");
            if (user2 != null)
                foreach (var scheme in Schemes) cache.Add(new Uri(url2), scheme, Credential(user2, Input("AUTHMOCK_PASSWORD2"), domain));
            var proxyUser2 = Input("AUTHMOCK_PROXY_USER2");
            if (proxy != null && proxyUser2 != null)
                proxy.Credentials = new NetworkCredential(proxyUser2, Input("AUTHMOCK_PROXY_PASSWORD2") ?? "");
            try { all.Add(fetch(url2).GetAwaiter().GetResult()); } catch (Exception e) { failure = e; }
        }

        Console.WriteLine(string.Join(" ", all));
        if (failure != null) throw failure;
        return all.All(c => c >= 200 && c <= 299) ? 0 : 1;
    }

    // The proxy for every destination, with its credentials (answered on a 407 by the handler).
    sealed class CaseProxy : IWebProxy
    {
        readonly Uri address;
        public CaseProxy(Uri address) { this.address = address; }
        public ICredentials Credentials { get; set; }
        public Uri GetProxy(Uri destination) { return address; }
        public bool IsBypassed(Uri host) { return false; }
    }

    // PEM certificate and key to a PKCS#12 file (empty password) in the temporary directory, for
    // X509Certificate2(fileName, password).
    static string Pkcs12(string cert, string key)
    {
        var output = Path.Combine(Path.GetTempPath(), "authmock-mono-" + Process.GetCurrentProcess().Id + ".p12");
        var start = new ProcessStartInfo("openssl", string.Format("pkcs12 -export -in \"{0}\" -inkey \"{1}\" -out \"{2}\" -passout pass: -certpbe PBE-SHA1-3DES -keypbe PBE-SHA1-3DES -macalg sha1", cert, key, output)) { UseShellExecute = false };
        using (var p = Process.Start(start)) {
            p.WaitForExit();
            if (p.ExitCode != 0) throw new ArgumentException("openssl pkcs12 failed for " + cert);
        }
        return output;
    }
}
