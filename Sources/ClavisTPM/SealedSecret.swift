public import ClavisCore

/// A short secret sealed by a TPM: the sealed object's public and private areas as the TPM marshals them (the private
/// area is encrypted under the TPM's storage primary key) and the PCRs its policy covers. Holds nothing in clear.
///
/// On disk: `CLAVTPM1`, the PCR mask (4 bytes, big-endian, bit n for SHA-256 PCR n), then the public and the private
/// area, each after its length (2 bytes, big-endian).
public struct SealedSecret: Sendable, Hashable {
    /// The file format's first bytes.
    static let magic = Array("CLAVTPM1".utf8)
    /// The most bytes an encoded sealed secret takes.
    public static let maximumEncodedCount = magic.count + 4 + 2 * (2 + 1024)

    /// The SHA-256 PCRs whose values at sealing time the TPM requires to unseal it; empty for none.
    public let pcrs: [Int]
    /// The sealed object's marshalled public area (TPM2B_PUBLIC).
    public let publicArea: [UInt8]
    /// The sealed object's marshalled private area (TPM2B_PRIVATE), encrypted by the TPM.
    public let privateArea: [UInt8]

    /// A sealed secret from its parts.
    public init(pcrs: [Int], publicArea: [UInt8], privateArea: [UInt8]) {
        self.pcrs = pcrs
        self.publicArea = publicArea
        self.privateArea = privateArea
    }

    /// The PCRs as the bit mask the TPM layer takes.
    var pcrMask: UInt32 { pcrs.reduce(0) { $0 | 1 << UInt32($1) } }

    /// The bytes stored on disk.
    public var encoded: [UInt8] {
        let mask = pcrMask
        var bytes = Self.magic + (0..<4).map { UInt8(truncatingIfNeeded: mask >> (24 - 8 * $0)) }
        for area in [publicArea, privateArea] {
            bytes += [UInt8(area.count >> 8), UInt8(truncatingIfNeeded: area.count)] + area
        }
        return bytes
    }

    /// Reads the bytes `encoded` wrote.
    ///
    /// - Throws: `invalidKeychain` for bytes that are not a sealed secret.
    public init(decoding bytes: [UInt8]) throws(KeychainError) {
        let malformed = KeychainError(.invalidKeychain, "not a TPM-sealed secret (unknown format or truncated)")
        guard bytes.count >= Self.magic.count + 4, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw malformed
        }
        var offset = Self.magic.count
        let mask = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        offset += 4
        var areas: [[UInt8]] = []
        for _ in 0..<2 {
            guard bytes.count >= offset + 2 else { throw malformed }
            let count = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard count > 0, bytes.count >= offset + count else { throw malformed }
            areas.append(Array(bytes[offset..<offset + count]))
            offset += count
        }
        guard offset == bytes.count, mask >> 24 == 0 else { throw malformed }
        pcrs = (0..<24).filter { mask & 1 << UInt32($0) != 0 }
        publicArea = areas[0]
        privateArea = areas[1]
    }
}
