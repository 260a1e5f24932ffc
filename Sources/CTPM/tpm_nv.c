// Monotonic counters in the TPM's NV memory: defining one, reading it, incrementing it.
#include "tpm_internal.h"

/// The ESAPI handle of the NV index `index`.
static TSS2_RC nv_handle(clavis_tpm *tpm, uint32_t index, ESYS_TR *handle) {
    return Esys_TR_FromTPMPublic(tpm->esys, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, handle);
}

uint32_t clavis_tpm_counter_define(clavis_tpm *tpm, uint32_t index) {
    if (index < 0x01800000u || index > 0x01BFFFFFu) return CLAVIS_TPM_RC_BAD_ARGUMENT;
    TPM2B_AUTH empty = {0};
    TPM2B_NV_PUBLIC definition = {
        .nvPublic = {
            .nvIndex = index,
            .nameAlg = TPM2_ALG_SHA256,
            .attributes = (TPM2_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT) | TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE |
                TPMA_NV_NO_DA,
            .dataSize = 8,
        },
    };
    ESYS_TR counter = ESYS_TR_NONE;
    TSS2_RC rc = Esys_NV_DefineSpace(
        tpm->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &empty, &definition, &counter);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = Esys_NV_Increment(tpm->esys, counter, counter, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE);
    Esys_TR_Close(tpm->esys, &counter);
    return rc;
}

uint32_t clavis_tpm_counter_read(clavis_tpm *tpm, uint32_t index, uint64_t *value) {
    ESYS_TR counter = ESYS_TR_NONE;
    TSS2_RC rc = nv_handle(tpm, index, &counter);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_MAX_NV_BUFFER *data = NULL;
    rc = Esys_NV_Read(tpm->esys, counter, counter, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, 8, 0, &data);
    if (rc == TSS2_RC_SUCCESS) {
        if (data->size != 8) {
            rc = CLAVIS_TPM_RC_BAD_ARGUMENT;
        } else {
            *value = 0;
            for (int byte = 0; byte < 8; byte++) *value = *value << 8 | data->buffer[byte];
        }
    }
    Esys_Free(data);
    Esys_TR_Close(tpm->esys, &counter);
    return rc;
}

uint32_t clavis_tpm_counter_increment(clavis_tpm *tpm, uint32_t index) {
    ESYS_TR counter = ESYS_TR_NONE;
    TSS2_RC rc = nv_handle(tpm, index, &counter);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = Esys_NV_Increment(tpm->esys, counter, counter, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE);
    Esys_TR_Close(tpm->esys, &counter);
    return rc;
}
