// authmock adapter for Apache HttpClient 4.5 (Debian libhttpclient-java).
//
// Build: javac -cp "$CP" -d apache-httpclient4/classes apache-httpclient4/Main.java   (the profile's prepare)
// Run:   java -cp "apache-httpclient4/classes:$CP" Main   (inputs in the AUTHMOCK_* environment variables)
// Version: the same file in source-file mode with --version.
//
// The adapter only maps the inputs onto HttpClient's own API, written as the project's 4.5 examples
// (httpclient/src/examples/org/apache/http/examples/client, tag rel/v4.5.14) do it: ClientAuthentication
// and ClientProxyAuthentication (BasicCredentialsProvider.setCredentials per AuthScope), ClientCustomSSL
// (SSLContexts + SSLConnectionSocketFactory with the default hostname verifier) and ClientConfiguration
// (timeouts on RequestConfig). Which scheme answers a challenge, how often it is retried, redirects
// (followed by default for GET and HEAD: DefaultRedirectStrategy) and TLS checks are HttpClient's decisions.
// HttpClient has no public-key pinning API: AUTHMOCK_PIN_SHA256 is ignored.

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.security.KeyFactory;
import java.security.KeyStore;
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
import org.apache.http.util.VersionInfo;

public final class Main {
    static String input(String name) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? null : value;
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(VersionInfo.getUserAgent("Apache-HttpClient", "org.apache.http.client", HttpClientBuilder.class));
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
        URI uri = URI.create(input("AUTHMOCK_URL"));
        String method = input("AUTHMOCK_METHOD") != null ? input("AUTHMOCK_METHOD") : "GET";
        int repeat = input("AUTHMOCK_REPEAT") != null ? Integer.parseInt(input("AUTHMOCK_REPEAT")) : 1;
        int parallel = input("AUTHMOCK_PARALLEL") != null ? Integer.parseInt(input("AUTHMOCK_PARALLEL")) : 1;

        // Credentials per AuthScope (host and port), as ClientAuthentication / ClientProxyAuthentication show.
        // HttpClient picks the scheme (its default preference: SPNEGO, Kerberos, NTLM, Digest, Basic).
        // NTLM needs NTCredentials, so they are used when a domain is given.
        CredentialsProvider credentials = new BasicCredentialsProvider();
        String user = input("AUTHMOCK_USER");
        if (user != null) {
            String password = input("AUTHMOCK_PASSWORD") != null ? input("AUTHMOCK_PASSWORD") : "";
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
                String proxyPassword = input("AUTHMOCK_PROXY_PASSWORD") != null ? input("AUTHMOCK_PROXY_PASSWORD") : "";
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

        List<Integer> codes = new ArrayList<>();
        try (CloseableHttpClient client = builder.build()) {
            ExecutorService pool = Executors.newFixedThreadPool(parallel);
            try {
                List<Future<List<Integer>>> workers = new ArrayList<>();
                for (int p = 0; p < parallel; p++) {
                    workers.add(pool.submit(() -> {
                        // One HttpClientContext per thread for its sequential fetches: the tutorial asks that
                        // logically related requests share a context (it carries the auth state), and a
                        // context is not thread-safe, so parallel workers have one each.
                        HttpClientContext context = HttpClientContext.create();
                        List<Integer> mine = new ArrayList<>();
                        for (int r = 0; r < repeat; r++) {
                            RequestBuilder request = RequestBuilder.create(method).setUri(uri);
                            if (bodyFile != null) {
                                request.setEntity(new FileEntity(bodyFile, ContentType.APPLICATION_OCTET_STREAM));
                            }
                            try (CloseableHttpResponse response = client.execute(request.build(), context)) {
                                // Read the whole body: a cut-off body must end in an exception, not a 200.
                                EntityUtils.consume(response.getEntity());
                                mine.add(response.getStatusLine().getStatusCode());
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

    /** A key store holding the PEM file's certificates as trusted entries. */
    static KeyStore trustStore(String pemFile) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int index = 0;
        for (Certificate certificate : certificates(pemFile)) {
            store.setCertificateEntry("ca" + index++, certificate);
        }
        return store;
    }

    /** A key store holding the PEM certificate and its PKCS#8 PEM private key. */
    static KeyStore keyStore(String certFile, String keyFile, char[] password) throws Exception {
        Collection<? extends Certificate> chain = certificates(certFile);
        X509Certificate leaf = (X509Certificate) chain.iterator().next();
        String pem = new String(Files.readAllBytes(new File(keyFile).toPath()), "US-ASCII");
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance(leaf.getPublicKey().getAlgorithm())
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
        return store;
    }

    static Collection<? extends Certificate> certificates(String pemFile) throws Exception {
        try (InputStream in = new FileInputStream(pemFile)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
    }
}
