/// Bytes written as lowercase hexadecimal, two digits each: for display (references, device identifiers).
package enum Hexadecimal {
    /// `bytes` in lowercase hexadecimal.
    package static func text(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
