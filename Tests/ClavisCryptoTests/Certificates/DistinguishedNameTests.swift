import ClavisCrypto
import Testing

/// Apple's name normalization on hand-built DER: what changes, what stays, and what has no normal form.
@Suite struct DistinguishedNameTests {
    /// DER of `tag` with a definite length and `content`.
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        switch content.count {
        case ..<0x80: length = [UInt8(content.count)]
        case ..<0x100: length = [0x81, UInt8(content.count)]
        default: length = [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xff)]
        }
        return [tag] + length + content
    }

    /// A Name of one RDN per attribute: (OID content, value tag, value text).
    static func name(_ attributes: [([UInt8], UInt8, String)]) -> [UInt8] {
        element(
            0x30,
            attributes.flatMap { oid, tag, text in
                element(0x31, element(0x30, element(0x06, oid) + element(tag, Array(text.utf8))))
            })
    }

    static let commonName: [UInt8] = [0x55, 0x04, 0x03]
    static let organization: [UInt8] = [0x55, 0x04, 0x0a]

    @Test func printableStringIsUpperCasedWithBlanksFolded() {
        let given = Self.name([(Self.organization, 0x13, " \tclavis  \t tests "), (Self.commonName, 0x13, "a-b")])
        let expected = Self.name([(Self.organization, 0x13, "CLAVIS TESTS"), (Self.commonName, 0x13, "A-B")])
        #expect(DistinguishedName.normalizedSequence(given) == expected)
        #expect(DistinguishedName.normalizedSequence(expected) == expected)
    }

    @Test func otherStringTypesAreLeftAsEncoded() {
        for tag: UInt8 in [0x0c, 0x14, 0x16, 0x1e] {
            let given = Self.name([(Self.commonName, tag, "  Mixed  case ")])
            #expect(DistinguishedName.normalizedSequence(given) == given)
        }
    }

    @Test func lengthsShrinkingBelowTheLongFormAreEncodedAnew() {
        // 200 bytes of value (two-byte lengths all the way up) fold to 99, so every length changes form.
        let long = String(repeating: "a   ", count: 50)
        let given = Self.name([(Self.commonName, 0x13, long)])
        #expect(given[1] == 0x81)
        let expected = Self.name([(Self.commonName, 0x13, String(repeating: "A ", count: 49) + "A")])
        let normalized = DistinguishedName.normalizedSequence(given)
        #expect(normalized == expected)
        #expect(normalized?[1] == 0x6e)
    }

    @Test func emptyNameIsAnEmptySequence() {
        #expect(DistinguishedName.normalizedSequence([0x30, 0x00]) == [0x30, 0x00])
    }

    @Test(arguments: [
        [UInt8](),
        [0x31, 0x00],  // not a SEQUENCE
        [0x30, 0x02, 0x31, 0x00],  // an empty RDN
        [0x30, 0x02, 0x30, 0x00],  // an RDN that is not a SET
        [0x30, 0x04, 0x31, 0x02, 0x04, 0x00],  // an attribute that is not a SEQUENCE
        [0x30, 0x06, 0x31, 0x04, 0x30, 0x02, 0x06, 0x00],  // an empty OID and no value
        [0x30, 0x05, 0x31, 0x03, 0x30, 0x01],  // a length past the end
        [0x30, 0x80, 0x00, 0x00],  // BER's indefinite length
        [0x30, 0x00, 0x00],  // a byte after the Name
    ])
    func malformedNamesHaveNoNormalForm(name: [UInt8]) {
        #expect(DistinguishedName.normalizedSequence(name) == nil)
    }

    @Test func attributeWithTwoValuesHasNoNormalForm() {
        let attribute = Self.element(0x06, Self.commonName) + Self.element(0x13, [0x41]) + Self.element(0x13, [0x42])
        let given = Self.element(0x30, Self.element(0x31, Self.element(0x30, attribute)))
        #expect(DistinguishedName.normalizedSequence(given) == nil)
    }
}
