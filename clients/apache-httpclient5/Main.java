// authmock adapter for Apache HttpClient 5 (classic API), Debian libhttpclient5-java.
//
// Build: javac -cp "$CP" -d apache-httpclient5/classes apache-httpclient5/Main.java java-common/AdapterSupport.java
//        (the profile's prepare; AdapterSupport is the plumbing the Java adapters share, none of it HttpClient's)
// Run:   java -cp "apache-httpclient5/classes:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
// Version: java -cp "$CP" apache-httpclient5/Version.java   (source-file mode: no compiled classes needed)
//
// The adapter only maps the inputs onto HttpClient's own API, written as the project's 5.2 examples
// (httpclient5/src/test/java/org/apache/hc/client5/http/examples, tag rel/v5.2.1) do it:
// ClientAuthentication and ClientProxyAuthentication (credentials per AuthScope), ClientCustomSSL
// (SSLContexts + SSLConnectionSocketFactoryBuilder + PoolingHttpClientConnectionManagerBuilder) and
// ClientConfiguration (timeouts). Which scheme answers a challenge, how often it is retried,
// redirects (followed by default: RedirectExec) and TLS checks are HttpClient's decisions.
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

import org.apache.hc.client5.http.auth.AuthScope;
import org.apache.hc.client5.http.auth.NTCredentials;
import org.apache.hc.client5.http.auth.UsernamePasswordCredentials;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.auth.CredentialsProviderBuilder;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.client5.http.ssl.SSLConnectionSocketFactoryBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.FileEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.ssl.SSLContextBuilder;
import org.apache.hc.core5.ssl.SSLContexts;
import org.apache.hc.core5.util.Timeout;

public final class Main {
    public static void main(String[] args) {
        // A clean failure is what CloseableHttpClient.execute documents throwing: IOException "in case of a
        // problem or the connection was aborted", ClientProtocolException (an IOException) for a protocol
        // error (https://hc.apache.org/httpcomponents-client-5.2.x/current/httpclient5/apidocs/org/apache/hc/client5/http/impl/classic/CloseableHttpClient.html).
        // Anything else, e.g. the ArrayIndexOutOfBoundsException of hostile.ntlm-target-info-wraps, is a
        // crash (stack trace, exit 70).
        exitWith(Main::run, IOException.class);
    }

    static int run() throws Exception {
        URI uri = URI.create(input("AUTHMOCK_URL"));
        HttpHost target = HttpHost.create(uri);
        String method = input("AUTHMOCK_METHOD", "GET");
        int repeat = Integer.parseInt(input("AUTHMOCK_REPEAT", "1"));
        int parallel = Integer.parseInt(input("AUTHMOCK_PARALLEL", "1"));

        // Credentials per AuthScope, as ClientAuthentication / ClientProxyAuthentication show. The origin's
        // scope is the URL's scheme, host and port; HttpClient picks the scheme (its default preference:
        // SPNEGO, Kerberos, NTLM, Digest, Basic) and uses the credentials for whichever it picks. NTLM needs
        // NTCredentials (NTLMScheme ignores any other kind), so they are used when a domain is given.
        CredentialsProviderBuilder credentials = CredentialsProviderBuilder.create();
        String user = input("AUTHMOCK_USER");
        if (user != null) {
            char[] password = input("AUTHMOCK_PASSWORD", "").toCharArray();
            String domain = input("AUTHMOCK_DOMAIN");
            if (domain != null) {
                credentials.add(new AuthScope(target), new NTCredentials(user, password, null, domain));
            } else {
                credentials.add(new AuthScope(target), new UsernamePasswordCredentials(user, password));
            }
        }

        HttpClientBuilder builder = HttpClients.custom();
        // HttpClients.custom() reads no proxy settings from the system (only useSystemProperties() would):
        // the proxy is the case's or none.
        if (input("AUTHMOCK_PROXY") != null) {
            URI proxyUri = URI.create(input("AUTHMOCK_PROXY"));
            builder.setProxy(new HttpHost(proxyUri.getHost(), proxyUri.getPort()));
            if (input("AUTHMOCK_PROXY_USER") != null) {
                char[] proxyPassword = input("AUTHMOCK_PROXY_PASSWORD", "").toCharArray();
                credentials.add(new AuthScope(proxyUri.getHost(), proxyUri.getPort()),
                        new UsernamePasswordCredentials(input("AUTHMOCK_PROXY_USER"), proxyPassword));
            }
        }
        builder.setDefaultCredentialsProvider(credentials.build());

        PoolingHttpClientConnectionManagerBuilder connections = PoolingHttpClientConnectionManagerBuilder.create();
        // TLS as ClientCustomSSL: an SSLContext from SSLContexts.custom(), trusting exactly the given CA,
        // with the client's key material for mutual TLS. Hostname verification stays HttpClient's default.
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
            connections.setSSLSocketFactory(SSLConnectionSocketFactoryBuilder.create().setSslContext(context).build());
        }
        // AUTHMOCK_TIMEOUT bounds connecting and each wait for data (ClientConfiguration's settings).
        if (input("AUTHMOCK_TIMEOUT") != null) {
            Timeout timeout = Timeout.ofMilliseconds(Math.round(Double.parseDouble(input("AUTHMOCK_TIMEOUT")) * 1000));
            connections.setDefaultConnectionConfig(ConnectionConfig.custom()
                    .setConnectTimeout(timeout).setSocketTimeout(timeout).build());
            builder.setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).build());
        }
        builder.setConnectionManager(connections.build());

        File bodyFile = input("AUTHMOCK_BODY_FILE") != null ? new File(input("AUTHMOCK_BODY_FILE")) : null;

        List<Integer> codes;
        try (CloseableHttpClient client = builder.build()) {
            // PARALLEL worker threads, each doing REPEAT fetches in a row with one HttpClientContext of
            // its own: the tutorial asks that logically related requests share a context (it carries the
            // auth cache), and a context is not thread-safe, so parallel workers have one each.
            codes = inParallel(parallel, repeat, HttpClientContext::create, context -> {
                ClassicRequestBuilder request = ClassicRequestBuilder.create(method).setUri(uri);
                // A header the application sets itself (ClassicRequestBuilder.setHeader).
                if (input("AUTHMOCK_HEADER_NAME") != null) {
                    request.setHeader(input("AUTHMOCK_HEADER_NAME"), input("AUTHMOCK_HEADER_VALUE", ""));
                }
                if (bodyFile != null) {
                    request.setEntity(new FileEntity(bodyFile, ContentType.APPLICATION_OCTET_STREAM));
                }
                ClassicHttpRequest built = request.build();
                return client.execute(built, context, response -> {
                    // Read the whole body: a cut-off body must end in an exception, not a 200.
                    EntityUtils.consume(response.getEntity());
                    return response.getCode();
                });
            });
        }
        return report(codes);
    }
}
