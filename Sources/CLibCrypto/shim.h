// OpenSSL's libcrypto, every hash of the core (AuthMockCore/Support/Hashes.swift: MD5, SHA-1, SHA-256 and SHA-512/256
// through EVP, HMAC through EVP_MAC) and NTLM's MD4 and single DES. MD4's and DES's low-level functions are
// deprecated in OpenSSL 3 but work without the legacy provider.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md4.h>
#include <openssl/des.h>
#include <openssl/evp.h>
#include <openssl/params.h>
