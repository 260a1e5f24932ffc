/// A macOS file keychain (`SecKeychainRef`). Clavis has none: it is the data-protection keychain only, as a process
/// on macOS with no file keychain sees it. The type exists so that code falling back to the file-keychain API
/// compiles; no function gives one, and a query naming a search list of them (`kSecMatchSearchList`) is answered
/// `errSecUnimplemented`.
public final class SecKeychain: @unchecked Sendable {  // never made: no state
    private init() {}
}

/// The default file keychain, as macOS gives it to a process that has no file keychain: none, and
/// `errSecNoDefaultKeychain` (-25307). `keychain` is set to `nil`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeychainCopyDefault(_ keychain: UnsafeMutablePointer<SecKeychain?>) -> OSStatus {
    keychain.pointee = nil
    return errSecNoDefaultKeychain
}
