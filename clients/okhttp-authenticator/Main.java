// authmock adapter for OkHttp 3 (Debian libokhttp-java, with okio and okhttp-tls): Bearer tokens, refreshed
// by an okhttp3.Authenticator. The okhttp-authenticator profile; only the bearer.* and oauth.* cases and the
// TLS and redirect cases that come with them.
//
// Build: the profile's prepare, python3 java-common/prepare.py okhttp-authenticator okhttp-authenticator/Main.java
//        java-common/AdapterSupport.java (AdapterSupport is the plumbing the Java adapters share, none of it OkHttp's)
// Run:   java -cp "okhttp-authenticator/adapter.jar:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
//
// The adapter only maps the inputs onto OkHttp's own API, written as OkHttp 3.13's documentation shows it:
// - the access token goes on every call through an application interceptor ("Rewriting Requests",
//   https://square.github.io/okhttp/interceptors/#rewriting-requests), which reads the current token;
// - a 401 goes to the Authenticator (OkHttp calls it for every 401, RetryAndFollowUpInterceptor.followUpRequest),
//   written as the Authenticator javadoc and the "Handling authentication" recipe teach
//   (https://github.com/square/okhttp/blob/parent-3.13.1/okhttp/src/main/java/okhttp3/Authenticator.java,
//   https://square.github.io/okhttp/recipes/#handling-authentication-kt-java): give up (return null) when
//   the recipe's attempt limit is reached (its responseCount() >= 3, as the recipe writes it) or when no new credential can be had (the refresh was refused); otherwise refresh the token at
//   the token endpoint (RFC 6749 §6) and return response.request().newBuilder().header("Authorization", …).
//   No lock: the docs show none, so parallel calls that meet a 401 each refresh.
// - the token endpoint is called with a client made by newBuilder() from the same base client (same pool and
//   TLS, no interceptor or authenticator), a FormBody POST with the client's credentials as Basic
//   (Credentials.basic, RFC 6749 §2.3.1); a non-2xx answer is checked with isSuccessful() as the recipes do.
// - custom CA: okhttp-tls HandshakeCertificates, as in the okhttp profile.
// Retries, redirects (followed by default; Authorization dropped when the host, port or scheme changes),
// connection reuse and TLS checks are OkHttp's decisions.
//
// Not OkHttp: OkHttp has no JSON parser and Debian ships none on this class path (the recipes use Moshi), so
// jsonString() below pulls the two string members out of the token answer. Glue, nothing of OkHttp's behaviour.

import static authmock.AdapterSupport.certificates;
import static authmock.AdapterSupport.exitWith;
import static authmock.AdapterSupport.inParallel;
import static authmock.AdapterSupport.input;
import static authmock.AdapterSupport.report;

import java.io.IOException;
import java.net.Proxy;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import okhttp3.Credentials;
import okhttp3.FormBody;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.tls.HandshakeCertificates;

public final class Main {
    /** The tokens the application holds: the access token every call sends, and the refresh token. */
    static volatile String accessToken;
    static volatile String refreshToken;

    public static void main(String[] args) {
        // A clean failure is what Call.execute documents throwing: IOException "if the request could not be
        // executed due to cancellation, a connectivity problem or timeout" (OkHttp 3.13,
        // https://github.com/square/okhttp/blob/parent-3.13.1/okhttp/src/main/java/okhttp3/Call.java);
        // "Too many follow-up requests" is a ProtocolException, an IOException too. Anything else is a crash
        // (stack trace, exit 70).
        exitWith(Main::run, IOException.class);
    }

