// OpenSSL's libcrypto, every hash of the core (AuthMockCore/Support/Hashes.swift: MD5, SHA-1 and SHA-256 through
// their low-level Init/Update/Final, SHA-512/256 through EVP, HMAC through EVP_MAC) and NTLM's MD4 and single
// DES. The low-level functions are deprecated in OpenSSL 3 but work without the legacy provider; the hashes'
// skip EVP's per-call context allocation and provider dispatch.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md4.h>
#include <openssl/md5.h>
#include <openssl/sha.h>
#include <openssl/des.h>
#include <openssl/evp.h>
#include <openssl/params.h>
