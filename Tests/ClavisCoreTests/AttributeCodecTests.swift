import ClavisCore
import Foundation
import Testing

/// The attribute encoding is the plaintext of every sealed item: its bytes must never change.
@Suite struct AttributeCodecTests {
    private let attributes: [AttributeKey: AttributeValue] = [
        .account: .string("é k"), .generic: .data(Data([0, 255, 3])), .port: .number(-443),
        .synchronizable: .bool(true), .creationDate: .date(Date(timeIntervalSinceReferenceDate: 123.456)),
    ]

    /// The bytes the first release wrote for these attributes.
    private let storedForm: [UInt8] = [
        0x01, 0x04, 0x61, 0x63, 0x63, 0x74, 0x01, 0x00, 0x00, 0x00, 0x04, 0xc3, 0xa9, 0x20, 0x6b, 0x04, 0x63, 0x64,
        0x61, 0x74, 0x05, 0x40, 0x5e, 0xdd, 0x2f, 0x1a, 0x9f, 0xbe, 0x77, 0x04, 0x67, 0x65, 0x6e, 0x61, 0x02, 0x00,
        0x00, 0x00, 0x03, 0x00, 0xff, 0x03, 0x04, 0x70, 0x6f, 0x72, 0x74, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0x45, 0x04, 0x73, 0x79, 0x6e, 0x63, 0x04, 0x01,
    ]

    @Test func encodingIsTheStoredFormByteForByte() {
        #expect(AttributeCodec.encode(attributes) == storedForm)
    }

    @Test func encodingIntoAWriterAfterItsLengthIsTheSameBytes() {
        var writer = ByteWriter()
        writer.byte(7)
        writer.lengthPrefixed { AttributeCodec.encode(attributes, to: &$0) }
        let length = UInt32(storedForm.count)
        let lengthBytes = (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) }
        #expect(writer.bytes == [7] + lengthBytes + storedForm)
        // Longer than the writer's first buffer: the length still lands in front once the bytes have moved.
        let large: [AttributeKey: AttributeValue] = [.generic: .data(Data(repeating: 5, count: 1000))]
        var grown = ByteWriter()
        grown.lengthPrefixed { AttributeCodec.encode(large, to: &$0) }
        let encoded = AttributeCodec.encode(large)
        let grownLength = UInt32(encoded.count)
        #expect(grown.bytes == (0..<4).map { UInt8(truncatingIfNeeded: grownLength >> (24 - 8 * $0)) } + encoded)
    }

    @Test func decodingGivesBackEveryValueWithItsType() throws {
        #expect(try AttributeCodec.decode(storedForm) == attributes)
    }

    @Test func truncatedOrUnknownInputIsADecodeError() {
        for cut in [0, 5, 12, storedForm.count - 1] {
            #expect(throws: KeychainError.self) { try AttributeCodec.decode(Array(storedForm.prefix(cut))) }
        }
        #expect(throws: KeychainError.self) { try AttributeCodec.decode([2]) }
        #expect(throws: KeychainError.self) { try AttributeCodec.decode([1, 1, 0x61, 9]) }
    }
}
