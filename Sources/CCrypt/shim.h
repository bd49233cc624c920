// libxcrypt (Debian: libcrypt-dev): crypt_rn() verifies the crypt(3) hashes Apache's htpasswd writes —
// bcrypt ($2y$/$2b$), SHA-256-crypt ($5$), SHA-512-crypt ($6$), MD5-crypt ($1$) and DES.
#include <crypt.h>
