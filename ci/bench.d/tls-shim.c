/* ci/bench tls: an LD_PRELOAD shim around OpenSSL's SSL_connect for wrk. It counts full and resumed
   handshakes (into TLS_COUNT_FILE) and, with TLS_FORCE_FULL=1, drops the session wrk keeps for the next
   connection (wrk calls SSL_clear and reconnects, which offers the old session), so every connection is a
   new handshake whatever the server allows. Built by ci/bench's tls section: gcc -O2 -shared -fPIC … -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct ssl_st SSL;
typedef struct ssl_session_st SSL_SESSION;
static int (*real_connect)(SSL *);
static int (*session_reused)(const SSL *);
static int (*set_session)(SSL *, SSL_SESSION *);
static int (*in_before)(const SSL *);
static SSL_SESSION *(*get_session)(const SSL *);
static int force;
static long full, resumed;
__attribute__((constructor)) static void init(void) {
    real_connect = (int (*)(SSL *))dlsym(RTLD_NEXT, "SSL_connect");
    session_reused = (int (*)(const SSL *))dlsym(RTLD_NEXT, "SSL_session_reused");
    set_session = (int (*)(SSL *, SSL_SESSION *))dlsym(RTLD_NEXT, "SSL_set_session");
    in_before = (int (*)(const SSL *))dlsym(RTLD_NEXT, "SSL_in_before");
    get_session = (SSL_SESSION *(*)(const SSL *))dlsym(RTLD_NEXT, "SSL_get_session");
    const char *f = getenv("TLS_FORCE_FULL");
    force = f && *f == '1';
}
int SSL_connect(SSL *ssl) {
    /* wrk calls SSL_connect again while a non-blocking handshake is under way: drop the session only
       before the handshake starts. */
    if (force && in_before(ssl) && get_session(ssl)) set_session(ssl, NULL);
    int result = real_connect(ssl);
    if (result == 1) {
        if (session_reused(ssl)) __atomic_add_fetch(&resumed, 1, __ATOMIC_RELAXED);
        else __atomic_add_fetch(&full, 1, __ATOMIC_RELAXED);
    }
    return result;
}
__attribute__((destructor)) static void report(void) {
    const char *path = getenv("TLS_COUNT_FILE");
    FILE *out = path ? fopen(path, "w") : NULL;
    if (out) { fprintf(out, "%ld %ld\n", full, resumed); fclose(out); }
}
