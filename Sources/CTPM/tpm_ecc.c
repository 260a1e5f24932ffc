// P-256 keys that live in the TPM: created there, loaded below the primary for each use, signing and agreeing there.
#include "tpm_internal.h"
#include <string.h>

TPM2B_PUBLIC clavis_tpm_p256_template(TPMA_OBJECT attributes, TPMT_SYM_DEF_OBJECT symmetric) {
    TPM2B_PUBLIC template = {
        .publicArea = {
            .type = TPM2_ALG_ECC,
            .nameAlg = TPM2_ALG_SHA256,
            .objectAttributes = attributes | TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
            .parameters.eccDetail = {
                .symmetric = symmetric,
                .scheme = {.scheme = TPM2_ALG_NULL},
                .curveID = TPM2_ECC_NIST_P256,
                .kdf = {.scheme = TPM2_ALG_NULL},
            },
        },
    };
    return template;
}

uint32_t clavis_tpm_create_p256_key(
    clavis_tpm *tpm, uint32_t primary, uint8_t *public_area, size_t *public_length, uint8_t *private_area,
    size_t *private_length) {
    // Unrestricted, with no fixed scheme: the caller names ECDSA-SHA256 for a signature, and ECDH needs decrypt.
    TPMT_SYM_DEF_OBJECT none = {.algorithm = TPM2_ALG_NULL};
    TPM2B_PUBLIC template = clavis_tpm_p256_template(TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT, none);
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    return clavis_tpm_create_object(
        tpm, primary, &sensitive, &template, public_area, public_length, private_area, private_length);
}

/// Copies a coordinate into `out`, left-padded to 32 bytes.
static int copy_coordinate(const TPM2B_ECC_PARAMETER *coordinate, uint8_t *out) {
    if (coordinate->size > 32) return 0;
    memset(out, 0, 32 - coordinate->size);
    memcpy(out + 32 - coordinate->size, coordinate->buffer, coordinate->size);
    return 1;
}

uint32_t clavis_tpm_p256_public_point(const uint8_t *public_area, size_t public_length, uint8_t *point) {
    TPM2B_PUBLIC key = {0};
    TSS2_RC rc = clavis_tpm_read_areas(public_area, public_length, NULL, 0, &key, NULL);
    if (rc != TSS2_RC_SUCCESS) return rc;
    const TPMT_PUBLIC *area = &key.publicArea;
    if (area->type != TPM2_ALG_ECC || area->parameters.eccDetail.curveID != TPM2_ECC_NIST_P256) {
        return CLAVIS_TPM_RC_BAD_ARGUMENT;
    }
    point[0] = 0x04;
    if (!copy_coordinate(&area->unique.ecc.x, point + 1) || !copy_coordinate(&area->unique.ecc.y, point + 33)) {
        return CLAVIS_TPM_RC_BAD_ARGUMENT;
    }
    return TSS2_RC_SUCCESS;
}

/// Loads a key's marshalled areas below `primary`.
static TSS2_RC load_key(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, ESYS_TR *key) {
    TPM2B_PUBLIC key_public = {0};
    TPM2B_PRIVATE key_private = {0};
    TSS2_RC rc = clavis_tpm_read_areas(
        public_area, public_length, private_area, private_length, &key_public, &key_private);
    if (rc != TSS2_RC_SUCCESS) return rc;
    return Esys_Load(
        tpm->esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &key_private, &key_public, key);
}

uint32_t clavis_tpm_p256_sign(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, const uint8_t *digest, uint8_t *signature) {
    ESYS_TR key = ESYS_TR_NONE;
    TSS2_RC rc = load_key(tpm, primary, public_area, public_length, private_area, private_length, &key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_DIGEST message = {.size = TPM2_SHA256_DIGEST_SIZE};
    memcpy(message.buffer, digest, TPM2_SHA256_DIGEST_SIZE);
    TPMT_SIG_SCHEME scheme = {.scheme = TPM2_ALG_ECDSA, .details.ecdsa.hashAlg = TPM2_ALG_SHA256};
    // An unrestricted key signs any digest: no ticket from TPM2_Hash is needed.
    TPMT_TK_HASHCHECK ticket = {.tag = TPM2_ST_HASHCHECK, .hierarchy = TPM2_RH_NULL};
    TPMT_SIGNATURE *signed_digest = NULL;
    rc = Esys_Sign(
        tpm->esys, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &message, &scheme, &ticket, &signed_digest);
    if (rc == TSS2_RC_SUCCESS &&
        (!copy_coordinate(&signed_digest->signature.ecdsa.signatureR, signature) ||
         !copy_coordinate(&signed_digest->signature.ecdsa.signatureS, signature + 32))) {
        rc = CLAVIS_TPM_RC_BAD_ARGUMENT;
    }
    Esys_Free(signed_digest);
    Esys_FlushContext(tpm->esys, key);
    return rc;
}

uint32_t clavis_tpm_p256_agree(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, const uint8_t *peer_point, uint8_t *shared) {
    if (peer_point[0] != 0x04) return CLAVIS_TPM_RC_BAD_ARGUMENT;
    ESYS_TR key = ESYS_TR_NONE;
    TSS2_RC rc = load_key(tpm, primary, public_area, public_length, private_area, private_length, &key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_ECC_POINT peer = {.size = 0};
    peer.point.x.size = 32;
    memcpy(peer.point.x.buffer, peer_point + 1, 32);
    peer.point.y.size = 32;
    memcpy(peer.point.y.buffer, peer_point + 33, 32);
    ESYS_TR session = ESYS_TR_NONE;
    rc = clavis_tpm_start_session(tpm, primary, 0, &session);
    TPM2B_ECC_POINT *product = NULL;
    if (rc == TSS2_RC_SUCCESS) rc = Esys_ECDH_ZGen(tpm->esys, key, session, ESYS_TR_NONE, ESYS_TR_NONE, &peer, &product);
    if (rc == TSS2_RC_SUCCESS && !copy_coordinate(&product->point.x, shared)) rc = CLAVIS_TPM_RC_BAD_ARGUMENT;
    if (product != NULL) memset(product, 0, sizeof *product);
    Esys_Free(product);
    if (session != ESYS_TR_NONE) Esys_FlushContext(tpm->esys, session);
    Esys_FlushContext(tpm->esys, key);
    return rc;
}
