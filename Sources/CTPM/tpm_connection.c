// Opening and closing a TPM connection, and the text of a response code.
#include "tpm_internal.h"
#include <stdlib.h>

uint32_t clavis_tpm_connect(const char *tcti, clavis_tpm **out) {
    *out = NULL;
    if (clavis_tss() == NULL) return CLAVIS_TSS_MISSING;
    clavis_tpm *tpm = calloc(1, sizeof *tpm);
    if (tpm == NULL) return TSS2_ESYS_RC_MEMORY;
    TSS2_RC rc = Tss2_TctiLdr_Initialize(tcti, &tpm->tcti);
    if (rc != TSS2_RC_SUCCESS) {
        free(tpm);
        return rc;
    }
    rc = Esys_Initialize(&tpm->esys, tpm->tcti, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        Tss2_TctiLdr_Finalize(&tpm->tcti);
        free(tpm);
        return rc;
    }
    *out = tpm;
    return TSS2_RC_SUCCESS;
}

void clavis_tpm_close(clavis_tpm *tpm) {
    if (tpm == NULL) return;
    Esys_Finalize(&tpm->esys);
    Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
}

const char *clavis_tpm_error_text(uint32_t code) {
    if (clavis_tss() == NULL) return "tpm2-tss is not installed (libtss2-esys, libtss2-tctildr, libtss2-mu, libtss2-rc)";
    return Tss2_RC_Decode(code);
}

uint32_t clavis_tpm_base_code(uint32_t code) {
    uint32_t base = code & 0xFFFFu;
    // Format one (bit 7): the error number is the low six bits plus the format bit; the rest names a parameter,
    // handle or session.
    if (base & TPM2_RC_FMT1) return base & (TPM2_RC_FMT1 | 0x3Fu);
    return base;
}
