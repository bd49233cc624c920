// authmock adapter for OkHttp 3 (Debian libokhttp-java, with okio and okhttp-tls).
//
// Build: javac -cp "$CP" -d okhttp/classes okhttp/Main.java   (the profile's prepare)
// Run:   java -cp "okhttp/classes:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
// Version: the same file in source-file mode with --version.
//
// The adapter only maps the inputs onto OkHttp's own API, written as OkHttp 3.13's documentation shows it:
// - authenticator: the "Handling authentication" recipe, literally
//   (https://square.github.io/okhttp/recipes/#handling-authentication-kt-java, source:
//   https://github.com/square/okhttp/blob/parent-3.13.1/samples/guide/src/main/java/okhttp3/recipes/Authenticate.java):
//   give up when the request already carried Authorization, otherwise answer with Credentials.basic.
//   OkHttp has no Digest or NTLM: an Authenticator is all it offers, and the documented one is Basic
//   whatever scheme the challenge names.
// - proxyAuthenticator: the same with Proxy-Authorization, as the Authenticator javadoc shows for 407s
//   (https://github.com/square/okhttp/blob/parent-3.13.1/okhttp/src/main/java/okhttp3/Authenticator.java).
//   OkHttp also calls it before every CONNECT with a fake "OkHttp-Preemptive" 407 (same javadoc).
// - custom CA and client certificate: okhttp-tls HandshakeCertificates, as its README shows
//   (https://github.com/square/okhttp/blob/parent-3.13.1/okhttp-tls/README.md).
// - pinning: CertificatePinner with "sha256/<pin>" for the URL's host (the CertificatePinning recipe).
// Retries, redirects (followed by default), connection reuse and TLS checks are OkHttp's decisions.

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import okhttp3.CertificatePinner;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.internal.Version;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;

