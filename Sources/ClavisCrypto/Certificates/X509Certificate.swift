internal import COpenSSL

/// One X.509 certificate parsed by OpenSSL from DER; the one owner of its `X509`, freed in `deinit`.
///
/// Immutable once made, and only read through OpenSSL's const accessors (which lock the lazily cached
/// extensions), so instances are shared between threads.
public final class X509Certificate: @unchecked Sendable {
    /// The owned certificate; valid for the lifetime of this object.
    let pointer: OpaquePointer
    /// The DER the certificate was read from.
    public let der: [UInt8]

    /// Reads one DER certificate; throws unless `der` is exactly one well-formed certificate, with no byte after.
    public init(der: [UInt8]) throws(CryptoError) {
        let parsed = try der.withBytes { base, count throws(CryptoError) -> OpaquePointer in
            guard let certificate = clavis_x509_from_der(base, count) else {
                throw OpenSSLStatus.cleared(.invalidInput("not one DER certificate"))
            }
            return certificate
        }
        pointer = parsed
        self.der = der
    }

    /// Takes ownership of a certificate OpenSSL handed out (a reference of its own), reading its DER back.
    init(taking pointer: OpaquePointer) throws(CryptoError) {
        let length = clavis_x509_to_der(pointer, nil)
        guard length > 0 else {
            X509_free(pointer)
            throw OpenSSLStatus.failure("i2d_X509")
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = try? der.withMutableBytes { base, _ throws(CryptoError) in clavis_x509_to_der(pointer, base) }
        guard written == length else {
            X509_free(pointer)
            throw OpenSSLStatus.failure("i2d_X509")
        }
        self.pointer = pointer
        self.der = der
    }

    deinit {
        X509_free(pointer)
    }

    /// The subject's DER (the whole Name `SEQUENCE`) as the certificate holds it.
    public var subjectName: [UInt8] { name(issuer: false) }

    /// The issuer's DER (the whole Name `SEQUENCE`) as the certificate holds it.
    public var issuerName: [UInt8] { name(issuer: true) }

    /// The values of the subject's common names (2.5.4.3) in order, in UTF-8.
    public var commonNames: [String] { subjectTexts(NID_commonName) }

    /// The values of the subject's organisation names (2.5.4.10) in order.
    public var organizationNames: [String] { subjectTexts(NID_organizationName) }

    /// The subject's organisational unit names (2.5.4.11) in order.
    public var organizationalUnitNames: [String] { subjectTexts(NID_organizationalUnitName) }

    /// The email addresses (rfc822Name) of the subject alternative names, in order.
    public var alternativeEmailAddresses: [String] { alternativeNames(GEN_EMAIL) }

    /// The DNS names of the subject alternative names, in order.
    public var dnsNames: [String] { alternativeNames(GEN_DNS) }

    /// The subject's emailAddress attributes (1.2.840.113549.1.9.1), in order.
    public var subjectEmailAddresses: [String] { subjectTexts(NID_pkcs9_emailAddress) }

    /// The serial number's INTEGER content bytes (two's complement, a leading zero kept as encoded).
    public var serialNumber: [UInt8] {
        let length = clavis_x509_serial_der(pointer, nil)
        guard length > 0 else { return [] }
        var encoded = [UInt8](repeating: 0, count: Int(length))
        let written = try? encoded.withMutableBytes { base, _ throws(CryptoError) in
            clavis_x509_serial_der(pointer, base)
        }
        guard written == length else { return [] }
        var reader = DERReader(encoded[...])
        return reader.next().map { Array($0.content) } ?? []
    }

    /// The start of the validity period, in seconds since 1970.
    public var notValidBefore: Int64? { validity(after: false) }

    /// The end of the validity period, in seconds since 1970.
    public var notValidAfter: Int64? { validity(after: true) }

    /// The subject key identifier extension's bytes, when present.
    public var subjectKeyIdentifier: [UInt8]? {
        let length = clavis_x509_subject_key_id(pointer, nil)
        guard length >= 0 else { return nil }
        var identifier = [UInt8](repeating: 0, count: Int(length))
        _ = try? identifier.withMutableBytes { base, _ throws(CryptoError) in
            clavis_x509_subject_key_id(pointer, base)
        }
        return identifier
    }

    /// The subject's public key; throws unless it is RSA or EC on P-256, P-384 or P-521.
    public func publicKey() throws(CryptoError) -> AsymmetricKey {
        guard let key = X509_get_pubkey(pointer) else {
            throw OpenSSLStatus.cleared(.invalidInput("the certificate's public key is not readable"))
        }
        let publicKey = try AsymmetricKey(taking: key)
        if case .rsa(let bits) = publicKey.kind, bits < 512 || bits > 16384 {
            throw .invalidInput("RSA key of \(bits) bits")
        }
        return publicKey
    }

    /// The subject (`issuer` false) or issuer Name's DER.
    private func name(issuer: Bool) -> [UInt8] {
        let length = clavis_x509_name_der(pointer, issuer ? 1 : 0, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = try? bytes.withMutableBytes { base, _ throws(CryptoError) in
            clavis_x509_name_der(pointer, issuer ? 1 : 0, base)
        }
        return written == length ? bytes : []
    }

    /// Every subject attribute `nid` in UTF-8, in order; values that do not convert are left out.
    private func subjectTexts(_ nid: Int32) -> [String] {
        (0..<clavis_x509_subject_count(pointer, nid)).compactMap { index in
            text { out, capacity in clavis_x509_subject_text(pointer, nid, index, out, capacity) }
        }
    }

    /// Every subject alternative name of `type` (IA5 text), in order.
    private func alternativeNames(_ type: Int32) -> [String] {
        var names: [String] = []
        var index: Int32 = 0
        // The list ends where OpenSSL has no more names of the type (at most 1,024 read: each read decodes the
        // extension again); a name that is not UTF-8 is passed over, not taken for the end.
        while index < 1024, clavis_x509_alt_name(pointer, type, index, nil, 0) >= 0 {
            let position = index
            if let name = text({ out, capacity in clavis_x509_alt_name(pointer, type, position, out, capacity) }) {
                names.append(name)
            }
            index += 1
        }
        return names
    }

    /// Calls `fill` once for the length (nil output) and once to fill a buffer; the UTF-8 text, or nil.
    private func text(_ fill: (UnsafeMutablePointer<UInt8>?, Int32) -> Int32) -> String? {
        let length = fill(nil, 0)
        guard length >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length) + 1)
        let written = bytes.withUnsafeMutableBufferPointer { fill($0.baseAddress, length) }
        guard written == length else { return nil }
        return String(validating: bytes[0..<Int(length)], as: UTF8.self)
    }

    /// notBefore (`after` false) or notAfter in seconds since 1970.
    private func validity(after: Bool) -> Int64? {
        var seconds: Int64 = 0
        return clavis_x509_validity(pointer, after ? 1 : 0, &seconds) == 1 ? seconds : nil
    }
}
