#ifndef CLAVIS_TPM_INTERNAL_H
#define CLAVIS_TPM_INTERNAL_H

// What CTPM's files share and Swift never sees: the connection's layout and the PCR selection built from a mask.

#include "CTPM.h"
#include <tss2/tss2_esys.h>

struct clavis_tpm {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
};

/// What TPM2_Create and TPM2_CreatePrimary answer beside the object itself; Clavis keeps none of it.
typedef struct {
    TPM2B_PUBLIC *public_area;
    TPM2B_CREATION_DATA *data;
    TPM2B_DIGEST *hash;
    TPMT_TK_CREATION *ticket;
} clavis_tpm_creation;

/// Frees what a creation answered.
void clavis_tpm_creation_free(clavis_tpm_creation *creation);

/// Creates an object from `template` and `sensitive` below `primary`, through a session that encrypts `sensitive`
/// on its way, and writes its marshalled public and private areas (CLAVIS_TPM_BLOB_CAPACITY bytes each).
TSS2_RC clavis_tpm_create_object(
    clavis_tpm *tpm, uint32_t primary, const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *template,
    uint8_t *public_area, size_t *public_length, uint8_t *private_area, size_t *private_length);

/// Reads marshalled public and private areas, refusing trailing bytes.
TSS2_RC clavis_tpm_read_areas(
    const uint8_t *public_area, size_t public_length, const uint8_t *private_area, size_t private_length,
    TPM2B_PUBLIC *object_public, TPM2B_PRIVATE *object_private);

/// The template of a P-256 key made in the TPM (sensitiveDataOrigin, fixedTPM, fixedParent, userWithAuth, noDA, no
/// fixed scheme) with the other `attributes` and the `symmetric` algorithm a storage key needs (TPM2_ALG_NULL else).
TPM2B_PUBLIC clavis_tpm_p256_template(TPMA_OBJECT attributes, TPMT_SYM_DEF_OBJECT symmetric);

/// The SHA-256 bank's PCRs set in `mask` (bit n for PCR n), as one TPML_PCR_SELECTION.
TPML_PCR_SELECTION clavis_tpm_pcr_selection(uint32_t mask);

/// True when `mask` names only PCRs 0 to 23.
int clavis_tpm_pcr_mask_is_valid(uint32_t mask);

#endif
