// Sessions salted by the primary key, which encrypt the secret's way to and from the TPM.
#include "tpm_internal.h"

uint32_t clavis_tpm_start_session(clavis_tpm *tpm, uint32_t primary, int policy, uint32_t *session) {
    TPMT_SYM_DEF symmetric = {.algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB};
    TSS2_RC rc = Esys_StartAuthSession(
        tpm->esys, primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, NULL,
        policy ? TPM2_SE_POLICY : TPM2_SE_HMAC, &symmetric, TPM2_ALG_SHA256, session);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPMA_SESSION attributes = TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION;
    rc = Esys_TRSess_SetAttributes(tpm->esys, *session, attributes, 0xFF);
    if (rc != TSS2_RC_SUCCESS) {
        Esys_FlushContext(tpm->esys, *session);
        *session = ESYS_TR_NONE;
    }
    return rc;
}
