internal import CTPM
public import ClavisCore

/// A P-256 key that lives in a TPM: the object the TPM made (its public area, and its private area encrypted under
/// the TPM's storage primary key, in `SealedSecret`'s encoding without PCRs) and its public point. The private
/// scalar exists only inside that TPM; these bytes are useless anywhere else.
public struct TPMKey: Sendable, Hashable {
    /// The TPM's object: its marshalled public and private areas.
    public let object: SealedSecret
    /// The public key, `04 ‖ X ‖ Y` (65 bytes).
    public let publicKey: [UInt8]

    /// Reads a key from the bytes `wrapped` gave.
    ///
    /// - Throws: `invalidKeychain` for bytes that are not a TPM-held P-256 key.
    public init(wrapped bytes: [UInt8]) throws(KeychainError) {
        try self.init(object: SealedSecret(decoding: bytes))
    }

    /// A key from its TPM object, its public point read from the public area (no TPM is needed).
    init(object: SealedSecret) throws(KeychainError) {
        var point = [UInt8](repeating: 0, count: 65)
        let code = TPMResponseCode(
            rawValue: clavis_tpm_p256_public_point(object.publicArea, object.publicArea.count, &point))
        guard code == .success, object.pcrs.isEmpty else {
            throw KeychainError(.invalidKeychain, "not a TPM-held P-256 key (\(code))")
        }
        self.object = object
        publicKey = point
    }

    /// True when `bytes` begin as a wrapped TPM key does (a software key's X9.63 bytes begin with 04).
    public static func isWrapped(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: SealedSecret.magic)
    }

    /// The bytes to store: the TPM's object, which only that TPM can use.
    public var wrapped: [UInt8] { object.encoded }
}