public final class Main {
    static String input(String name) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? null : value;
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(Version.userAgent());
            return;
        }
        int status;
        try {
            status = run();
        } catch (Throwable e) { // report, don't retry
            System.out.flush();
            System.err.println(e.getClass().getName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
            status = 1;
        }
        System.exit(status);
    }

    static int run() throws Exception {
        HttpUrl url = HttpUrl.get(input("AUTHMOCK_URL"));
        String method = input("AUTHMOCK_METHOD") != null ? input("AUTHMOCK_METHOD") : "GET";
        int repeat = input("AUTHMOCK_REPEAT") != null ? Integer.parseInt(input("AUTHMOCK_REPEAT")) : 1;
        int parallel = input("AUTHMOCK_PARALLEL") != null ? Integer.parseInt(input("AUTHMOCK_PARALLEL")) : 1;

        OkHttpClient.Builder builder = new OkHttpClient.Builder();

        String user = input("AUTHMOCK_USER");
        if (user != null) {
            String password = input("AUTHMOCK_PASSWORD") != null ? input("AUTHMOCK_PASSWORD") : "";
            // The recipe, line for line. AUTHMOCK_DOMAIN is ignored: OkHttp has no NTLM.
            builder.authenticator((route, response) -> {
                if (response.request().header("Authorization") != null) {
                    return null; // Give up, we've already attempted to authenticate.
                }
                String credential = Credentials.basic(user, password);
                return response.request().newBuilder()
                        .header("Authorization", credential)
                        .build();
            });
        }

        if (input("AUTHMOCK_PROXY") != null) {
            HttpUrl proxy = HttpUrl.get(input("AUTHMOCK_PROXY"));
            builder.proxy(new Proxy(Proxy.Type.HTTP, new InetSocketAddress(proxy.host(), proxy.port())));
            String proxyUser = input("AUTHMOCK_PROXY_USER");
            if (proxyUser != null) {
                String proxyPassword = input("AUTHMOCK_PROXY_PASSWORD") != null ? input("AUTHMOCK_PROXY_PASSWORD") : "";
                // The Authenticator javadoc's reactive proxy example, line for line.
                builder.proxyAuthenticator((route, response) -> {
                    if (response.request().header("Proxy-Authorization") != null) {
                        return null; // Give up, we've already failed to authenticate.
                    }
                    String credential = Credentials.basic(proxyUser, proxyPassword);
                    return response.request().newBuilder()
                            .header("Proxy-Authorization", credential)
                            .build();
                });
            }
        } else {
            // No proxy from the JVM's defaults either: the case's proxy or a direct connection.
            builder.proxy(Proxy.NO_PROXY);
        }

        if (input("AUTHMOCK_CA_FILE") != null || input("AUTHMOCK_CLIENT_CERT") != null) {
            HandshakeCertificates.Builder certificates = new HandshakeCertificates.Builder();
            if (input("AUTHMOCK_CA_FILE") != null) {
                // Trust exactly the given CA (no platform roots).
                for (Certificate certificate : certificates(input("AUTHMOCK_CA_FILE"))) {
                    certificates.addTrustedCertificate((X509Certificate) certificate);
                }
            } else {
                certificates.addPlatformTrustedCertificates();
            }
            if (input("AUTHMOCK_CLIENT_CERT") != null) {
                certificates.heldCertificate(heldCertificate(input("AUTHMOCK_CLIENT_CERT"), input("AUTHMOCK_CLIENT_KEY")));
            }
            HandshakeCertificates handshake = certificates.build();
            builder.sslSocketFactory(handshake.sslSocketFactory(), handshake.trustManager());
        }
        if (input("AUTHMOCK_PIN_SHA256") != null) {
            builder.certificatePinner(new CertificatePinner.Builder()
                    .add(url.host(), "sha256/" + input("AUTHMOCK_PIN_SHA256"))
                    .build());
        }
        // AUTHMOCK_TIMEOUT bounds connecting, each read and each write (the ConfigureTimeouts recipe);
        // without it OkHttp's defaults (10 s each) apply.
        if (input("AUTHMOCK_TIMEOUT") != null) {
            long millis = Math.round(Double.parseDouble(input("AUTHMOCK_TIMEOUT")) * 1000);
            builder.connectTimeout(millis, TimeUnit.MILLISECONDS)
                    .readTimeout(millis, TimeUnit.MILLISECONDS)
                    .writeTimeout(millis, TimeUnit.MILLISECONDS);
        }
        OkHttpClient client = builder.build();

        // The PostFile recipe's body: a file, re-read for every attempt.
        RequestBody body = input("AUTHMOCK_BODY_FILE") != null
                ? RequestBody.create(MediaType.get("application/octet-stream"), new File(input("AUTHMOCK_BODY_FILE")))
                : null;
        Request request = new Request.Builder().url(url).method(method, body).build();

        List<Integer> codes = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<List<Integer>>> workers = new ArrayList<>();
            for (int p = 0; p < parallel; p++) {
                workers.add(pool.submit(() -> {
                    List<Integer> mine = new ArrayList<>();
                    for (int r = 0; r < repeat; r++) {
                        try (Response response = client.newCall(request).execute()) {
                            // Read the whole body: a cut-off body must end in an exception, not a 200.
                            response.body().bytes();
                            mine.add(response.code());
                        }
                    }
                    return mine;
                }));
            }
            for (Future<List<Integer>> worker : workers) {
                codes.addAll(worker.get());
            }
        } catch (java.util.concurrent.ExecutionException e) {
            // A worker's own exception, not the executor's wrapper, is what the line on stderr names.
            if (e.getCause() instanceof Exception) throw (Exception) e.getCause();
            if (e.getCause() instanceof Error) throw (Error) e.getCause();
            throw e;
        } finally {
            pool.shutdownNow();
        }
        StringBuilder line = new StringBuilder();
        boolean ok = true;
        for (int code : codes) {
            line.append(line.length() > 0 ? " " : "").append(code);
            ok &= code >= 200 && code < 300;
        }
        System.out.println(line);
        return ok ? 0 : 1;
    }

    /** The PEM certificate with its PKCS#8 PEM private key, as okhttp-tls holds a client identity. */
    static HeldCertificate heldCertificate(String certFile, String keyFile) throws Exception {
        X509Certificate certificate = (X509Certificate) certificates(certFile).iterator().next();
        String pem = new String(Files.readAllBytes(new File(keyFile).toPath()), "US-ASCII");
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance(certificate.getPublicKey().getAlgorithm())
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        return new HeldCertificate(new KeyPair(certificate.getPublicKey(), key), certificate);
    }

    static Collection<? extends Certificate> certificates(String pemFile) throws Exception {
        try (InputStream in = new FileInputStream(pemFile)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
    }
}
