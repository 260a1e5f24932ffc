/// Reads DER elements (one-byte tags, definite lengths) one after another from a byte slice, never trusting a
/// length beyond the bytes there are.
struct DERReader {
    /// One element: its tag and its content's bytes.
    struct Element {
        /// The tag byte.
        var tag: UInt8
        /// The content, without tag and length.
        var content: ArraySlice<UInt8>
    }

    /// The bytes not read yet.
    private var remaining: ArraySlice<UInt8>

    /// A reader over `bytes`.
    init(_ bytes: ArraySlice<UInt8>) { remaining = bytes }

    /// True when every byte has been read.
    var isAtEnd: Bool { remaining.isEmpty }

    /// The next element, or nil when the bytes left do not hold one (the reader is then left as it was).
    mutating func next() -> Element? {
        var cursor = remaining.startIndex
        let end = remaining.endIndex
        guard cursor < end else { return nil }
        let tag = remaining[cursor]
        // High tag numbers (0x1f) never occur in the structures read here.
        guard tag & 0x1f != 0x1f else { return nil }
        cursor += 1
        guard cursor < end else { return nil }
        var length = Int(remaining[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            // 0x80 is BER's indefinite length; more than four bytes of length is more than any input here.
            guard count >= 1, count <= 4, end - cursor >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(remaining[cursor])
                cursor += 1
            }
        }
        guard length <= end - cursor else { return nil }
        let content = remaining[cursor..<(cursor + length)]
        remaining = remaining[(cursor + length)...]
        return Element(tag: tag, content: content)
    }

    /// `tag`, the DER length of `content`, then `content`.
    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [tag]
        if content.count < 0x80 {
            header.append(UInt8(content.count))
        } else {
            var length: [UInt8] = []
            var value = content.count
            while value > 0 {
                length.insert(UInt8(value & 0xff), at: 0)
                value >>= 8
            }
            header.append(0x80 | UInt8(length.count))
            header += length
        }
        return header + content
    }
}
