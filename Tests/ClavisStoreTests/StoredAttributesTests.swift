import ClavisCore
import FoundationEssentials
import Testing

@testable import ClavisStore

@Suite struct StoredAttributesTests {
    let attributes: [AttributeKey: AttributeValue] = [
        .account: .string("alice"), .service: .string("ünïcode ✓"), .generic: .data(Data([0, 1, 2, 255])),
        .port: .number(443), .type: .number(-1), .creator: .number(Int64.min), .scriptCode: .number(Int64.max),
        .synchronizable: .bool(true), .isInvisible: .bool(false),
        .creationDate: .date(Date(timeIntervalSinceReferenceDate: 123_456.789)),
        AttributeKey(rawValue: "zzzz-not-apple"): .string(String(repeating: "x", count: 300)),
        .label: .data(Data("bytes, not a string".utf8)),
    ]

    @Test func everyKindOfValueRoundTripsKeepingItsType() throws {
        #expect(try StoredAttributes.decode(StoredAttributes.encode(attributes)) == attributes)
        #expect(try StoredAttributes.decode(StoredAttributes.encode([:])) == [:])
    }

    @Test func theFormerEncodingStillDecodes() throws {
        #expect(try StoredAttributes.decode(AttributeCodec.encode(attributes)) == attributes)
    }

    @Test func isSmallerThanTheTransportEncoding() {
        let item: [AttributeKey: AttributeValue] = [
            .account: .string("acct-12345"), .service: .string("bench.service"), .label: .string("bench item"),
            .accessGroup: .string("clavis"), .synchronizable: .bool(false), .accessible: .string("ak"),
            .creationDate: .date(Date()), .modificationDate: .date(Date()),
        ]
        #expect(StoredAttributes.encode(item).count + 40 < AttributeCodec.encode(item).count)
    }

    @Test func everyTruncationOrBadByteIsAnErrorNotATrap() {
        let encoded = StoredAttributes.encode(attributes)
        for length in 1..<encoded.count {
            _ = try? StoredAttributes.decode(Array(encoded.prefix(length)))
        }
        #expect(throws: KeychainError.self) { try StoredAttributes.decode([2, 200, 1, 0]) }
        #expect(throws: KeychainError.self) { try StoredAttributes.decode([2, 1, 9]) }
        #expect(throws: KeychainError.self) {
            try StoredAttributes.decode([2, 1, 1] + Array(repeating: 0xFF, count: 11))
        }
        #expect(throws: KeychainError.self) { try StoredAttributes.decode([7]) }
    }
}
