// The storage primary key: made again from a fixed template under the owner hierarchy whenever it is needed.
#include "tpm_internal.h"

uint32_t clavis_tpm_create_primary(clavis_tpm *tpm, uint32_t *primary) {
    // The TCG's ECC P-256 storage key template (as tpm2-tools' "ecc" primary): a deterministic function of the
    // owner seed, so nothing needs to be stored or persisted in the TPM.
    TPMT_SYM_DEF_OBJECT aes = {.algorithm = TPM2_ALG_AES, .keyBits.aes = 128, .mode.aes = TPM2_ALG_CFB};
    TPM2B_PUBLIC template = clavis_tpm_p256_template(TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT, aes);
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION creation = {0};
    clavis_tpm_creation created = {0};
    TSS2_RC rc = Esys_CreatePrimary(
        tpm->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template, &outside,
        &creation, primary, &created.public_area, &created.data, &created.hash, &created.ticket);
    clavis_tpm_creation_free(&created);
    return rc;
}

void clavis_tpm_flush(clavis_tpm *tpm, uint32_t handle) {
    if (handle != ESYS_TR_NONE) Esys_FlushContext(tpm->esys, handle);
}
