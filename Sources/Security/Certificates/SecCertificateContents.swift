import ClavisCore
import ClavisCrypto

/// Returns the serial number's bytes as the certificate encodes them (big-endian two's complement, with the
/// leading zero byte a positive number may need); nil with an `errSecParam` error when there are none.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopySerialNumberData(
    _ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    let serial = certificate.certificate.serialNumber
    guard !serial.isEmpty else {
        reportKeyError(error, .param, "the certificate has no readable serial number")
        return nil
    }
    return Data(serial) as NSData
}

/// Returns the certificate's public key as a `SecKey` when it is EC on P-256, P-384 or P-521, or RSA; nil for
/// any other key.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    guard let key = try? certificate.certificate.publicKey() else { return nil }
    return SecKey(key: key, attributes: [:])
}
