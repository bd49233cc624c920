/* ci/bench profile: Valgrind (3.19 and 3.24 alike) writes into the signal mask given to rt_sigsuspend;
   libdispatch's main thread passes a read-only one, and Valgrind dies of SIGSEGV at start. This
   LD_PRELOAD shim hands it a copy. Built by ci/bench's profile section: gcc -O2 -shared -fPIC … -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int sigsuspend(const sigset_t *mask) {
    static int (*real)(const sigset_t *);
    if (!real) real = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    sigset_t copy = *mask;
    return real(&copy);
}
