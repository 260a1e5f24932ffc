// Creating an object below the primary key, freeing what creations answer, and reading an object back.
#include "tpm_internal.h"

void clavis_tpm_creation_free(clavis_tpm_creation *creation) {
    Esys_Free(creation->public_area);
    Esys_Free(creation->data);
    Esys_Free(creation->hash);
    Esys_Free(creation->ticket);
}

TSS2_RC clavis_tpm_create_object(
    clavis_tpm *tpm, uint32_t primary, const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *template,
    uint8_t *public_area, size_t *public_length, uint8_t *private_area, size_t *private_length) {
    ESYS_TR session = ESYS_TR_NONE;
    TSS2_RC rc = clavis_tpm_start_session(tpm, primary, 0, &session);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION no_pcrs = {0};
    TPM2B_PRIVATE *created_private = NULL;
    clavis_tpm_creation creation = {0};
    rc = Esys_Create(
        tpm->esys, primary, session, ESYS_TR_NONE, ESYS_TR_NONE, sensitive, template, &outside, &no_pcrs,
        &created_private, &creation.public_area, &creation.data, &creation.hash, &creation.ticket);
    Esys_FlushContext(tpm->esys, session);
    size_t offset = 0;
    if (rc == TSS2_RC_SUCCESS) {
        rc = Tss2_MU_TPM2B_PUBLIC_Marshal(creation.public_area, public_area, CLAVIS_TPM_BLOB_CAPACITY, &offset);
        *public_length = offset;
    }
    offset = 0;
    if (rc == TSS2_RC_SUCCESS) {
        rc = Tss2_MU_TPM2B_PRIVATE_Marshal(created_private, private_area, CLAVIS_TPM_BLOB_CAPACITY, &offset);
        *private_length = offset;
    }
    Esys_Free(created_private);
    clavis_tpm_creation_free(&creation);
    return rc;
}

TSS2_RC clavis_tpm_read_areas(
    const uint8_t *public_area, size_t public_length, const uint8_t *private_area, size_t private_length,
    TPM2B_PUBLIC *object_public, TPM2B_PRIVATE *object_private) {
    if (clavis_tss() == NULL) return CLAVIS_TSS_MISSING;
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(public_area, public_length, &offset, object_public);
    if (rc == TSS2_RC_SUCCESS && offset != public_length) rc = TSS2_MU_RC_BAD_SIZE;
    if (rc != TSS2_RC_SUCCESS || object_private == NULL) return rc;
    offset = 0;
    rc = Tss2_MU_TPM2B_PRIVATE_Unmarshal(private_area, private_length, &offset, object_private);
    if (rc == TSS2_RC_SUCCESS && offset != private_length) rc = TSS2_MU_RC_BAD_SIZE;
    return rc;
}
