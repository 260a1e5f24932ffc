/// Douglas Crockford's base32, as sync shows codes and keys to people: digits and upper-case letters without I, L, O
/// and U, five bits a character, the most significant first; read back whatever the case, with dashes and spaces
/// ignored and O, I and L taken for 0, 1 and 1.
enum CrockfordBase32 {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// The characters of `bytes`, the last one padded with zero bits.
    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var characters: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                characters.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { characters.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return characters
    }

    /// `characters` in groups of `size`, joined by dashes (the last group may be shorter).
    static func grouped(_ characters: [UInt8], by size: Int) -> String {
        stride(from: 0, to: characters.count, by: size).map {
            String(decoding: characters[$0..<min($0 + size, characters.count)], as: UTF8.self)
        }.joined(separator: "-")
    }

    /// `text` as typed, made canonical: upper case, no dashes or spaces, O, I and L read as 0, 1 and 1.
    static func normalized(_ text: String) -> [UInt8] {
        text.uppercased().utf8.compactMap { character in
            switch character {
            case UInt8(ascii: "-"), UInt8(ascii: " "): nil
            case UInt8(ascii: "O"): UInt8(ascii: "0")
            case UInt8(ascii: "I"), UInt8(ascii: "L"): UInt8(ascii: "1")
            default: character
            }
        }
    }

    /// The whole bytes `text` holds (padding bits left over are dropped); `nil` when it holds another character.
    static func decode(_ text: String) -> [UInt8]? {
        var buffer = 0
        var bits = 0
        var bytes: [UInt8] = []
        for character in normalized(text) {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }
}
