// OpenSSL's libcrypto, for the two primitives NTLM needs and swift-crypto lacks: MD4 and single DES.
// Their low-level functions are deprecated in OpenSSL 3 but work without the legacy provider.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md4.h>
#include <openssl/des.h>
