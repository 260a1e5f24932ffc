internal import ClavisCore

// C functions here often reject NULL even for zero lengths, and the standard `withUnsafe…` methods are
// `rethrows`, which loses the typed `CryptoError`. These helpers hand out a base address that is never nil
// and keep typed throws end to end.

/// Runs a body on raw bytes with a non-nil base address, returning its outcome instead of rethrowing.
enum ByteAccess {
    /// Calls `body` with `raw`'s base address, or a one-byte scratch address when `raw` is empty.
    static func call<Value>(
        _ raw: UnsafeRawBufferPointer,
        _ body: (UnsafePointer<UInt8>, Int) throws(CryptoError) -> Value
    ) -> Result<Value, CryptoError> {
        // The mutable view is only handed on as a read-only pointer; nothing writes through it.
        callMutable(UnsafeMutableRawBufferPointer(mutating: raw)) { pointer, count throws(CryptoError) in
            try body(UnsafePointer(pointer), count)
        }
    }

    /// Calls `body` with `raw`'s mutable base address, or a one-byte scratch address when `raw` is empty.
    static func callMutable<Value>(
        _ raw: UnsafeMutableRawBufferPointer,
        _ body: (UnsafeMutablePointer<UInt8>, Int) throws(CryptoError) -> Value
    ) -> Result<Value, CryptoError> {
        if let base = raw.baseAddress, !raw.isEmpty {
            return Result { () throws(CryptoError) -> Value in
                try body(base.assumingMemoryBound(to: UInt8.self), raw.count)
            }
        }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { scratch.deallocate() }
        scratch.initialize(to: 0)
        return Result { () throws(CryptoError) -> Value in try body(scratch, 0) }
    }
}

extension SecureBytes {
    /// Calls `body` with a never-nil pointer to the bytes and their count; the pointer must not escape.
    func withBytes<Value>(
        _ body: (UnsafePointer<UInt8>, Int) throws(CryptoError) -> Value
    ) throws(CryptoError) -> Value {
        try withUnsafeBytes { raw in ByteAccess.call(raw, body) }.get()
    }

    /// Allocates `count` zeroing bytes and lets `body` fill them through a never-nil pointer.
    ///
    /// If `body` throws, the partly written buffer is wiped and released before the error propagates.
    static func filling(
        count: Int,
        _ body: (UnsafeMutablePointer<UInt8>) throws(CryptoError) -> Void
    ) throws(CryptoError) -> SecureBytes {
        var failure: CryptoError?
        let bytes = SecureBytes(count: count) { raw in
            if case .failure(let error) = ByteAccess.callMutable(
                raw,
                { pointer, _ throws(CryptoError) in
                    try body(pointer)
                })
            {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Returns a new buffer holding the first `length` bytes.
    func prefix(_ length: Int) -> SecureBytes {
        precondition(length >= 0 && length <= count, "prefix length out of range")
        return withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with a never-nil pointer to the bytes and their count; the pointer must not escape.
    func withBytes<Value>(
        _ body: (UnsafePointer<UInt8>, Int) throws(CryptoError) -> Value
    ) throws(CryptoError) -> Value {
        try withUnsafeBytes { raw in ByteAccess.call(raw, body) }.get()
    }

    /// Calls `body` with a never-nil mutable pointer to the bytes and their count.
    mutating func withMutableBytes<Value>(
        _ body: (UnsafeMutablePointer<UInt8>, Int) throws(CryptoError) -> Value
    ) throws(CryptoError) -> Value {
        try withUnsafeMutableBytes { raw in ByteAccess.callMutable(raw, body) }.get()
    }
}
