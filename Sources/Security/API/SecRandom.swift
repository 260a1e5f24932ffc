import ClavisCrypto

/// A random-number generator (Apple's `SecRandomRef`); the only one is the default, `kSecRandomDefault`.
public final class SecRandom: Sendable {
    private init() {}
}

/// The default random-number generator: a cryptographically secure one (OpenSSL's CSPRNG).
public let kSecRandomDefault: SecRandom? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes.
///
/// Returns `errSecSuccess`, or `errSecParam` for a negative count; `errSecInternalComponent` if the generator
/// fails, in which case the buffer must not be used.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    let buffer = UnsafeMutableRawBufferPointer(start: bytes, count: count)
    return SecureRandom.fill(buffer) ? errSecSuccess : errSecInternalComponent
}
