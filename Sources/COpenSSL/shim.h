#ifndef CLAVIS_COPENSSL_SHIM_H
#define CLAVIS_COPENSSL_SHIM_H

#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

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

/* The digest parameter naming `md`, whose name lives as long as the (static) digest object. */
static inline OSSL_PARAM clavis_kdf_param_digest(const EVP_MD *md) {
    return OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)EVP_MD_get0_name(md), 0);
}

/* HMAC-SHA256 (RFC 2104) over SHA-256's own hashing states: the key's inner and outer padded blocks are hashed
   once, and each code copies the two states, which are plain structures. OpenSSL 3's EVP_MAC restarts by duplicating
   provider contexts (two allocations per code) and costs several times more for the short messages of index digests
   and item keys. SHA256_Init and its siblings are deprecated in OpenSSL 3.0 in favour of EVP, but still built and
   still use the processor's SHA instructions; their deprecation warnings are silenced here only. */
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} clavis_hmac_sha256_key;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Hashes the padded key blocks into `key`; a key longer than a block is hashed first, as RFC 2104 says. */
static inline void clavis_hmac_sha256_key_init(clavis_hmac_sha256_key *key, const unsigned char *bytes, size_t count) {
    unsigned char block[SHA256_CBLOCK];
    memset(block, 0, sizeof block);
    if (count > SHA256_CBLOCK) {
        SHA256(bytes, count, block);
    } else if (count > 0) {
        memcpy(block, bytes, count);
    }
    unsigned char pad[SHA256_CBLOCK];
    for (size_t index = 0; index < SHA256_CBLOCK; index++) pad[index] = block[index] ^ 0x36;
    SHA256_Init(&key->inner);
    SHA256_Update(&key->inner, pad, sizeof pad);
    for (size_t index = 0; index < SHA256_CBLOCK; index++) pad[index] = block[index] ^ 0x5c;
    SHA256_Init(&key->outer);
    SHA256_Update(&key->outer, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

/* Writes the 32-byte code of `message` under `key` to `code`; the working states are wiped. */
static inline void clavis_hmac_sha256(const clavis_hmac_sha256_key *key, const unsigned char *message, size_t count,
                                      unsigned char *code) {
    SHA256_CTX state = key->inner;
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_Update(&state, message, count);
    SHA256_Final(inner, &state);
    state = key->outer;
    SHA256_Update(&state, inner, sizeof inner);
    SHA256_Final(code, &state);
    OPENSSL_cleanse(&state, sizeof state);
    OPENSSL_cleanse(inner, sizeof inner);
}

#pragma GCC diagnostic pop

/* AES-GCM in one call over a kept cipher context, so that a box costs no round trips between Swift and OpenSSL.
   `fresh` sets the context's cipher and nonce length first (a context of one direction, cipher and nonce length keeps
   them); then the key and nonce, the additional data, the text, and the tag. Opening returns 1 when the tag matches,
   0 when it does not (the plaintext written is then to be wiped), and -1 when an OpenSSL call fails (which one is not
   said). Sealing returns 1, or -1. */
static inline int clavis_gcm_begin(EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, int fresh, int encrypting,
                                   const unsigned char *key, const unsigned char *nonce, int nonce_length,
                                   const unsigned char *aad, int aad_length) {
    int written = 0;
    if (fresh && (EVP_CipherInit_ex(context, cipher, NULL, NULL, NULL, encrypting) != 1 ||
                  EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, nonce_length, NULL) != 1))
        return 0;
    if (EVP_CipherInit_ex(context, NULL, NULL, key, nonce, encrypting) != 1) return 0;
    return aad_length == 0 || EVP_CipherUpdate(context, NULL, &written, aad, aad_length) == 1;
}

static inline int clavis_gcm_open(EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, int fresh,
                                  const unsigned char *key, const unsigned char *nonce, int nonce_length,
                                  const unsigned char *aad, int aad_length, const unsigned char *ciphertext,
                                  int length, const unsigned char *tag, int tag_length, unsigned char *plaintext) {
    int written = 0;
    unsigned char trailing = 0;
    /* EVP_CTRL_AEAD_SET_TAG takes a pointer to writable bytes: the caller's tag is copied rather than cast. */
    unsigned char expected[16];
    if (tag_length != (int)sizeof expected) return -1;
    memcpy(expected, tag, sizeof expected);
    if (!clavis_gcm_begin(context, cipher, fresh, 0, key, nonce, nonce_length, aad, aad_length)) return -1;
    if (length > 0 &&
        (EVP_CipherUpdate(context, plaintext, &written, ciphertext, length) != 1 || written != length))
        return -1;
    if (EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, tag_length, expected) != 1) return -1;
    return EVP_CipherFinal_ex(context, &trailing, &written) == 1 ? 1 : 0;
}

