// OpenSSL's libcrypto, for what swift-crypto lacks: MD4 and single DES, which NTLM needs, and SHA-512/256,
// which Digest's SHA-512-256 needs. MD4's and DES's low-level functions are deprecated in OpenSSL 3 but work
// without the legacy provider; SHA-512/256 goes through EVP.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md4.h>
#include <openssl/des.h>
#include <openssl/evp.h>
