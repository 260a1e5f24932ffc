// Apple's normalized names (Security's SecCertificate.c, createNormalizedX501Name): a Name's RDNs and attributes
// are kept as they are, except PrintableString values, whose ASCII letters are upper-cased and whose runs of
// blanks (space, tab) become one space, with none at either end. The lengths around a changed value are encoded
// anew. Anything that is not SEQUENCE OF SET OF SEQUENCE { OID, value } has no normalized form.

/// The normalized form of an X.501 distinguished name, as Apple compares issuers and subjects.
public enum DistinguishedName {
    /// The normalized `SEQUENCE` for a Name's DER (the whole `SEQUENCE`), or nil when it is malformed.
    public static func normalizedSequence(_ name: [UInt8]) -> [UInt8]? {
        var reader = DERReader(name[...])
        guard let outer = reader.next(), outer.tag == 0x30, reader.isAtEnd else { return nil }
        var rdns = DERReader(outer.content)
        var content: [UInt8] = []
        while !rdns.isAtEnd {
            guard let rdn = rdns.next(), rdn.tag == 0x31, !rdn.content.isEmpty else { return nil }
            var attributes = DERReader(rdn.content)
            var set: [UInt8] = []
            while !attributes.isAtEnd {
                guard let attribute = attributes.next(), attribute.tag == 0x30,
                    let normalized = normalizedAttribute(attribute.content)
                else { return nil }
                set += DERReader.encode(tag: 0x30, normalized)
            }
            content += DERReader.encode(tag: 0x31, set)
        }
        return DERReader.encode(tag: 0x30, content)
    }

    /// An AttributeTypeAndValue's content with a PrintableString value normalized; nil unless it is an OID and
    /// one value.
    private static func normalizedAttribute(_ content: ArraySlice<UInt8>) -> [UInt8]? {
        var parts = DERReader(content)
        guard let type = parts.next(), type.tag == 0x06, !type.content.isEmpty, let value = parts.next(),
            parts.isAtEnd
        else { return nil }
        let normalizedValue = value.tag == 0x13 ? Array(normalizedPrintable(value.content)) : Array(value.content)
        return DERReader.encode(tag: 0x06, Array(type.content)) + DERReader.encode(tag: value.tag, normalizedValue)
    }

    /// Upper-cases ASCII letters and folds runs of spaces and tabs into one space, dropping those at either end.
    private static func normalizedPrintable(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        var pendingBlank = false
        for byte in text {
            if byte == 0x20 || byte == 0x09 {
                pendingBlank = !result.isEmpty
                continue
            }
            if pendingBlank { result.append(0x20) }
            pendingBlank = false
            result.append((0x61...0x7a).contains(byte) ? byte - 0x20 : byte)
        }
        return result
    }
}