static inline int clavis_gcm_seal(EVP_CIPHER_CTX *context, const EVP_CIPHER *cipher, int fresh,
                                  const unsigned char *key, const unsigned char *nonce, int nonce_length,
                                  const unsigned char *aad, int aad_length, const unsigned char *plaintext,
                                  int length, unsigned char *ciphertext, unsigned char *tag, int tag_length) {
    int written = 0;
    unsigned char trailing = 0;
    if (!clavis_gcm_begin(context, cipher, fresh, 1, key, nonce, nonce_length, aad, aad_length)) return -1;
    if (length > 0 &&
        (EVP_CipherUpdate(context, ciphertext, &written, plaintext, length) != 1 || written != length))
        return -1;
    if (EVP_CipherFinal_ex(context, &trailing, &written) != 1) return -1;
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, tag_length, tag) == 1 ? 1 : -1;
}

/* Asymmetric keys. Every function below frees what it allocates before it returns, except the EVP_PKEY it
   hands back, which the caller's owning Swift type frees. */

/* A new EC key on the named group ("P-256", "P-384", "P-521"); NULL on failure. */
static inline EVP_PKEY *clavis_ec_generate(const char *group) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", group);
}

/* A new RSA key of `bits` bits with public exponent 65537; NULL on failure. */
static inline EVP_PKEY *clavis_rsa_generate(size_t bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", bits);
}

/* An EC key from an uncompressed point and, when `scalar` is not NULL, a big-endian private scalar. The point
   must lie on the curve and, for a private key, belong to the scalar; NULL otherwise. */
static inline EVP_PKEY *clavis_ec_from_data(const char *group, const unsigned char *point, size_t point_length,
                                            const unsigned char *scalar, size_t scalar_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    BIGNUM *private_scalar = NULL;
    EVP_PKEY_CTX *context = NULL;
    int ok = builder != NULL
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, group, 0)
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length);
    if (ok && scalar != NULL) {
        private_scalar = BN_secure_new();
        ok = private_scalar != NULL && BN_bin2bn(scalar, (int)scalar_length, private_scalar) != NULL
            && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, private_scalar);
    }
    if (ok) ok = (params = OSSL_PARAM_BLD_to_param(builder)) != NULL;
    if (ok) ok = (context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) != NULL;
    if (ok) ok = EVP_PKEY_fromdata_init(context) == 1;
    if (ok) ok = EVP_PKEY_fromdata(context, &key, scalar != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                                   params) == 1;
    EVP_PKEY_CTX_free(context);
    context = NULL;
    if (ok) ok = (context = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL)) != NULL;
    if (ok) ok = EVP_PKEY_public_check(context) == 1;
    if (ok && scalar != NULL) ok = EVP_PKEY_pairwise_check(context) == 1;
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_clear_free(private_scalar);
    if (!ok) {
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

/* Writes the key's uncompressed public point into `out` (room for `capacity` bytes); its length, or 0. */
static inline size_t clavis_ec_public_point(const EVP_PKEY *key, unsigned char *out, size_t capacity) {
    size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, capacity, &length) != 1) return 0;
    return length;
}

