public import ClavisCore
import FoundationEssentials

/// Keys the service makes and does not store (`SealedKey`): generated as a held key is (in the keychain's TPM when it
/// is bound to one), handed out sealed to this keychain, and opened here for each use, after the access group and
/// access control sealed with the key allow it.
///
/// A box is a version byte, the length-prefixed header (access group, protection class, access control, holder),
/// and the sealed private key, whose sealing binds the version and header: changing any of them fails the opening.
extension EmbeddedKeychainService {
    public func generateSealedKey(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<SealedKey> {
        guard item.itemClass == .key, TokenKey.isHeld(item.attributes) else {
            throw KeychainError(.param, "the service generates keys only for the token \(TokenKey.secureEnclave)")
        }
        let protection = try Self.heldKeyProtection(of: item)
        var attributes = try bindingBiometry(item.attributes)
        let accessControl = try AccessControl.carried(by: attributes)
        try accessControl?.checkStored(with: .key, in: protection)
        // An application password encrypts an item's secret once more; a box has no secret of the caller's to
        // encrypt, so the condition could only be checked, not enforced: refused rather than pretended.
        if accessControl?.usesApplicationPassword == true {
            throw KeychainError(
                .param, "a key that is not permanent cannot use an application password: make it permanent")
        }
        let group = attributes[.accessGroup]?.stringValue ?? entitlements.defaultGroup
        try entitlements.require(group)
        let (publicBytes, secret) = try generateHeldKey()
        let holder = Self.holder(of: secret)
        let header = SealedKeyHeader(
            accessGroup: group, protection: protection, accessControl: accessControl, holder: holder)
        let context = header.encoded
        let sealed = try keychain.sealOutsideItems(
            secret, protection: protection, needsPasscode: accessControl?.requiresPasscode ?? false, context: context)
        attributes[.accessGroup] = .string(group)
        attributes[.accessible] = .string(protection.rawValue)
        attributes[.synchronizable] = .bool(false)
        attributes[.tokenHolder] = .string(holder.rawValue)
        for (name, value) in Self.tokenKeyFacts(publicBytes: publicBytes, isPermanent: false) {
            attributes[name] = value
        }
        return sealed.map { box in
            SealedKey(
                box: context + box,
                item: Item(
                    itemClass: .key, attributes: attributes, secret: SecureBytes(publicBytes),
                    persistentReference: PersistentReference(bytes: [])))
        }
    }

    public func useSealedKey(_ box: [UInt8], for use: KeyUse, authentication: AuthenticationProof?)
        throws(KeychainError) -> ServiceAnswer<SecureBytes>
    {
        let (header, context, sealed) = try SealedKeyHeader.split(box)
        try entitlements.require(header.accessGroup)
        if let accessControl = header.accessControl {
            switch accessControl.evaluate(vetted(authentication)) {
            case .satisfied: break
            case .needsAuthentication: return .needsAuthentication(accessControl, .open)
            case .invalidated:
                throw KeychainError(
                    .authFailed, "the biometric enrolment the key was bound to has changed; it can no longer be used")
            }
        }
        return try keychain.openOutsideItems(sealed, protection: header.protection, context: context).map {
            (secret) throws(KeychainError) -> SecureBytes in
            try run(use, withHeldSecret: secret)
        }
    }
}

extension EmbeddedKeychainService {
    public func addSealedKey(_ box: [UInt8], as item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        let (header, context, sealed) = try SealedKeyHeader.split(box)
        try entitlements.require(header.accessGroup)
        if let group = item.attributes[.accessGroup], group != .string(header.accessGroup) {
            throw KeychainError(.param, "the key belongs to access group \(header.accessGroup), and stays in it")
        }
        return try keychain.openOutsideItems(sealed, protection: header.protection, context: context).flatMap {
            (secret) throws(KeychainError) -> ServiceAnswer<Item> in
            guard let publicBytes = Self.heldKeyPublicBytes(secret) else {
                throw KeychainError(.decode, "the sealed box holds no key")
            }
            var stored = NewItem(itemClass: .key, attributes: item.attributes, secret: secret)
            stored.attributes[.tokenID] = .string(TokenKey.secureEnclave)
            stored.attributes[.tokenHolder] = .string(header.holder.rawValue)
            stored.attributes[.accessGroup] = .string(header.accessGroup)
            stored.attributes[.accessible] = .string(header.protection.rawValue)
            stored.attributes[.accessControl] = header.accessControl.map { .data($0.encoded) }
            stored.attributes[.synchronizable] = .bool(false)
            for (name, value) in Self.tokenKeyFacts(publicBytes: publicBytes, isPermanent: true) {
                stored.attributes[name] = value
            }
            return try addStoring(stored).map { added in
                var added = added
                added.secret = SecureBytes(publicBytes)
                return added
            }
        }
    }
}

/// What a `SealedKey`'s box says in clear and its sealing binds: whose the key is and what guards it.
struct SealedKeyHeader {
    var accessGroup: String
    var protection: ProtectionClass
    var accessControl: AccessControl?
    var holder: TokenKey.Holder

    /// The box format this build writes and reads.
    static let version: UInt8 = 1

    /// The version byte and the length-prefixed header: the start of a box, and what its sealing binds.
    var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.byte(Self.version)
        writer.lengthPrefixed { header in
            header.string(accessGroup)
            header.string(protection.rawValue)
            header.optional(accessControl) { $0.lengthPrefixed($1.encoded) }
            header.string(holder.rawValue)
        }
        return writer.bytes
    }

    /// The header of `box`, the bytes its sealing binds, and the sealed key after them.
    ///
    /// - Throws: `decode` for bytes that are not a box of this format.
    static func split(_ box: [UInt8]) throws(KeychainError) -> (SealedKeyHeader, context: [UInt8], sealed: [UInt8]) {
        var reader = ByteReader(box, subject: "sealed key")
        guard try reader.byte() == version else { throw reader.malformed("a sealed key of another format") }
        var fields = ByteReader(Array(try reader.lengthPrefixed()), subject: "sealed key header")
        let group = try fields.string()
        guard let protection = ProtectionClass(rawValue: try fields.string()) else {
            throw fields.malformed("an unknown protection class")
        }
        let accessControl = try fields.optional { (fields) throws(KeychainError) in
            try AccessControl(encoded: try fields.data())
        }
        guard let holder = TokenKey.Holder(rawValue: try fields.string()), fields.isAtEnd else {
            throw fields.malformed("an unknown holder")
        }
        let header = SealedKeyHeader(
            accessGroup: group, protection: protection, accessControl: accessControl, holder: holder)
        return (header, Array(box[..<reader.position]), Array(box[reader.position...]))
    }
}
