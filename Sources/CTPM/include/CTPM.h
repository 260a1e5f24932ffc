#ifndef CLAVIS_TPM_H
#define CLAVIS_TPM_H

// TPM 2.0 access for Clavis through tpm2-tss's ESAPI: a connection made from a TCTI string, the storage primary
// key, sealing and unsealing a short secret (optionally under a PCR policy), and PCR extension. Plain C types only
// (a TPM response code is a uint32_t, 0 for success), so that Swift never sees a tpm2-tss structure.

#include <stddef.h>
#include <stdint.h>

/// An open connection to a TPM: the TCTI and the ESAPI context, owned together.
typedef struct clavis_tpm clavis_tpm;

/// The most bytes a marshalled public or private area takes (TPM2B_PUBLIC, TPM2B_PRIVATE).
#define CLAVIS_TPM_BLOB_CAPACITY 1024

/// The most bytes a sealed secret may hold (TPM2B_SENSITIVE_DATA holds 128; Clavis seals 32).
#define CLAVIS_TPM_SECRET_CAPACITY 128

/// Connects to the TPM that `tcti` names (tpm2-tss syntax; NULL for the loader's default) and starts ESAPI.
/// Returns 0 and the connection in `out`, or a TPM or TSS response code.
uint32_t clavis_tpm_connect(const char *tcti, clavis_tpm **out);

/// Closes a connection from `clavis_tpm_connect` (flushing nothing: the caller flushes its own objects first).
void clavis_tpm_close(clavis_tpm *tpm);

/// The text tpm2-tss gives for a response code (a static string).
const char *clavis_tpm_error_text(uint32_t code);

/// The response code with its layer (the high byte) cleared and its format-one parameter, handle or session
/// number removed, so that callers can compare it with the TPM2_RC_* values they name.
uint32_t clavis_tpm_base_code(uint32_t code);

/// Creates the storage primary key under the owner hierarchy from Clavis's fixed template (ECC P-256, AES-128-CFB,
/// restricted decryption): the same owner seed always gives the same key, so it is made again on every connection
/// and never persisted. Returns 0 and the key's ESAPI handle in `primary`, or a response code.
uint32_t clavis_tpm_create_primary(clavis_tpm *tpm, uint32_t *primary);

/// Flushes a transient object or session from the TPM (best effort).
void clavis_tpm_flush(clavis_tpm *tpm, uint32_t handle);

/// Starts a session salted by `primary` that encrypts the first parameter of commands and responses (AES-128-CFB),
/// so that a secret never crosses the bus in clear. `policy` makes it a policy session, else an HMAC session.
/// Returns 0 and the session in `session`, or a response code.
uint32_t clavis_tpm_start_session(clavis_tpm *tpm, uint32_t primary, int policy, uint32_t *session);

/// Seals `length` bytes of `secret` (at most CLAVIS_TPM_SECRET_CAPACITY) as a data object below `primary`, tied to
/// this TPM (fixedTPM, fixedParent). With a non-zero `pcr_mask` (bit n for SHA-256 PCR n, 0 to 23) only a policy
/// session satisfied by the PCRs' values at this moment may unseal it; with 0, an empty authorization. Writes the
/// marshalled public and private areas (each buffer CLAVIS_TPM_BLOB_CAPACITY bytes) and their lengths.
uint32_t clavis_tpm_seal(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *secret, size_t length, uint32_t pcr_mask, uint8_t *public_area,
    size_t *public_length, uint8_t *private_area, size_t *private_length);

/// Loads a sealed object (its marshalled public and private areas) below `primary` and unseals it, through a PCR
/// policy over `pcr_mask` when it is not 0. Writes the secret to `secret` (CLAVIS_TPM_SECRET_CAPACITY bytes) and its
/// length, or returns a response code and, in `stage`, the step that failed (CLAVIS_TPM_STAGE_*): reading the
/// areas (malformed), loading them (another TPM, or another owner seed, sealed them), the policy or the unseal (the
/// PCRs changed).
uint32_t clavis_tpm_unseal(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, uint32_t pcr_mask, uint8_t *secret, size_t *length, int *stage);

/// The steps of `clavis_tpm_unseal`.
enum {
    CLAVIS_TPM_STAGE_READ = 1,
    CLAVIS_TPM_STAGE_LOAD = 2,
    CLAVIS_TPM_STAGE_POLICY = 3,
    CLAVIS_TPM_STAGE_UNSEAL = 4,
};

/// Extends SHA-256 PCR `index` (0 to 23) with the 32-byte `digest`, with the platform's empty authorization.
uint32_t clavis_tpm_extend_pcr(clavis_tpm *tpm, uint32_t index, const uint8_t *digest);

/// Creates a P-256 key inside the TPM below `primary` (fixedTPM, fixedParent, sensitiveDataOrigin: the private
/// scalar is generated there and leaves it only encrypted under the primary), usable for ECDSA and ECDH. Writes its
/// marshalled public and private areas (CLAVIS_TPM_BLOB_CAPACITY bytes each) and their lengths.
uint32_t clavis_tpm_create_p256_key(
    clavis_tpm *tpm, uint32_t primary, uint8_t *public_area, size_t *public_length, uint8_t *private_area,
    size_t *private_length);

/// The public point of a marshalled P-256 key's public area as `04 || X || Y` (65 bytes); no TPM is needed.
uint32_t clavis_tpm_p256_public_point(const uint8_t *public_area, size_t public_length, uint8_t *point);

/// Loads a P-256 key (its marshalled areas) below `primary` and signs the 32-byte SHA-256 `digest` with ECDSA in
/// the TPM. Writes `r || s` (64 bytes, each left-padded to 32).
uint32_t clavis_tpm_p256_sign(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, const uint8_t *digest, uint8_t *signature);

/// Loads a P-256 key below `primary` and multiplies the peer's point (`04 || X || Y`, 65 bytes) by its private
/// scalar in the TPM (TPM2_ECDH_ZGen); writes the shared X coordinate (32 bytes), returned through an encrypted
/// session.
uint32_t clavis_tpm_p256_agree(
    clavis_tpm *tpm, uint32_t primary, const uint8_t *public_area, size_t public_length, const uint8_t *private_area,
    size_t private_length, const uint8_t *peer_point, uint8_t *shared);

/// Defines a monotonic counter at NV index `index` (in the owner's range 0x01800000 to 0x01BFFFFF; empty
/// authorization, no dictionary-attack protection) and increments it once, as a counter must be before it is read.
/// Returns TPM_RC_NV_DEFINED when the index is taken.
uint32_t clavis_tpm_counter_define(clavis_tpm *tpm, uint32_t index);

/// Reads the counter at NV index `index`.
uint32_t clavis_tpm_counter_read(clavis_tpm *tpm, uint32_t index, uint64_t *value);

/// Increments the counter at NV index `index` by one.
uint32_t clavis_tpm_counter_increment(clavis_tpm *tpm, uint32_t index);

/// A response code of Clavis's own (TSS layer 12, unused by tpm2-tss) for arguments out of range.
#define CLAVIS_TPM_RC_BAD_ARGUMENT 0x000C0001u

#endif
