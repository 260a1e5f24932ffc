// PCR selections from a bit mask, and extending a PCR.
#include "tpm_internal.h"
#include <string.h>

TPML_PCR_SELECTION clavis_tpm_pcr_selection(uint32_t mask) {
    TPML_PCR_SELECTION selection = {.count = 1};
    selection.pcrSelections[0].hash = TPM2_ALG_SHA256;
    selection.pcrSelections[0].sizeofSelect = 3;
    for (unsigned index = 0; index < 24; index++) {
        if (mask & (1u << index)) selection.pcrSelections[0].pcrSelect[index / 8] |= (uint8_t)(1u << (index % 8));
    }
    return selection;
}

int clavis_tpm_pcr_mask_is_valid(uint32_t mask) {
    return (mask & 0xFF000000u) == 0;
}

uint32_t clavis_tpm_extend_pcr(clavis_tpm *tpm, uint32_t index, const uint8_t *digest) {
    if (index > 23) return CLAVIS_TPM_RC_BAD_ARGUMENT;
    TPML_DIGEST_VALUES digests = {.count = 1};
    digests.digests[0].hashAlg = TPM2_ALG_SHA256;
    memcpy(digests.digests[0].digest.sha256, digest, TPM2_SHA256_DIGEST_SIZE);
    return Esys_PCR_Extend(tpm->esys, ESYS_TR_PCR0 + index, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &digests);
}