/* Writes the private scalar, left-padded to `length` bytes, into `out`; 1 on success. */
static inline int clavis_ec_private_scalar(const EVP_PKEY *key, unsigned char *out, size_t length) {
    BIGNUM *scalar = NULL;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) != 1) return 0;
    int ok = BN_bn2binpad(scalar, out, (int)length) == (int)length;
    BN_clear_free(scalar);
    return ok;
}

/* 1 when the key holds a private part (an EC scalar or an RSA private exponent). */
static inline int clavis_pkey_has_private(const EVP_PKEY *key) {
    BIGNUM *value = NULL;
    const char *name = EVP_PKEY_is_a(key, "RSA") ? OSSL_PKEY_PARAM_RSA_D : OSSL_PKEY_PARAM_PRIV_KEY;
    if (EVP_PKEY_get_bn_param(key, name, &value) != 1) {
        ERR_clear_error(); /* a public key: not an error worth keeping in the thread's queue */
        return 0;
    }
    BN_clear_free(value);
    return 1;
}

/* Asks for an error, not OpenSSL 3.2's "implicit rejection" (random bytes), when PKCS#1 v1.5 padding does not check
   out on decryption: Apple's SecKey answers errSecParam there. OpenSSL 3.0 and 3.1 know no such parameter, ignore
   it, and always fail. 1 on success. */
static inline int clavis_pkey_ctx_refuse_implicit_rejection(EVP_PKEY_CTX *context) {
    unsigned int implicit = 0;
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_uint("implicit-rejection", &implicit),
        OSSL_PARAM_construct_end(),
    };
    return EVP_PKEY_CTX_set_params(context, parameters);
}

/* 1 for an RSA key, 0 otherwise. */
static inline int clavis_pkey_is_rsa(const EVP_PKEY *key) { return EVP_PKEY_is_a(key, "RSA"); }

/* A PKCS#1 RSAPublicKey (private == 0) or RSAPrivateKey (private == 1) parsed from DER; NULL unless the
   whole input is one well-formed structure. */
static inline EVP_PKEY *clavis_rsa_from_der(const unsigned char *der, size_t length, int private_key) {
    const unsigned char *cursor = der;
    EVP_PKEY *key = private_key ? d2i_PrivateKey(EVP_PKEY_RSA, NULL, &cursor, (long)length)
                                : d2i_PublicKey(EVP_PKEY_RSA, NULL, &cursor, (long)length);
    if (key != NULL && cursor != der + length) {
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

/* The PKCS#1 DER of the key's public (private == 0) or private part written to `out` when it is not NULL;
   the length (also when `out` is NULL), or 0 on failure. */
static inline size_t clavis_rsa_to_der(const EVP_PKEY *key, unsigned char *out, int private_key) {
    unsigned char *cursor = out;
    int length = private_key ? i2d_PrivateKey(key, out != NULL ? &cursor : NULL)
                             : i2d_PublicKey(key, out != NULL ? &cursor : NULL);
    return length > 0 ? (size_t)length : 0;
}

/* A key in the formats other tools write: a PKCS#8 PrivateKeyInfo or a traditional (SEC1, PKCS#1) private key
   when `private_key`, else a SubjectPublicKeyInfo. The whole input must be the key; NULL otherwise, with OpenSSL's
   error queue cleared. */
static inline EVP_PKEY *clavis_pkey_from_standard_der(const unsigned char *der, size_t length, int private_key) {
    const unsigned char *cursor = der;
    EVP_PKEY *key = private_key ? d2i_AutoPrivateKey(NULL, &cursor, (long)length)
                                : d2i_PUBKEY(NULL, &cursor, (long)length);
    if (key != NULL && cursor != der + length) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    if (key == NULL) ERR_clear_error();
    return key;
}

/* A public-only copy of the key (its public DER or point re-read); NULL on failure. */
static inline EVP_PKEY *clavis_pkey_public_copy(EVP_PKEY *key) {
    unsigned char *der = NULL;
    int length = i2d_PUBKEY(key, &der);
    if (length <= 0) return NULL;
    const unsigned char *cursor = der;
    EVP_PKEY *copy = d2i_PUBKEY(NULL, &cursor, length);
    OPENSSL_free(der);
    return copy;
}

/* Converts a DER ECDSA-Sig-Value to r ‖ s, each left-padded to `half` bytes; 1 on success (0 for bad DER,
   trailing bytes or numbers wider than `half`). */
static inline int clavis_ecdsa_der_to_raw(const unsigned char *der, size_t length, unsigned char *out,
                                          size_t half) {
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)length);
    if (signature == NULL) return 0;
    int ok = cursor == der + length
        && BN_bn2binpad(ECDSA_SIG_get0_r(signature), out, (int)half) == (int)half
        && BN_bn2binpad(ECDSA_SIG_get0_s(signature), out + half, (int)half) == (int)half;
    ECDSA_SIG_free(signature);
    return ok;
}

