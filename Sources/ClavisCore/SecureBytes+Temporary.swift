extension SecureBytes {
    /// Runs `body` on a copy of the bytes as an array, zeroed once `body` returns: for parsing and hashing secrets
    /// with code that takes arrays. `body` must not keep the array.
    public func withTemporaryArray<Result>(_ body: ([UInt8]) throws(KeychainError) -> Result) throws(KeychainError)
        -> Result
    {
        var bytes = unprotectedBytes()
        defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        return try body(bytes)
    }
}
