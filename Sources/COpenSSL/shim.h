#ifndef CLAVIS_COPENSSL_SHIM_H
#define CLAVIS_COPENSSL_SHIM_H

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

/* OSSL_PARAM keys are macros naming string literals; these helpers give Swift
   parameters whose key pointers live for the whole program. */

static inline OSSL_PARAM clavis_kdf_param_key(const void *bytes, size_t count) {
    return OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)bytes, count);
}

static inline OSSL_PARAM clavis_kdf_param_salt(const void *bytes, size_t count) {
    return OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)bytes, count);
}

static inline OSSL_PARAM clavis_kdf_param_info(const void *bytes, size_t count) {
    return OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)bytes, count);
}

static inline OSSL_PARAM clavis_kdf_param_digest_sha256(void) {
    return OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
}

static inline OSSL_PARAM clavis_mac_param_digest_sha256(void) {
    return OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
}

#endif
