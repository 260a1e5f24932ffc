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
        .modificationDate: .date(Date(timeIntervalSinceReferenceDate: 654_321.5)),
        AttributeKey(rawValue: "zzzz-not-apple"): .string(String(repeating: "x", count: 300)),
        .label: .data(Data("bytes, not a string".utf8)), .accessible: .string("ak"),
    ]
    let row = StoredAttributes.RowColumns(protection: ProtectionClass(rawValue: "ak")!, isSynchronizable: true)

    @Test func everyKindOfValueRoundTripsKeepingItsType() throws {
        #expect(try StoredAttributes.decode(StoredAttributes.encode(attributes, row: row), row: row) == attributes)
        // A box says nothing of what the row says.
        #expect(
            try StoredAttributes.decode(StoredAttributes.encode([:], row: row), row: row)
                == [.accessible: .string("ak"), .synchronizable: .bool(true)])
    }

    /// `pdmn` and `sync` as the row's columns say, and `mdat` equal to `cdat`, take no byte; any other value is
    /// written (an update that changes `mdat` stores it) and read back as it was.
    @Test func whatTheRowSaysAndAnUnmodifiedItemsDateAreLeftOutAndRestored() throws {
        let created = AttributeValue.date(Date(timeIntervalSinceReferenceDate: 786_000_000.25))
        let item: [AttributeKey: AttributeValue] = [
            .account: .string("alice"), .accessible: .string("ak"), .synchronizable: .bool(true),
            .creationDate: created, .modificationDate: created,
        ]
        let bare = StoredAttributes.encode([.account: .string("alice"), .creationDate: created], row: row)
        #expect(StoredAttributes.encode(item, row: row) == bare)
        #expect(try StoredAttributes.decode(bare, row: row) == item)
        var modified = item
        modified[.modificationDate] = .date(Date(timeIntervalSinceReferenceDate: 786_000_060.5))
        let encoded = StoredAttributes.encode(modified, row: row)
        #expect(encoded.count == bare.count + 10)
        #expect(try StoredAttributes.decode(encoded, row: row) == modified)
        // A value other than the row's is written: read against another row, it stays as it was.
        let otherRow = StoredAttributes.RowColumns(
            protection: ProtectionClass(rawValue: "ck")!, isSynchronizable: false)
        let elsewhere = StoredAttributes.encode(item, row: otherRow)
        #expect(elsewhere.count == bare.count + 5 + 3)
        #expect(try StoredAttributes.decode(elsewhere, row: otherRow) == item)
    }

    @Test func theFormerEncodingsStillDecodeWithoutTheRowsColumns() throws {
        #expect(try StoredAttributes.decode(AttributeCodec.encode(attributes), row: row) == attributes)
        // Version 2 wrote every attribute: nothing is restored from the row.
        #expect(
            try StoredAttributes.decode([2, 1, 1, 5] + Array("alice".utf8), row: row) == [.account: .string("alice")])
    }

    @Test func isSmallerThanTheTransportEncoding() {
        let item: [AttributeKey: AttributeValue] = [
            .account: .string("acct-12345"), .service: .string("bench.service"), .label: .string("bench item"),
            .accessGroup: .string("clavis"), .synchronizable: .bool(false), .accessible: .string("ak"),
            .creationDate: .date(Date()), .modificationDate: .date(Date()),
        ]
        #expect(StoredAttributes.encode(item, row: row).count + 40 < AttributeCodec.encode(item).count)
    }

    @Test func everyTruncationOrBadByteIsAnErrorNotATrap() {
        let encoded = StoredAttributes.encode(attributes, row: row)
        for length in 1..<encoded.count {
            _ = try? StoredAttributes.decode(Array(encoded.prefix(length)), row: row)
        }
        for version in [2, 3] as [UInt8] {
            #expect(throws: KeychainError.self) { try StoredAttributes.decode([version, 200, 1, 0], row: row) }
            #expect(throws: KeychainError.self) { try StoredAttributes.decode([version, 1, 9], row: row) }
            #expect(throws: KeychainError.self) {
                try StoredAttributes.decode([version, 1, 1] + Array(repeating: 0xFF, count: 11), row: row)
            }
        }
        #expect(throws: KeychainError.self) { try StoredAttributes.decode([7], row: row) }
    }
}
