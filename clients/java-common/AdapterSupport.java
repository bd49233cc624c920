// The plumbing the Java adapters share, none of it an HTTP library's API: reading the AUTHMOCK_* inputs,
// PEM files into KeyStores (a library's own TLS setup takes them from there), running the parallel
// workers, and turning the statuses or the exception that ended the run into the output and exit status
// the client contract asks for (README, "The client contract"): 1 for an exception of a type the library
// documents, 70 (EX_SOFTWARE) with the stack trace for any other, a crash (issue 26).
//
// Compiled together with each adapter, into the jar its profile's command runs, by the profile's prepare
// step, which also dumps the class-data sharing archive that command maps; by hand (in clients/), e.g.
//   python3 java-common/prepare.py okhttp okhttp/Main.java java-common/AdapterSupport.java
// and used through static imports (`import static authmock.AdapterSupport.input;`). Standard library
// only, so it compiles beside any adapter.

package authmock;

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public final class AdapterSupport {
    private AdapterSupport() {}

    /** An AUTHMOCK_* input, or null when it is unset or empty (an input that does not apply to the case). */
    public static String input(String name) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? null : value;
    }

    /** An AUTHMOCK_* input, or the fallback when it is unset or empty. */
    public static String input(String name, String fallback) {
        String value = input(name);
        return value == null ? fallback : value;
    }

    /** The exit status of a crash (sysexits.h EX_SOFTWARE): the profiles declare it in `crash: exit-status`. */
    public static final int CRASHED = 70;

    /**
     * Runs the adapter and exits with its status. An exception that ends it is reported, not retried. It is
     * first unwrapped from the executor's ExecutionException or CompletionException around it (the worker's
     * own exception). If it is an instance of one of `documented`, the exception types the library's
     * documentation says its calls throw (each adapter cites the page), it is a clean failure: one line on
     * stderr, the exception's class and message, and exit status 1. Anything else (a RuntimeException or an
     * Error out of the library, or a bug of the adapter) is a crash: the stack trace as the JVM's own
     * handler prints an uncaught one, `Exception in thread "main" ...` (the marker the profiles declare in
     * `crash: stderr`), and exit status 70.
     */
    @SafeVarargs
    public static void exitWith(Callable<Integer> adapter, Class<? extends Throwable>... documented) {
        int status;
        try {
            status = adapter.call();
        } catch (Throwable e) {
            Throwable cause = e;
            while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                    && cause.getCause() != null) {
                cause = cause.getCause();
            }
            System.out.flush();
            if (isAny(cause, documented)) {
                System.err.println(cause.getClass().getName() + ": " + String.valueOf(cause.getMessage()).replace('\n', ' '));
                status = 1;
            } else {
                System.err.print("Exception in thread \"" + Thread.currentThread().getName() + "\" ");
                cause.printStackTrace();
                status = CRASHED;
            }
        }
        System.exit(status);
    }

    private static boolean isAny(Throwable e, Class<? extends Throwable>[] types) {
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(e)) {
                return true;
            }
        }
        return false;
    }

    /** Prints the statuses on one line; the exit status: 0 when every one is a 2xx, else 1. */
    public static int report(List<Integer> codes) {
        StringBuilder line = new StringBuilder();
        boolean ok = true;
        for (int code : codes) {
            line.append(line.length() > 0 ? " " : "").append(code);
            ok &= code >= 200 && code < 300;
        }
        System.out.println(line);
        return ok ? 0 : 1;
    }

    /** One fetch with a worker's state (e.g. its HttpClientContext); it returns the HTTP status. */
    public interface Fetch<S> {
        int fetch(S state) throws Exception;
    }

    /**
     * PARALLEL workers at once, each on its own thread with its own state from `perWorker`, each doing
     * REPEAT fetches in a row: their statuses, worker by worker. A fetch's exception ends the run (the
     * ExecutionException around it reaches exitWith()).
     */
    public static <S> List<Integer> inParallel(int parallel, int repeat, Callable<S> perWorker, Fetch<S> fetch)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<List<Integer>>> workers = new ArrayList<>();
            for (int p = 0; p < parallel; p++) {
                workers.add(pool.submit(() -> {
                    S state = perWorker.call();
                    List<Integer> mine = new ArrayList<>();
                    for (int r = 0; r < repeat; r++) {
                        mine.add(fetch.fetch(state));
                    }
                    return mine;
                }));
            }
            List<Integer> codes = new ArrayList<>();
            for (Future<List<Integer>> each : workers) {
                codes.addAll(each.get());
            }
            return codes;
        } finally {
            pool.shutdownNow();
        }
    }

    /** PARALLEL workers at once, each on its own thread, each doing REPEAT fetches in a row (no state). */
    public static List<Integer> inParallel(int parallel, int repeat, Callable<Integer> fetch) throws Exception {
        return inParallel(parallel, repeat, () -> null, none -> fetch.call());
    }

    /** The certificates of a PEM file. */
    public static Collection<? extends Certificate> certificates(String pemFile) throws Exception {
        try (InputStream in = new FileInputStream(pemFile)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
    }

    /** A PEM "PRIVATE KEY" (PKCS#8) of the given key algorithm (a certificate's public key's). */
    public static PrivateKey privateKey(String keyFile, String algorithm) throws Exception {
        String pem = Files.readString(Path.of(keyFile), StandardCharsets.US_ASCII);
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < 0) {
            throw new GeneralSecurityException("no PKCS#8 \"BEGIN PRIVATE KEY\" block in " + keyFile);
        }
        String base64 = pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end);
        byte[] der = Base64.getMimeDecoder().decode(base64);
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    /** An in-memory key store holding the PEM file's certificates as trusted entries. */
    public static KeyStore trustStore(String pemFile) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int index = 0;
        for (Certificate certificate : certificates(pemFile)) {
            store.setCertificateEntry("ca" + index++, certificate);
        }
        return store;
    }

    /** An in-memory key store holding the PEM certificate (chain) and its PKCS#8 PEM private key. */
    public static KeyStore keyStore(String certFile, String keyFile, char[] password) throws Exception {
        Collection<? extends Certificate> chain = certificates(certFile);
        PrivateKey key = privateKey(keyFile, chain.iterator().next().getPublicKey().getAlgorithm());
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
        return store;
    }
}
