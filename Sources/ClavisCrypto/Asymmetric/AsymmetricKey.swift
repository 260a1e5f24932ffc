internal import COpenSSL
import Synchronization

/// An EC or RSA key, public or private, held by OpenSSL; the one owner of its `EVP_PKEY`, freed (and, for a
/// private key, cleansed by OpenSSL) in `deinit`.
///
/// Immutable once made, and shared freely across threads: each operation borrows an `EVP_PKEY_CTX` of its own from
/// the idle ones (taken and given back under a `Mutex`, so one context has one user at a time) or makes one, and
/// OpenSSL allows one `EVP_PKEY` to be used by several threads at once in that way.
public final class AsymmetricKey: @unchecked Sendable {
    /// The algorithm and size of a key.
    public enum Kind: Sendable, Hashable {
        /// An elliptic-curve key on a NIST prime curve.
        case ellipticCurve(EllipticCurve)
        /// An RSA key with a modulus of this many bits.
        case rsa(bits: Int)
    }

    /// The RSA modulus sizes generation accepts, in bits (Apple's range).
    public static let rsaBitRange = 1024...4096

    /// The owned key; valid for the lifetime of this object.
    let pointer: OpaquePointer
    /// The algorithm and size.
    public let kind: Kind
    /// True when the private part is held.
    public let isPrivate: Bool
    /// Contexts made for this key and idle: making one costs about as much as a fifth of a P-256 signature, so an
    /// operation borrows one and gives it back.
    private let idleContexts = Mutex<[PublicKeyContext]>([])
    /// At most this many idle contexts are kept.
    private static let idleContextLimit = 4

    /// Takes ownership of `pointer`, a key OpenSSL made or parsed; frees it when it is not a supported key.
    init(taking pointer: OpaquePointer) throws(CryptoError) {
        let bits = Int(EVP_PKEY_get_bits(pointer))
        if clavis_pkey_is_rsa(pointer) == 1 {
            kind = .rsa(bits: bits)
        } else if let curve = EllipticCurve(rawValue: Int(clavis_pkey_nist_curve_bits(pointer))) {
            // Named by its group, not its size: a certificate may carry secp256k1 or brainpool keys of 256 bits.
            kind = .ellipticCurve(curve)
        } else {
            // Nothing owns the key yet (deinit does not run for an object whose initialiser threw).
            EVP_PKEY_free(pointer)
            throw .invalidInput("unsupported key of \(bits) bits")
        }
        self.pointer = pointer
        isPrivate = clavis_pkey_has_private(pointer) == 1
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// A new random private key on `curve`.
    public static func generate(curve: EllipticCurve) throws(CryptoError) -> AsymmetricKey {
        guard let pointer = clavis_ec_generate(curve.groupName) else {
            throw OpenSSLStatus.failure("EVP_PKEY_Q_keygen")
        }
        return try AsymmetricKey(taking: pointer)
    }

    /// A new random RSA private key of `bits` bits (within `rsaBitRange`, a multiple of 8), exponent 65537.
    public static func generateRSA(bits: Int) throws(CryptoError) -> AsymmetricKey {
        guard rsaBitRange.contains(bits), bits.isMultiple(of: 8) else {
            throw .invalidInput("RSA keys are \(rsaBitRange) bits in steps of 8, not \(bits)")
        }
        guard let pointer = clavis_rsa_generate(bits) else { throw OpenSSLStatus.failure("EVP_PKEY_Q_keygen") }
        return try AsymmetricKey(taking: pointer)
    }

    /// An idle context for this key, or a new one; hand it back with `returnContext` when the operation is over.
    func borrowContext() throws(CryptoError) -> PublicKeyContext {
        if let context = idleContexts.withLock({ $0.popLast() }) { return context }
        return try PublicKeyContext(self)
    }

    /// Keeps `context` for the next operation (its next `…_init` call resets it), unless enough are kept.
    func returnContext(_ context: PublicKeyContext) {
        idleContexts.withLock { idle in
            if idle.count < Self.idleContextLimit { idle.append(context) }
        }
    }

    /// The key's size in bits: the curve's or the modulus'.
    public var bitCount: Int {
        switch kind {
        case .ellipticCurve(let curve): curve.bitCount
        case .rsa(let bits): bits
        }
    }

    /// Apple's block size: an RSA modulus' length in bytes, or an EC coordinate's.
    public var blockByteCount: Int { (bitCount + 7) / 8 }

    /// The public half of this key (itself when it is public already).
    public func publicKey() throws(CryptoError) -> AsymmetricKey {
        guard isPrivate else { return self }
        guard let copy = clavis_pkey_public_copy(pointer) else { throw OpenSSLStatus.failure("d2i_PUBKEY") }
        return try AsymmetricKey(taking: copy)
    }
}

extension AsymmetricKey: CustomStringConvertible {
    /// The kind and class only, never key material.
    public var description: String { "AsymmetricKey(\(kind), \(isPrivate ? "private" : "public"))" }
}