    static int run() throws Exception {
        HttpUrl url = HttpUrl.get(input("AUTHMOCK_URL"));
        int repeat = Integer.parseInt(input("AUTHMOCK_REPEAT", "1"));
        int parallel = Integer.parseInt(input("AUTHMOCK_PARALLEL", "1"));

        // No proxy from the JVM's defaults: a direct connection (the column has no proxy cases).
        OkHttpClient.Builder builder = new OkHttpClient.Builder().proxy(Proxy.NO_PROXY);
        if (input("AUTHMOCK_CA_FILE") != null) {
            // Trust exactly the given CA (no platform roots), as okhttp-tls's README shows.
            HandshakeCertificates.Builder certificates = new HandshakeCertificates.Builder();
            for (Certificate certificate : certificates(input("AUTHMOCK_CA_FILE"))) {
                certificates.addTrustedCertificate((X509Certificate) certificate);
            }
            HandshakeCertificates handshake = certificates.build();
            builder.sslSocketFactory(handshake.sslSocketFactory(), handshake.trustManager());
        }
        // The client the token endpoint is asked with; the resource client below is made from it by
        // newBuilder(), which shares its connection pool and configuration.
        OkHttpClient tokenClient = builder.build();

        String tokenUrl = input("AUTHMOCK_TOKEN_URL");
        String clientCredential = Credentials.basic(input("AUTHMOCK_CLIENT_ID", ""), input("AUTHMOCK_CLIENT_SECRET", ""));
        if (tokenUrl != null) {
            // The first tokens: the password grant (RFC 6749 §4.3). A refusal ends the run as the recipes'
            // "Unexpected code" IOException.
            RequestBody form = new FormBody.Builder()
                    .add("grant_type", "password")
                    .add("username", input("AUTHMOCK_USER", ""))
                    .add("password", input("AUTHMOCK_PASSWORD", ""))
                    .build();
            try (Response response = tokenClient.newCall(tokenRequest(tokenUrl, clientCredential, form)).execute()) {
                if (!response.isSuccessful()) throw new IOException("Unexpected code " + response);
                keepTokens(response.body().string());
            }
        } else {
            // bearer.*: a token the application already holds (null in the tls.* and redirect.* cases: no
            // Authorization at all).
            accessToken = input("AUTHMOCK_TOKEN");
        }

        OkHttpClient.Builder resource = tokenClient.newBuilder();
        // An application interceptor puts the current access token on every call.
        resource.addInterceptor(chain -> {
            Request request = chain.request();
            String token = accessToken;
            if (token != null) {
                request = request.newBuilder().header("Authorization", "Bearer " + token).build();
            }
            return chain.proceed(request);
        });
        if (tokenUrl != null) {
            // The Authenticator: on a 401, refresh and retry with the new token; return null to give up.
            resource.authenticator((route, response) -> {
                if (responseCount(response) >= 3) {
                    return null; // If we've failed 3 times, give up (the recipe's attempt limit).
                }
                if (refreshToken == null) {
                    return null; // No refresh token: no new credentials to offer.
                }
                RequestBody form = new FormBody.Builder()
                        .add("grant_type", "refresh_token")
                        .add("refresh_token", refreshToken)
                        .build();
                try (Response refreshed = tokenClient.newCall(tokenRequest(tokenUrl, clientCredential, form)).execute()) {
                    if (!refreshed.isSuccessful()) {
                        return null; // No new credentials: skip the retry, the 401 is the answer.
                    }
                    keepTokens(refreshed.body().string());
                }
                return response.request().newBuilder()
                        .header("Authorization", "Bearer " + accessToken)
                        .build();
            });
        }
        // With AUTHMOCK_TOKEN alone there is nothing to renew a token with: OkHttp's default Authenticator.NONE
        // hands the 401 back.
        OkHttpClient client = resource.build();

        Request request = new Request.Builder().url(url).build();
        // PARALLEL worker threads on the one client, each doing REPEAT fetches in a row.
        return report(inParallel(parallel, repeat, () -> {
            try (Response response = client.newCall(request).execute()) {
                // Read the whole body: a cut-off body must end in an exception, not a 200.
                response.body().bytes();
                return response.code();
            }
        }));
    }

    /** A token request: the form POSTed to the token endpoint, the client authenticated with Basic. */
    static Request tokenRequest(String tokenUrl, String clientCredential, RequestBody form) {
        return new Request.Builder()
                .url(tokenUrl)
                .header("Authorization", clientCredential)
                .post(form)
                .build();
    }

    /** Keeps the tokens of a token answer (RFC 6749 §5.1); a refresh answer without a refresh token keeps the old one. */
    static void keepTokens(String json) throws IOException {
        String access = jsonString(json, "access_token");
        if (access == null) throw new IOException("no access_token in the token answer: " + json);
        String refresh = jsonString(json, "refresh_token");
        if (refresh != null) refreshToken = refresh;
        accessToken = access;
    }

    /** The recipe's responseCount(): how many responses this call has met, this one included. */
    static int responseCount(Response response) {
        int result = 1;
        while ((response = response.priorResponse()) != null) {
            result++;
        }
        return result;
    }

    /** Glue, not OkHttp: a top-level JSON string member (tokens are plain ASCII; escapes are not undone). */
    static String jsonString(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }
}
