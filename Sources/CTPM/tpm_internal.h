#ifndef CLAVIS_TPM_INTERNAL_H
#define CLAVIS_TPM_INTERNAL_H

// What CTPM's files share and Swift never sees: the connection's layout and the PCR selection built from a mask.

#include "CTPM.h"
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

// tpm2-tss is loaded on first use (dlopen), not linked: a program that never meets a TPM (every `clavis` command on a
// keychain bound to a file) loads none of its five libraries. Every tpm2-tss function CTPM calls is listed here; the
// calls below go through the table, unchanged in the code that makes them.
#define CLAVIS_TSS_FUNCTIONS(X)                                                                                   \
    X(Esys_Initialize) X(Esys_Finalize) X(Esys_Free) X(Esys_FlushContext) X(Esys_TR_Close) X(Esys_TR_FromTPMPublic) \
    X(Esys_StartAuthSession) X(Esys_TRSess_SetAttributes) X(Esys_PolicyPCR) X(Esys_PolicyGetDigest)                  \
    X(Esys_CreatePrimary) X(Esys_Create) X(Esys_Load) X(Esys_Unseal) X(Esys_Sign) X(Esys_ECDH_ZGen)                 \
    X(Esys_PCR_Extend) X(Esys_NV_DefineSpace) X(Esys_NV_Read) X(Esys_NV_Increment) X(Tss2_TctiLdr_Initialize)       \
    X(Tss2_TctiLdr_Finalize) X(Tss2_RC_Decode) X(Tss2_MU_TPM2B_PUBLIC_Marshal) X(Tss2_MU_TPM2B_PUBLIC_Unmarshal)     \
    X(Tss2_MU_TPM2B_PRIVATE_Marshal) X(Tss2_MU_TPM2B_PRIVATE_Unmarshal)

/// The tpm2-tss functions, found in its libraries.
typedef struct {
#define CLAVIS_TSS_FIELD(name) __typeof__(&name) name;
    CLAVIS_TSS_FUNCTIONS(CLAVIS_TSS_FIELD)
#undef CLAVIS_TSS_FIELD
} clavis_tss_api;

/// tpm2-tss's functions, loaded once; NULL when its libraries are not installed (Debian: libtss2-esys-3.0.2-0,
/// libtss2-tctildr0, libtss2-mu0, libtss2-rc0).
const clavis_tss_api *clavis_tss(void);

/// What a call answers when tpm2-tss is not installed: the TCTI layer's "not implemented".
#define CLAVIS_TSS_MISSING (TSS2_TCTI_RC_LAYER | TSS2_BASE_RC_NOT_IMPLEMENTED)

#ifndef CLAVIS_TSS_LIBRARY
#define CLAVIS_TSS_CALL(name) (clavis_tss()->name)
#define Esys_Initialize CLAVIS_TSS_CALL(Esys_Initialize)
#define Esys_Finalize CLAVIS_TSS_CALL(Esys_Finalize)
#define Esys_Free CLAVIS_TSS_CALL(Esys_Free)
#define Esys_FlushContext CLAVIS_TSS_CALL(Esys_FlushContext)
#define Esys_TR_Close CLAVIS_TSS_CALL(Esys_TR_Close)
#define Esys_TR_FromTPMPublic CLAVIS_TSS_CALL(Esys_TR_FromTPMPublic)
#define Esys_StartAuthSession CLAVIS_TSS_CALL(Esys_StartAuthSession)
#define Esys_TRSess_SetAttributes CLAVIS_TSS_CALL(Esys_TRSess_SetAttributes)
#define Esys_PolicyPCR CLAVIS_TSS_CALL(Esys_PolicyPCR)
#define Esys_PolicyGetDigest CLAVIS_TSS_CALL(Esys_PolicyGetDigest)
#define Esys_CreatePrimary CLAVIS_TSS_CALL(Esys_CreatePrimary)
#define Esys_Create CLAVIS_TSS_CALL(Esys_Create)
#define Esys_Load CLAVIS_TSS_CALL(Esys_Load)
#define Esys_Unseal CLAVIS_TSS_CALL(Esys_Unseal)
#define Esys_Sign CLAVIS_TSS_CALL(Esys_Sign)
#define Esys_ECDH_ZGen CLAVIS_TSS_CALL(Esys_ECDH_ZGen)
#define Esys_PCR_Extend CLAVIS_TSS_CALL(Esys_PCR_Extend)
#define Esys_NV_DefineSpace CLAVIS_TSS_CALL(Esys_NV_DefineSpace)
#define Esys_NV_Read CLAVIS_TSS_CALL(Esys_NV_Read)
#define Esys_NV_Increment CLAVIS_TSS_CALL(Esys_NV_Increment)
#define Tss2_TctiLdr_Initialize CLAVIS_TSS_CALL(Tss2_TctiLdr_Initialize)
#define Tss2_TctiLdr_Finalize CLAVIS_TSS_CALL(Tss2_TctiLdr_Finalize)
#define Tss2_RC_Decode CLAVIS_TSS_CALL(Tss2_RC_Decode)
#define Tss2_MU_TPM2B_PUBLIC_Marshal CLAVIS_TSS_CALL(Tss2_MU_TPM2B_PUBLIC_Marshal)
#define Tss2_MU_TPM2B_PUBLIC_Unmarshal CLAVIS_TSS_CALL(Tss2_MU_TPM2B_PUBLIC_Unmarshal)
#define Tss2_MU_TPM2B_PRIVATE_Marshal CLAVIS_TSS_CALL(Tss2_MU_TPM2B_PRIVATE_Marshal)
#define Tss2_MU_TPM2B_PRIVATE_Unmarshal CLAVIS_TSS_CALL(Tss2_MU_TPM2B_PRIVATE_Unmarshal)
#endif

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
