#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A byte buffer for keys and plaintext that zeroes its memory when released and never prints its contents.
///
/// The contents are fixed once initialised; share it freely across threads.
public final class SecureBytes: @unchecked Sendable {  // immutable after init, so unsynchronised reads are safe
    private let storage: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `initializer` fill them; the buffer is zeroed before and after use.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        precondition(count >= 0, "SecureBytes count must not be negative")
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        let visible = UnsafeMutableRawBufferPointer(rebasing: storage[0..<count])
        do {
            try initializer(visible)
        } catch {
            Self.wipe(storage)
            storage.deallocate()
            throw error
        }
        self.count = count
    }

    /// Copies `bytes` into a new zeroing buffer: at once when they are contiguous (an array, `Data`), else one by
    /// one.
    public convenience init(_ bytes: some Collection<UInt8>) {
        let count = bytes.count
        self.init(count: count) { buffer in
            let copied = bytes.withContiguousStorageIfAvailable { source -> Bool in
                if count > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(source)) }
                return true
            }
            if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
        }
    }

    /// Copies the bytes in `buffer` into a new zeroing buffer.
    public convenience init(copying buffer: UnsafeRawBufferPointer) {
        self.init(count: buffer.count) { target in
            if buffer.count > 0 { target.copyMemory(from: buffer) }
        }
    }

    deinit {
        Self.wipe(storage)
        storage.deallocate()
    }

    /// The number of bytes held.
    public let count: Int

    /// True when no bytes are held.
    public var isEmpty: Bool { count == 0 }

    /// Calls `body` with a read-only view of the bytes; the view must not escape.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Returns a new buffer holding these bytes followed by `other`'s.
    public func appending(_ other: SecureBytes) -> SecureBytes {
        SecureBytes(count: count + other.count) { target in
            withUnsafeBytes { mine in
                if !mine.isEmpty { target.copyMemory(from: mine) }
            }
            other.withUnsafeBytes { theirs in
                if !theirs.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: target[count...]).copyMemory(from: theirs)
                }
            }
        }
    }

    /// Copies the bytes out into an ordinary array: only for values that are not secret once produced (ciphertext).
    public func unprotectedBytes() -> [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    private static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        #if canImport(Glibc) || canImport(Musl)
            explicit_bzero(base, buffer.count)
        #else
            memset_s(base, buffer.count, 0, buffer.count)
        #endif
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// Names the size only, never the contents.
    public var description: String { "SecureBytes(\(count) bytes)" }
    /// Names the size only, never the contents.
    public var debugDescription: String { description }
}