/* Converts r ‖ s (each `half` bytes) to a DER ECDSA-Sig-Value in `out` (room for `capacity` bytes); its
   length, or 0. */
static inline size_t clavis_ecdsa_raw_to_der(const unsigned char *raw, size_t half, unsigned char *out,
                                             size_t capacity) {
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, (int)half, NULL);
    BIGNUM *s = BN_bin2bn(raw + half, (int)half, NULL);
    size_t result = 0;
    if (signature != NULL && r != NULL && s != NULL && ECDSA_SIG_set0(signature, r, s) == 1) {
        r = NULL;
        s = NULL;
        int length = i2d_ECDSA_SIG(signature, NULL);
        if (length > 0 && (size_t)length <= capacity) {
            unsigned char *cursor = out;
            if (i2d_ECDSA_SIG(signature, &cursor) == length) result = (size_t)length;
        }
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(signature);
    return result;
}

/* ---- X.509 certificates and chains ---- */

/* One DER certificate; NULL unless the whole input is exactly one well-formed certificate. */
static inline X509 *clavis_x509_from_der(const unsigned char *der, size_t length) {
    if (length == 0 || length > 0x7fffffff) return NULL;
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)length);
    if (certificate == NULL) return NULL;
    if (cursor != der + length) {
        X509_free(certificate);
        return NULL;
    }
    return certificate;
}

/* The DER of the subject (issuer == 0) or issuer name as the certificate holds it, written to `out` when not
   NULL; its length, or -1. */
static inline int clavis_x509_name_der(const X509 *certificate, int issuer, unsigned char *out) {
    const X509_NAME *name = issuer ? X509_get_issuer_name(certificate) : X509_get_subject_name(certificate);
    unsigned char *cursor = out;
    int length = i2d_X509_NAME(name, out == NULL ? NULL : &cursor);
    return length > 0 ? length : -1;
}

/* The value of the `index`th subject attribute `nid` in UTF-8, written to `out` when not NULL (room for
   `capacity` bytes); its length, or -1 when there is no such attribute or it does not convert. */
static inline int clavis_x509_subject_text(const X509 *certificate, int nid, int index, unsigned char *out,
                                           int capacity) {
    const X509_NAME *name = X509_get_subject_name(certificate);
    int position = -1;
    for (int found = 0; found <= index; found++) {
        position = X509_NAME_get_index_by_NID(name, nid, position);
        if (position < 0) return -1;
    }
    const ASN1_STRING *value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, position));
    unsigned char *text = NULL;
    int length = ASN1_STRING_to_UTF8(&text, value);
    if (length < 0) {
        ERR_clear_error();
        return -1;
    }
    if (out != NULL) {
        if (length > capacity) length = -1;
        else memcpy(out, text, (size_t)length);
    }
    OPENSSL_free(text);
    return length;
}

