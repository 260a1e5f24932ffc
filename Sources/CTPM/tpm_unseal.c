// Loading a sealed object under the primary key and unsealing it, through a PCR policy when it has one.
#include "tpm_internal.h"
#include <string.h>

/// A session that authorizes the unseal: a policy session satisfied by the PCRs' current values, or an HMAC
/// session; either salted by the primary so that the secret comes back encrypted.
static TSS2_RC unseal_session(clavis_tpm *tpm, uint32_t primary, uint32_t pcr_mask, ESYS_TR *session) {
    TSS2_RC rc = clavis_tpm_start_session(tpm, primary, pcr_mask != 0, session);
    if (rc != TSS2_RC_SUCCESS || pcr_mask == 0) return rc;
    TPM2B_DIGEST current = {0};
    TPML_PCR_SELECTION selection = clavis_tpm_pcr_selection(pcr_mask);
    rc = Esys_PolicyPCR(tpm->esys, *session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &current, &selection);
    if (rc != TSS2_RC_SUCCESS) {
        Esys_FlushContext(tpm->esys, *session);
        *session = ESYS_TR_NONE;
    }
    return rc;
}

uint32_t clavis_tpm_unseal(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, uint32_t pcr_mask, uint8_t *secret, size_t *length, int *stage) {
    *stage = CLAVIS_TPM_STAGE_READ;
    if (!clavis_tpm_pcr_mask_is_valid(pcr_mask)) return CLAVIS_TPM_RC_BAD_ARGUMENT;
    TPM2B_PUBLIC sealed_public = {0};
    TPM2B_PRIVATE sealed_private = {0};
    TSS2_RC rc = clavis_tpm_read_areas(
        public_area, public_length, private_area, private_length, &sealed_public, &sealed_private);
    if (rc != TSS2_RC_SUCCESS) return rc;
    *stage = CLAVIS_TPM_STAGE_LOAD;
    ESYS_TR item = ESYS_TR_NONE;
    rc = Esys_Load(
        tpm->esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sealed_private, &sealed_public, &item);
    if (rc != TSS2_RC_SUCCESS) return rc;
    *stage = CLAVIS_TPM_STAGE_POLICY;
    ESYS_TR session = ESYS_TR_NONE;
    rc = unseal_session(tpm, primary, pcr_mask, &session);
    TPM2B_SENSITIVE_DATA *unsealed = NULL;
    if (rc == TSS2_RC_SUCCESS) *stage = CLAVIS_TPM_STAGE_UNSEAL;
    if (rc == TSS2_RC_SUCCESS) rc = Esys_Unseal(tpm->esys, item, session, ESYS_TR_NONE, ESYS_TR_NONE, &unsealed);
    if (rc == TSS2_RC_SUCCESS) {
        if (unsealed->size > CLAVIS_TPM_SECRET_CAPACITY) {
            rc = TSS2_MU_RC_BAD_SIZE;
        } else {
            memcpy(secret, unsealed->buffer, unsealed->size);
            *length = unsealed->size;
        }
        memset(unsealed, 0, sizeof *unsealed);
    }
    Esys_Free(unsealed);
    if (session != ESYS_TR_NONE) Esys_FlushContext(tpm->esys, session);
    Esys_FlushContext(tpm->esys, item);
    return rc;
}
