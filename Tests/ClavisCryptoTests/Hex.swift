import ClavisCore

/// Decodes a hex string (whitespace ignored) into bytes; traps on malformed test input.
func hex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex digit") }
        bytes.append(byte)
        index = next
    }
    return bytes
}

/// Wraps hex-encoded key material in a zeroing container.
func secureHex(_ string: String) -> SecureBytes {
    SecureBytes(hex(string))
}

/// The UTF-8 bytes of a string.
func utf8(_ string: String) -> [UInt8] {
    Array(string.utf8)
}
