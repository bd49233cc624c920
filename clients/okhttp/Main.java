// authmock adapter for OkHttp 3 (Debian libokhttp-java, with okio and okhttp-tls).
//
// Build: javac -cp "$CP" -d okhttp/classes okhttp/Main.java java-common/AdapterSupport.java
//        (the profile's prepare; AdapterSupport is the plumbing the Java adapters share, none of it OkHttp's)
// Run:   java -cp "okhttp/classes:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
// Version: java -cp "$CP" okhttp/Version.java   (source-file mode: no compiled classes needed)
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

import static authmock.AdapterSupport.certificates;
import static authmock.AdapterSupport.exitWith;
import static authmock.AdapterSupport.inParallel;
import static authmock.AdapterSupport.input;
import static authmock.AdapterSupport.privateKey;
import static authmock.AdapterSupport.report;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;

import okhttp3.CertificatePinner;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;

public final class Main {
    public static void main(String[] args) {
        // A clean failure is what Call.execute documents throwing: IOException "if the request could not be
        // executed due to cancellation, a connectivity problem or timeout" (OkHttp 3.13,
        // https://github.com/square/okhttp/blob/parent-3.13.1/okhttp/src/main/java/okhttp3/Call.java);
        // pin and TLS failures are SSLPeerUnverifiedException and SSLHandshakeException, IOExceptions too.
        // Anything else is a crash (stack trace, exit 70).
        exitWith(Main::run, IOException.class);
    }

    static int run() throws Exception {
        HttpUrl url = HttpUrl.get(input("AUTHMOCK_URL"));
        String method = input("AUTHMOCK_METHOD", "GET");
        int repeat = Integer.parseInt(input("AUTHMOCK_REPEAT", "1"));
        int parallel = Integer.parseInt(input("AUTHMOCK_PARALLEL", "1"));

        OkHttpClient.Builder builder = new OkHttpClient.Builder();

        String user = input("AUTHMOCK_USER");
        if (user != null) {
            String password = input("AUTHMOCK_PASSWORD", "");
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
                String proxyPassword = input("AUTHMOCK_PROXY_PASSWORD", "");
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
        Request.Builder requestBuilder = new Request.Builder().url(url).method(method, body);
        // A header the application sets itself (Request.Builder.header, as the "Accessing Headers" recipe).
        if (input("AUTHMOCK_HEADER_NAME") != null) {
            requestBuilder.header(input("AUTHMOCK_HEADER_NAME"), input("AUTHMOCK_HEADER_VALUE", ""));
        }
        Request request = requestBuilder.build();

        // PARALLEL worker threads on the one client, each doing REPEAT fetches in a row.
        return report(inParallel(parallel, repeat, () -> {
            try (Response response = client.newCall(request).execute()) {
                // Read the whole body: a cut-off body must end in an exception, not a 200.
                response.body().bytes();
                return response.code();
            }
        }));
    }

    /** The PEM certificate with its PKCS#8 PEM private key, as okhttp-tls holds a client identity. */
    static HeldCertificate heldCertificate(String certFile, String keyFile) throws Exception {
        X509Certificate certificate = (X509Certificate) certificates(certFile).iterator().next();
        PrivateKey key = privateKey(keyFile, certificate.getPublicKey().getAlgorithm());
        return new HeldCertificate(new KeyPair(certificate.getPublicKey(), key), certificate);
    }
}
