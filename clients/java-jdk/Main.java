// authmock adapter for the JDK's own HTTP clients: java.net.HttpURLConnection (--api urlconnection)
// and java.net.http.HttpClient (--api httpclient).
//
// Build: javac -d java-jdk/classes java-jdk/Main.java java-common/AdapterSupport.java   (in clients/, the
//        profiles' prepare; AdapterSupport is the plumbing the Java adapters share, none of it HTTP API)
// Run:   java -cp java-jdk/classes Main --api urlconnection|httpclient
//        (inputs in the AUTHMOCK_* environment variables)
// Version: `java --version` (first line).
//
// The adapter only maps the inputs onto the JDK's API, the way the JDK documentation teaches it.
// Which scheme answers a challenge, how often a challenge is retried, redirects and TLS checks are
// the JDK's decisions. The java.net.Authenticator below hands out the credentials whenever the JDK
// asks for them; it never counts attempts and never looks at the challenge: a retry limit, if any,
// must come from the JDK itself. No public-key pinning: the JDK has no API for it, so
// AUTHMOCK_PIN_SHA256 is ignored.

import static authmock.AdapterSupport.exitWith;
import static authmock.AdapterSupport.input;
import static authmock.AdapterSupport.keyStore;
import static authmock.AdapterSupport.report;
import static authmock.AdapterSupport.trustStore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.CookieManager;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public final class Main {
    /**
     * The credentials, handed out as java.net.Authenticator's documentation shows: override
     * getPasswordAuthentication and tell the origin (RequestorType.SERVER) from the proxy
     * (RequestorType.PROXY) with getRequestorType().
     * https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/net/Authenticator.html
     */
    static final class Credentials extends Authenticator {
        final String user = input("AUTHMOCK_USER");
        final String password = input("AUTHMOCK_PASSWORD", "");
        final String proxyUser = input("AUTHMOCK_PROXY_USER");
        final String proxyPassword = input("AUTHMOCK_PROXY_PASSWORD", "");

        @Override
        protected PasswordAuthentication getPasswordAuthentication() {
            if (getRequestorType() == RequestorType.PROXY) {
                return proxyUser == null ? null
                        : new PasswordAuthentication(proxyUser, proxyPassword.toCharArray());
            }
            if (user == null) {
                return null;
            }
            // The NTLM domain is not part of the name: urlConnection() sets http.auth.ntlm.domain.
            return new PasswordAuthentication(user, password.toCharArray());
        }
    }

    /** Trust exactly the CA file, and present the client certificate if one is given. */
    static SSLContext sslContext() throws Exception {
        String caFile = input("AUTHMOCK_CA_FILE");
        String clientCert = input("AUTHMOCK_CLIENT_CERT");
        if (caFile == null && clientCert == null) {
            return null; // the JDK's default context: the system trust store (cacerts)
        }
        TrustManagerFactory tmf = null;
        if (caFile != null) {
            // The CA file's certificates as a KeyStore's trusted entries.
            tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trustStore(caFile));
        }
        KeyManagerFactory kmf = null;
        if (clientCert != null) {
            // The certificate and its PKCS#8 key (read with the JDK's own KeyFactory) as a KeyStore entry.
            char[] none = new char[0];
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keyStore(clientCert, input("AUTHMOCK_CLIENT_KEY", clientCert), none), none);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(),
                tmf == null ? null : tmf.getTrustManagers(), null);
        return context;
    }

    static InetSocketAddress proxyAddress() {
        String proxy = input("AUTHMOCK_PROXY");
        if (proxy == null) {
            return null;
        }
        URI uri = URI.create(proxy);
        return new InetSocketAddress(uri.getHost(), uri.getPort());
    }

    interface Fetcher {
        int fetch() throws Exception;
    }

    // ---- java.net.HttpURLConnection -------------------------------------------------------

    static Fetcher urlConnection(String url, String method, byte[] body, Integer timeoutMillis)
            throws Exception {
        // The JVM-wide default authenticator, the classic documented way
        // (https://docs.oracle.com/javase/8/docs/technotes/guides/net/http-auth.html).
        Authenticator.setDefault(new Credentials());
        if (input("AUTHMOCK_COOKIE_JAR") != null) {
            // The cookie cases: HttpURLConnection keeps cookies only with a system-wide CookieHandler;
            // java.net.CookieManager is the JDK's, installed the way its documentation shows
            // (https://docs.oracle.com/javase/tutorial/networking/cookies/cookiemanager.html).
            CookieHandler.setDefault(new CookieManager());
        }
        String domain = input("AUTHMOCK_DOMAIN");
        if (domain != null) {
            // NTLM's domain, the third of the three ways the JDK documents ("DOMAIN\\user" as the
            // name would also reach Basic and Digest, which have no domain):
            // https://docs.oracle.com/en/java/javase/17/docs/technotes/guides/net/http-auth.html
            System.setProperty("http.auth.ntlm.domain", domain);
        }
        InetSocketAddress proxyAddress = proxyAddress();
        // Proxy.NO_PROXY when no proxy is given: nothing is read from the environment or from
        // the http(s).proxyHost properties.
        Proxy proxy = proxyAddress == null ? Proxy.NO_PROXY : new Proxy(Proxy.Type.HTTP, proxyAddress);
        SSLContext ssl = sslContext();
        URL target = new URL(url);
        return () -> {
            HttpURLConnection connection = (HttpURLConnection) target.openConnection(proxy);
            if (ssl != null && connection instanceof HttpsURLConnection) {
                ((HttpsURLConnection) connection).setSSLSocketFactory(ssl.getSocketFactory());
            }
            if (timeoutMillis != null) {
                connection.setConnectTimeout(timeoutMillis);
                connection.setReadTimeout(timeoutMillis);
            }
            // Redirects: left at the default, setInstanceFollowRedirects(true) (same protocol only).
            connection.setRequestMethod(method);
            // A header the application sets itself (URLConnection.setRequestProperty).
            if (input("AUTHMOCK_HEADER_NAME") != null) {
                connection.setRequestProperty(input("AUTHMOCK_HEADER_NAME"), input("AUTHMOCK_HEADER_VALUE", ""));
            }
            if (body != null) {
                // Not in streaming mode: HttpURLConnection keeps the body so that it can send it
                // again after a 401/407.
                connection.setDoOutput(true);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = connection.getResponseCode();
            // Read the whole answer (a body cut short must throw), then hand the connection back.
            InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
            if (in != null) {
                try (in) {
                    in.readAllBytes();
                }
            }
            return status;
        };
    }

    static List<Integer> runUrlConnection(Fetcher fetcher, int repeat, int parallel) throws Exception {
        List<Integer> codes = new ArrayList<>();
        if (parallel <= 1) {
            for (int i = 0; i < repeat; i++) {
                codes.add(fetcher.fetch());
            }
            return codes;
        }
        // PARALLEL threads at once, REPEAT rounds one after the other.
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            for (int r = 0; r < repeat; r++) {
                List<Future<Integer>> round = new ArrayList<>();
                for (int p = 0; p < parallel; p++) {
                    round.add(pool.submit(fetcher::fetch));
                }
                for (Future<Integer> f : round) {
                    codes.add(f.get());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return codes;
    }

    // ---- java.net.http.HttpClient -----------------------------------------------------------

    static List<Integer> runHttpClient(String url, String method, byte[] body, Integer timeoutMillis,
                                       int repeat, int parallel) throws Exception {
        HttpClient.Builder builder = HttpClient.newBuilder()
                // Redirect.NORMAL, as the HttpClient class documentation's example builds its
                // client (the builder's own default is NEVER): follow, except https -> http.
                .followRedirects(HttpClient.Redirect.NORMAL);
        if (input("AUTHMOCK_COOKIE_JAR") != null) {
            // The cookie cases: an HttpClient keeps no cookies unless given a CookieHandler
            // (HttpClient.Builder.cookieHandler); java.net.CookieManager is the JDK's.
            builder.cookieHandler(new CookieManager());
        }
        // An Authenticator when there are credentials to give it: with one set, the client drops an
        // Authorization header the application set itself (an application that sets it has none).
        if (input("AUTHMOCK_USER") != null || input("AUTHMOCK_PROXY_USER") != null) {
            builder.authenticator(new Credentials());
        }
        // version(): left at the default (HTTP_2, falling back to HTTP/1.1).
        InetSocketAddress proxyAddress = proxyAddress();
        // HttpClient.Builder.NO_PROXY when no proxy is given: without proxy(), the client would
        // use the default ProxySelector and its system properties.
        builder.proxy(proxyAddress == null ? HttpClient.Builder.NO_PROXY : ProxySelector.of(proxyAddress));
        SSLContext ssl = sslContext();
        if (ssl != null) {
            builder.sslContext(ssl);
        }
        if (timeoutMillis != null) {
            builder.connectTimeout(Duration.ofMillis(timeoutMillis));
        }
        HttpClient client = builder.build();

        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (timeoutMillis != null) {
            // How long to wait for the response (its headers) at most.
            request.timeout(Duration.ofMillis(timeoutMillis));
        }
        // A header the application sets itself (HttpRequest.Builder.header).
        if (input("AUTHMOCK_HEADER_NAME") != null) {
            request.header(input("AUTHMOCK_HEADER_NAME"), input("AUTHMOCK_HEADER_VALUE", ""));
        }
        HttpRequest req = request.build();

        List<Integer> codes = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            if (parallel <= 1) {
                codes.add(client.send(req, HttpResponse.BodyHandlers.ofByteArray()).statusCode());
                continue;
            }
            // PARALLEL requests at once on the one client (sendAsync), REPEAT rounds in a row.
            List<CompletableFuture<HttpResponse<byte[]>>> round = new ArrayList<>();
            for (int p = 0; p < parallel; p++) {
                round.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (CompletableFuture<HttpResponse<byte[]>> f : round) {
                codes.add(f.join().statusCode());
            }
        }
        return codes;
    }

    public static void main(String[] args) {
        String api = args.length == 2 && args[0].equals("--api") ? args[1] : null;
        if (!"urlconnection".equals(api) && !"httpclient".equals(api)) {
            System.err.println("usage: java Main --api urlconnection|httpclient");
            System.exit(2);
        }
        // A clean failure is an exception of the types the JDK documents for a failed exchange:
        // IOException for HttpURLConnection (getResponseCode, getInputStream: "if an I/O error occurs",
        // https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/net/HttpURLConnection.html),
        // IOException and InterruptedException for HttpClient.send, with which sendAsync's future
        // completes exceptionally too
        // (https://docs.oracle.com/en/java/javase/17/docs/api/java.net.http/java/net/http/HttpClient.html#send(java.net.http.HttpRequest,java.net.http.HttpResponse.BodyHandler)).
        // Anything else is a crash (stack trace, exit 70).
        exitWith(() -> {
            String url = input("AUTHMOCK_URL");
            if (url == null) {
                throw new IllegalArgumentException("AUTHMOCK_URL is missing");
            }
            String method = input("AUTHMOCK_METHOD", "GET");
            int repeat = Math.max(1, Integer.parseInt(input("AUTHMOCK_REPEAT", "1")));
            int parallel = Math.max(1, Integer.parseInt(input("AUTHMOCK_PARALLEL", "1")));
            String timeout = input("AUTHMOCK_TIMEOUT");
            Integer timeoutMillis = timeout == null ? null : (int) Math.round(Double.parseDouble(timeout) * 1000);
            String bodyFile = input("AUTHMOCK_BODY_FILE");
            byte[] body = bodyFile == null ? null : Files.readAllBytes(Path.of(bodyFile));

            return report(api.equals("urlconnection")
                    ? runUrlConnection(urlConnection(url, method, body, timeoutMillis), repeat, parallel)
                    : runHttpClient(url, method, body, timeoutMillis, repeat, parallel));
        }, IOException.class, InterruptedException.class);
    }
}
