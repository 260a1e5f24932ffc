// Sealing a short secret to this TPM, optionally under a policy on PCR values.
#include "tpm_internal.h"
#include <string.h>

/// The policy digest of "these PCRs hold their current values" (TPM2_PolicyPCR in a trial session).
static TSS2_RC pcr_policy_digest(clavis_tpm *tpm, uint32_t mask, TPM2B_DIGEST *policy) {
    TPMT_SYM_DEF none = {.algorithm = TPM2_ALG_NULL};
    ESYS_TR trial = ESYS_TR_NONE;
    TSS2_RC rc = Esys_StartAuthSession(
        tpm->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, NULL, TPM2_SE_TRIAL, &none,
        TPM2_ALG_SHA256, &trial);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_DIGEST current = {0};
    TPML_PCR_SELECTION selection = clavis_tpm_pcr_selection(mask);
    rc = Esys_PolicyPCR(tpm->esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &current, &selection);
    TPM2B_DIGEST *digest = NULL;
    if (rc == TSS2_RC_SUCCESS) rc = Esys_PolicyGetDigest(tpm->esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &digest);
    if (rc == TSS2_RC_SUCCESS) *policy = *digest;
    Esys_Free(digest);
    Esys_FlushContext(tpm->esys, trial);
    return rc;
}

uint32_t clavis_tpm_seal(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *secret, size_t length, uint32_t pcr_mask, uint8_t *public_area,
    size_t *public_length, uint8_t *private_area, size_t *private_length) {
    if (length == 0 || length > CLAVIS_TPM_SECRET_CAPACITY || !clavis_tpm_pcr_mask_is_valid(pcr_mask)) {
        return CLAVIS_TPM_RC_BAD_ARGUMENT;
    }
    TPM2B_PUBLIC template = {
        .publicArea = {
            .type = TPM2_ALG_KEYEDHASH,
            .nameAlg = TPM2_ALG_SHA256,
            // No userWithAuth under a PCR policy: only a satisfied policy session may unseal it.
            .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA |
                (pcr_mask ? 0 : TPMA_OBJECT_USERWITHAUTH),
            .parameters.keyedHashDetail.scheme = {.scheme = TPM2_ALG_NULL},
        },
    };
    TSS2_RC rc = TSS2_RC_SUCCESS;
    if (pcr_mask) {
        rc = pcr_policy_digest(tpm, pcr_mask, &template.publicArea.authPolicy);
        if (rc != TSS2_RC_SUCCESS) return rc;
    }
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    sensitive.sensitive.data.size = (UINT16)length;
    memcpy(sensitive.sensitive.data.buffer, secret, length);
    rc = clavis_tpm_create_object(
        tpm, primary, &sensitive, &template, public_area, public_length, private_area, private_length);
    memset(&sensitive, 0, sizeof sensitive);
    return rc;
}
