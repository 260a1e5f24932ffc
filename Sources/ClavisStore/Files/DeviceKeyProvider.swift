package import ClavisCore
internal import ClavisSystem

/// Holds the 256-bit device key that every class key is bound to.
package protocol DeviceKeyProvider: Sendable {
    /// Returns the device key, creating one first when `creatingIfMissing` is true and none exists yet.
    ///
    /// - Throws: `invalidKeychain` when the key is missing (and may not be created) or malformed; `io` when it
    ///   cannot be read.
    func deviceKey(creatingIfMissing: Bool) throws(KeychainError) -> SecureBytes

    /// What the key is bound to, for `clavis status`.
    var binding: DeviceKeyBinding { get }
}

extension DeviceKeyProvider {
    /// A provider that says nothing else keeps its key in a file.
    package var binding: DeviceKeyBinding { .file }
}

/// The default device key: 32 random bytes in a file only its owner can read (mode 0600, in a 0700 folder).
package struct DeviceKeyFile: DeviceKeyProvider {
    /// The key's length in bytes.
    package static let byteCount = 32

    /// The file's path.
    package let path: String
    private let generate: @Sendable () -> SecureBytes

    /// A device key kept at `path`; `generate` makes a new key's bytes.
    package init(path: String, generate: @escaping @Sendable () -> SecureBytes) {
        self.path = path
        self.generate = generate
    }

    /// Reads the key, or creates it when allowed and absent. The file is reached through its folder without
    /// following a symbolic link, and must be a regular file of this user.
    package func deviceKey(creatingIfMissing: Bool) throws(KeychainError) -> SecureBytes {
        let folder = try KeychainFolder(parentFolder, creatingIfMissing: creatingIfMissing)
        var key = try folder.readSecret(fileName, limit: Self.byteCount)
        if key == nil {
            guard creatingIfMissing else {
                throw KeychainError(
                    .invalidKeychain, "device key \(path) is missing; the keychain cannot be opened without it")
            }
            _ = try folder.createSecretFile(fileName, contents: generate())
            key = try folder.readSecret(fileName, limit: Self.byteCount)
        }
        guard let key, key.count == Self.byteCount else {
            throw KeychainError(
                .invalidKeychain,
                "device key \(path) holds \(folder.size(of: fileName) ?? 0) bytes; a device key is \(Self.byteCount) bytes"
            )
        }
        return key
    }

    private var parentFolder: String { PathParts(path).folder }

    private var fileName: String { PathParts(path).name }
}
