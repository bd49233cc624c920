// authmock adapter for Apache HttpClient 4.5 (Debian libhttpclient-java).
//
// Build: javac -cp "$CP" -d apache-httpclient4/classes apache-httpclient4/Main.java java-common/AdapterSupport.java
//        (the profile's prepare; AdapterSupport is the plumbing the Java adapters share, none of it HttpClient's)
// Run:   java -cp "apache-httpclient4/classes:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
// Version: java -cp "$CP" apache-httpclient4/Version.java   (source-file mode: no compiled classes needed)
//
// The adapter only maps the inputs onto HttpClient's own API, written as the project's 4.5 examples
// (httpclient/src/examples/org/apache/http/examples/client, tag rel/v4.5.14) do it: ClientAuthentication
// and ClientProxyAuthentication (BasicCredentialsProvider.setCredentials per AuthScope), ClientCustomSSL
// (SSLContexts + SSLConnectionSocketFactory with the default hostname verifier) and ClientConfiguration
// (timeouts on RequestConfig). Which scheme answers a challenge, how often it is retried, redirects
// (followed by default for GET and HEAD: DefaultRedirectStrategy) and TLS checks are HttpClient's decisions.
// HttpClient has no public-key pinning API: AUTHMOCK_PIN_SHA256 is ignored.

import static authmock.AdapterSupport.exitWith;
import static authmock.AdapterSupport.inParallel;
import static authmock.AdapterSupport.input;
import static authmock.AdapterSupport.keyStore;
import static authmock.AdapterSupport.report;
import static authmock.AdapterSupport.trustStore;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.List;

import javax.net.ssl.SSLContext;

import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.NTCredentials;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.client.CredentialsProvider;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.RequestBuilder;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.conn.ssl.SSLConnectionSocketFactory;
import org.apache.http.entity.ContentType;
import org.apache.http.entity.FileEntity;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClientBuilder;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.ssl.SSLContextBuilder;
import org.apache.http.ssl.SSLContexts;
import org.apache.http.util.EntityUtils;

public final class Main {
    public static void main(String[] args) {
        // A clean failure is what HttpClient.execute documents throwing: IOException "in case of a problem or
        // the connection was aborted" and ClientProtocolException (an IOException) "in case of an http
        // protocol error" (https://hc.apache.org/httpcomponents-client-4.5.x/current/httpclient/apidocs/org/apache/http/client/HttpClient.html).
        // Anything else, e.g. the ArrayIndexOutOfBoundsException of hostile.ntlm-target-info-wraps, is a
        // crash (stack trace, exit 70).
        exitWith(Main::run, IOException.class);
    }

    static int run() throws Exception {
        URI uri = URI.create(input("AUTHMOCK_URL"));
        String method = input("AUTHMOCK_METHOD", "GET");
        int repeat = Integer.parseInt(input("AUTHMOCK_REPEAT", "1"));
        int parallel = Integer.parseInt(input("AUTHMOCK_PARALLEL", "1"));

        // Credentials per AuthScope (host and port), as ClientAuthentication / ClientProxyAuthentication show.
        // HttpClient picks the scheme (its default preference: SPNEGO, Kerberos, NTLM, Digest, Basic).
        // NTLM needs NTCredentials, so they are used when a domain is given.
        CredentialsProvider credentials = new BasicCredentialsProvider();
        String user = input("AUTHMOCK_USER");
        if (user != null) {
            String password = input("AUTHMOCK_PASSWORD", "");
            String domain = input("AUTHMOCK_DOMAIN");
            credentials.setCredentials(new AuthScope(uri.getHost(), uri.getPort()), domain != null
                    ? new NTCredentials(user, password, null, domain)
                    : new UsernamePasswordCredentials(user, password));
        }

        HttpClientBuilder builder = HttpClients.custom();
        // HttpClients.custom() reads no proxy settings from the system (only useSystemProperties() would).
        if (input("AUTHMOCK_PROXY") != null) {
            URI proxyUri = URI.create(input("AUTHMOCK_PROXY"));
            builder.setProxy(new HttpHost(proxyUri.getHost(), proxyUri.getPort()));
            if (input("AUTHMOCK_PROXY_USER") != null) {
                String proxyPassword = input("AUTHMOCK_PROXY_PASSWORD", "");
                credentials.setCredentials(new AuthScope(proxyUri.getHost(), proxyUri.getPort()),
                        new UsernamePasswordCredentials(input("AUTHMOCK_PROXY_USER"), proxyPassword));
            }
        }
        builder.setDefaultCredentialsProvider(credentials);

        // TLS as ClientCustomSSL, but trusting exactly the given CA (no trust strategy) and with the
        // client's key material for mutual TLS; the default hostname verifier.
        if (input("AUTHMOCK_CA_FILE") != null || input("AUTHMOCK_CLIENT_CERT") != null) {
            SSLContextBuilder ssl = SSLContexts.custom();
            if (input("AUTHMOCK_CA_FILE") != null) {
                ssl.loadTrustMaterial(trustStore(input("AUTHMOCK_CA_FILE")), null);
            }
            if (input("AUTHMOCK_CLIENT_CERT") != null) {
                char[] keyPassword = "authmock".toCharArray(); // an in-memory key store's password
                ssl.loadKeyMaterial(keyStore(input("AUTHMOCK_CLIENT_CERT"), input("AUTHMOCK_CLIENT_KEY"), keyPassword), keyPassword);
            }
            SSLContext context = ssl.build();
            builder.setSSLSocketFactory(new SSLConnectionSocketFactory(context, SSLConnectionSocketFactory.getDefaultHostnameVerifier()));
        }
        // AUTHMOCK_TIMEOUT bounds connecting and each wait for data (ClientConfiguration's settings).
        if (input("AUTHMOCK_TIMEOUT") != null) {
            int millis = (int) Math.round(Double.parseDouble(input("AUTHMOCK_TIMEOUT")) * 1000);
            builder.setDefaultRequestConfig(RequestConfig.custom().setConnectTimeout(millis).setSocketTimeout(millis).build());
        }

        File bodyFile = input("AUTHMOCK_BODY_FILE") != null ? new File(input("AUTHMOCK_BODY_FILE")) : null;

        List<Integer> codes;
        try (CloseableHttpClient client = builder.build()) {
            // PARALLEL worker threads, each doing REPEAT fetches in a row with one HttpClientContext of
            // its own: the tutorial asks that logically related requests share a context (it carries the
            // auth state), and a context is not thread-safe, so parallel workers have one each.
            codes = inParallel(parallel, repeat, HttpClientContext::create, context -> {
                RequestBuilder request = RequestBuilder.create(method).setUri(uri);
                // A header the application sets itself (RequestBuilder.setHeader).
                if (input("AUTHMOCK_HEADER_NAME") != null) {
                    request.setHeader(input("AUTHMOCK_HEADER_NAME"), input("AUTHMOCK_HEADER_VALUE", ""));
                }
                if (bodyFile != null) {
                    request.setEntity(new FileEntity(bodyFile, ContentType.APPLICATION_OCTET_STREAM));
                }
                try (CloseableHttpResponse response = client.execute(request.build(), context)) {
                    // Read the whole body: a cut-off body must end in an exception, not a 200.
                    EntityUtils.consume(response.getEntity());
                    return response.getStatusLine().getStatusCode();
                }
            });
        }
        return report(codes);
    }
}
