import ClavisCore
import Testing

/// Attribute keys compare, hash and order by a packed code where they can: exactly as their codes do as strings.
@Suite struct AttributeKeyTests {
    /// Codes of every shape: packed (one to eight ASCII bytes) and not (longer, non-ASCII, holding a zero byte).
    private let codes = [
        "acct", "svce", "a", "ab", "abc", "type", "typ", "types", "abcdefgh", "abcdefghi", "clavis.tokenHolder",
        "clavis.tokenHolde", "é", "e\u{301}", "acct\u{0}", "", "zzzz", "ZZZZ", "~", "a b",
    ]

    @Test func onlyShortASCIIWithoutZeroBytesIsPacked() {
        #expect(PackedName("acct") != nil)
        #expect(PackedName("abcdefgh") != nil)
        #expect(PackedName("") == nil)
        #expect(PackedName("abcdefghi") == nil)
        #expect(PackedName("é") == nil)
        #expect(PackedName("acct\u{0}") == nil)
        // Zero-padding cannot make two names one.
        #expect(PackedName("a") != PackedName("ab"))
    }

    @Test func packedNamesOrderAsTheirStrings() {
        let packable = codes.filter { PackedName($0) != nil }
        for left in packable {
            for right in packable {
                #expect((PackedName(left)! < PackedName(right)!) == (left < right), "\(left) < \(right)")
            }
        }
    }

    @Test func aPrefixIsTheFirstEightBytes() {
        #expect(PackedName(prefixOf: "u_AuthUI") == PackedName(prefixOf: "u_AuthUIx"))
        #expect(PackedName(prefixOf: "u_AuthUI") != PackedName(prefixOf: "u_AuthCtx"))
        #expect(PackedName(prefixOf: "acct") == PackedName("acct"))
        #expect(PackedName(prefixOf: "") == PackedName(prefixOf: ""))
    }

    @Test func keysCompareAndOrderAsTheirCodes() {
        for left in codes {
            for right in codes {
                let (leftKey, rightKey) = (AttributeKey(rawValue: left), AttributeKey(rawValue: right))
                #expect((leftKey == rightKey) == (left == right), "\(left) == \(right)")
                #expect((leftKey < rightKey) == (left < right), "\(left) < \(right)")
                if leftKey == rightKey { #expect(leftKey.hashValue == rightKey.hashValue) }
            }
        }
    }

    @Test func aPackedCodeAndAnUnpackedOneEqualAsStringsAreTwoKeysInOneOrder() {
        // "K" and the Kelvin sign are one String; as keys, the packed one is a key of its own and comes first.
        let (packed, unpacked) = (AttributeKey(rawValue: "K"), AttributeKey(rawValue: "\u{212A}"))
        #expect("K" == "\u{212A}")
        #expect(packed != unpacked)
        #expect(packed < unpacked)
        #expect(!(unpacked < packed))
        #expect(Set([packed, unpacked]).count == 2)
    }

    @Test func aDictionaryFindsEveryKeyByAFreshCopy() {
        var values: [AttributeKey: Int] = [:]
        for (index, code) in codes.enumerated() { values[AttributeKey(rawValue: code)] = index }
        // "é" and its decomposed form are one code, as they are one String.
        #expect(values.count == Set(codes).count)
        for code in codes {
            #expect(values[AttributeKey(rawValue: String(code.unicodeScalars.map(Character.init)))] != nil, "\(code)")
        }
        #expect(values[AttributeKey(rawValue: "acc")] == nil)
        #expect(values[AttributeKey(rawValue: "clavis.tokenHolderX")] == nil)
    }
}
