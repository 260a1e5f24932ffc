/// A private key the keychain service made for its caller and does not store (Apple's Secure Enclave key without
/// `kSecAttrIsPermanent`): the caller keeps only `box`, which the service alone opens, for every use.
///
/// The box is sealed to the keychain that made the key, under the key of the key's protection class, and binds the
/// access group and access control the key was made with: no other keychain opens it, nor this one while the class
/// is closed, and a box changed in any byte is refused. The key lives as long as its caller keeps the box (the
/// service keeps nothing of it), and stays usable across restarts of the service, as a Secure Enclave key's blob
/// does, until the class's key changes (removing the passcode ends every `WhenPasscodeSetThisDeviceOnly` key).
public struct SealedKey: Sendable {
    /// The sealed private key with what it is bound to, opaque outside the service.
    public let box: [UInt8]
    /// What the service says of the key, as an item that is not stored (its persistent reference is empty): the
    /// key's facts, access group, protection and access control, and as its secret the public key (ANSI X9.63).
    public let item: Item

    /// A key as the service made it.
    public init(box: [UInt8], item: Item) {
        self.box = box
        self.item = item
    }
}