/* The number of subject attributes `nid`. */
static inline int clavis_x509_subject_count(const X509 *certificate, int nid) {
    const X509_NAME *name = X509_get_subject_name(certificate);
    int count = 0;
    for (int position = -1; (position = X509_NAME_get_index_by_NID(name, nid, position)) >= 0;) count++;
    return count;
}

/* The `index`th subject alternative name of `type` (GEN_EMAIL, GEN_DNS) as IA5 text, written to `out` when
   not NULL (room for `capacity` bytes); its length, or -1 when there is none. */
static inline int clavis_x509_alt_name(const X509 *certificate, int type, int index, unsigned char *out,
                                       int capacity) {
    GENERAL_NAMES *names = X509_get_ext_d2i(certificate, NID_subject_alt_name, NULL, NULL);
    if (names == NULL) {
        ERR_clear_error();
        return -1;
    }
    int result = -1;
    int found = 0;
    for (int position = 0; position < sk_GENERAL_NAME_num(names); position++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, position);
        if (name->type != type) continue;
        if (found++ < index) continue;
        const ASN1_IA5STRING *text = name->d.ia5;
        result = ASN1_STRING_length(text);
        if (out != NULL) {
            if (result > capacity) result = -1;
            else memcpy(out, ASN1_STRING_get0_data(text), (size_t)result);
        }
        break;
    }
    GENERAL_NAMES_free(names);
    return result;
}

/* The serial number's INTEGER in DER, written to `out` when not NULL; its length, or -1. */
static inline int clavis_x509_serial_der(const X509 *certificate, unsigned char *out) {
    unsigned char *cursor = out;
    int length = i2d_ASN1_INTEGER(X509_get0_serialNumber(certificate), out == NULL ? NULL : &cursor);
    return length > 0 ? length : -1;
}

/* notBefore (after == 0) or notAfter in seconds since 1970; 1 on success. */
static inline int clavis_x509_validity(const X509 *certificate, int after, int64_t *seconds) {
    const ASN1_TIME *time = after ? X509_get0_notAfter(certificate) : X509_get0_notBefore(certificate);
    struct tm parts;
    memset(&parts, 0, sizeof parts);
    if (time == NULL || ASN1_TIME_to_tm(time, &parts) != 1) {
        ERR_clear_error();
        return 0;
    }
    *seconds = (int64_t)timegm(&parts);
    return 1;
}

/* The subject key identifier, written to `out` when not NULL; its length, or -1 when absent. */
static inline int clavis_x509_subject_key_id(const X509 *certificate, unsigned char *out) {
    const ASN1_OCTET_STRING *identifier = X509_get0_subject_key_id((X509 *)certificate);
    if (identifier == NULL) {
        ERR_clear_error();
        return -1;
    }
    int length = ASN1_STRING_length(identifier);
    if (out != NULL) memcpy(out, ASN1_STRING_get0_data(identifier), (size_t)length);
    return length;
}

/* The size of a NIST P-256/P-384/P-521 key in bits, or 0 for any other key (other curves, other algorithms). */
static inline int clavis_pkey_nist_curve_bits(const EVP_PKEY *key) {
    char group[64];
    if (!EVP_PKEY_is_a(key, "EC") || EVP_PKEY_get_group_name(key, group, sizeof group, NULL) != 1) {
        ERR_clear_error();
        return 0;
    }
    switch (OBJ_sn2nid(group)) {
    case NID_X9_62_prime256v1: return 256;
    case NID_secp384r1: return 384;
    case NID_secp521r1: return 521;
    default: return 0;
    }
}

/* The certificate's DER, written to `out` when not NULL; its length, or -1. */
static inline int clavis_x509_to_der(X509 *certificate, unsigned char *out) {
    unsigned char *cursor = out;
    int length = i2d_X509(certificate, out == NULL ? NULL : &cursor);
    return length > 0 ? length : -1;
}

