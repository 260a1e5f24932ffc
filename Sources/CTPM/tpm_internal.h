#ifndef CLAVIS_TPM_INTERNAL_H
#define CLAVIS_TPM_INTERNAL_H

// What CTPM's files share and Swift never sees: the connection's layout and the PCR selection built from a mask.

#include "CTPM.h"
#include <tss2/tss2_esys.h>

struct clavis_tpm {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
};

/// The SHA-256 bank's PCRs set in `mask` (bit n for PCR n), as one TPML_PCR_SELECTION.
TPML_PCR_SELECTION clavis_tpm_pcr_selection(uint32_t mask);

/// True when `mask` names only PCRs 0 to 23.
int clavis_tpm_pcr_mask_is_valid(uint32_t mask);

#endif