/* Stacks of certificates: OpenSSL's sk_X509_* are macros, which Swift cannot call. */
static inline STACK_OF(X509) *clavis_x509_stack_new(void) { return sk_X509_new_null(); }

/* Appends a new reference to `certificate`; 1 on success. */
static inline int clavis_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    if (X509_up_ref(certificate) != 1) return 0;
    if (sk_X509_push(stack, certificate) <= 0) {
        X509_free(certificate);
        return 0;
    }
    return 1;
}

/* The number of certificates in the stack. */
static inline int clavis_x509_stack_count(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }

/* A new reference to the `index`th certificate. */
static inline X509 *clavis_x509_stack_copy(const STACK_OF(X509) *stack, int index) {
    X509 *certificate = sk_X509_value(stack, index);
    return certificate != NULL && X509_up_ref(certificate) == 1 ? certificate : NULL;
}

/* Frees the stack and the references it holds. */
static inline void clavis_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

/* PKCS#12: one DER archive, or NULL unless `der` is exactly one. */
static inline PKCS12 *clavis_pkcs12_from_der(const unsigned char *der, size_t length) {
    if (length == 0 || length > 0x7fffffff) return NULL;
    const unsigned char *cursor = der;
    PKCS12 *archive = d2i_PKCS12(NULL, &cursor, (long)length);
    if (archive == NULL) return NULL;
    if (cursor != der + length) {
        PKCS12_free(archive);
        return NULL;
    }
    return archive;
}

/* The passphrase that opens the archive's MAC: `passphrase` itself, or NULL when it is empty and the archive was
   made without one (as PKCS12_parse tries both). 1 with `*chosen` set, 0 when neither verifies, -1 without a MAC. */
static inline int clavis_pkcs12_verify(PKCS12 *archive, const char *passphrase, const char **chosen) {
    *chosen = passphrase;
    if (!PKCS12_mac_present(archive)) return -1;
    if (PKCS12_verify_mac(archive, passphrase, -1) == 1) return 1;
    if (passphrase[0] == 0 && PKCS12_verify_mac(archive, NULL, 0) == 1) {
        *chosen = NULL;
        return 1;
    }
    return 0;
}

/* ---- Finite-field Diffie-Hellman ---- */

/* base^exponent mod p in RFC 2409's 1024-bit MODP group (OpenSSL's copy of its prime), big-endian, written to `out`
   left-padded to 128 bytes: 1 on success, -1 when `base` is outside 2...p-2 (a peer's key that would make the secret
   predictable), 0 when OpenSSL fails. The exponent (a private key) is held in secure BIGNUMs, used in constant
   time, and cleared when freed. */
static inline int clavis_modp1024_power(const unsigned char *base, size_t base_length, const unsigned char *exponent,
                                        size_t exponent_length, unsigned char *out) {
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *p = BN_get_rfc2409_prime_1024(NULL);
    BIGNUM *b = BN_bin2bn(base, (int)base_length, NULL);
    BIGNUM *e = BN_secure_new();
    BIGNUM *largest = BN_new();
    BIGNUM *result = BN_secure_new();
    int ok = context != NULL && p != NULL && b != NULL && e != NULL && largest != NULL && result != NULL
        && BN_bin2bn(exponent, (int)exponent_length, e) != NULL && BN_copy(largest, p) != NULL
        && BN_sub_word(largest, 2) == 1;
    if (ok && (BN_cmp(b, BN_value_one()) <= 0 || BN_cmp(b, largest) > 0)) ok = -1;
    if (ok == 1) {
        BN_set_flags(e, BN_FLG_CONSTTIME);
        ok = BN_mod_exp(result, b, e, p, context) == 1 && BN_bn2binpad(result, out, 128) == 128;
    }
    BN_CTX_free(context);
    BN_free(p);
    BN_free(b);
    BN_clear_free(e);
    BN_free(largest);
    BN_clear_free(result);
    return ok;
}

#endif
