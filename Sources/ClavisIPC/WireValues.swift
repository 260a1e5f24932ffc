import ClavisCore
import FoundationEssentials

// How the keychain's typed values travel between a client and clavisd. Every reader checks what it reads: a
// malformed message is a `decode` error, never a trap.

extension ByteWriter {
    mutating func itemClass(_ value: ItemClass) { string(value.rawValue) }

    mutating func attributes(_ value: [AttributeKey: AttributeValue]) {
        lengthPrefixed { AttributeCodec.encode(value, to: &$0) }
    }

    mutating func proof(_ value: AuthenticationProof?) {
        optional(value) { writer, proof in
            writer.bool(proof.passcode)
            writer.optional(proof.passcodeKeychain) { $0.lengthPrefixed($1) }
            writer.optional(proof.biometryEnrolment) { $0.lengthPrefixed($1) }
            writer.optional(proof.applicationPassword) { $0.secret($1) }
            writer.optional(proof.session) { $0.uint64($1.rawValue) }
        }
    }

    mutating func newItem(_ value: NewItem) {
        itemClass(value.itemClass)
        attributes(value.attributes)
        secret(value.secret)
        proof(value.authentication)
    }

    mutating func item(_ value: Item) {
        itemClass(value.itemClass)
        attributes(value.attributes)
        optional(value.secret) { $0.secret($1) }
        lengthPrefixed(value.persistentReference.bytes)
    }

    mutating func query(_ value: ItemQuery) {
        itemClass(value.itemClass)
        attributes(value.attributes)
        // The pairs in their stored form (`ssat`), or nothing when the query names none.
        lengthPrefixed(
            value.secretServiceAttributes.isEmpty
                ? Data() : SecretServiceAttributes(value.secretServiceAttributes).encoded)
        switch value.synchronizable {
        case .no: byte(0)
        case .yes: byte(1)
        case .any: byte(2)
        }
        optional(value.accessGroups) { writer, groups in
            writer.uint32(UInt32(groups.count))
            for group in groups { writer.string(group) }
        }
        optional(value.persistentReference) { $0.lengthPrefixed($1.bytes) }
        switch value.limit {
        case .one: byte(0)
        case .all: byte(1)
        case .count(let count):
            byte(2)
            uint64(UInt64(max(count, 0)))
        }
        bool(value.returnsSecret)
        bool(value.returnsAttributes)
        proof(value.authentication)
        bool(value.unauthenticatedItems == .skip)
    }

    mutating func keyUse(_ value: KeyUse) {
        switch value {
        case .signDigest(let digest):
            byte(0)
            lengthPrefixed(digest)
        case .agree(let peer):
            byte(1)
            lengthPrefixed(peer)
        }
    }

    mutating func changes(_ value: ItemChanges) {
        attributes(value.attributes)
        optional(value.secret) { $0.secret($1) }
    }

    mutating func strength(_ value: PasscodeStrength) {
        bool(value == .cheapForTesting)
    }

    mutating func error(_ value: KeychainError) {
        uint32(UInt32(bitPattern: value.code.rawValue))
        string(value.reason)
        optional(value.pendingAccessControl) { $0.lengthPrefixed($1.encoded) }
        bool(value.applicationPasswordUse == .seal)
    }

    mutating func status(_ value: KeychainStatus) {
        switch value.location {
        case .embedded(let home):
            byte(0)
            string(home)
        case .daemon(let socket):
            byte(1)
            string(socket)
        }
        string(value.reason)
        string(value.lockState.rawValue)
        bool(value.hasPasscode)
        optional(value.passcodeLockout) { $0.uint64($1.timeIntervalSinceReferenceDate.bitPattern) }
        string(value.applicationIdentifier)
        strings(value.accessGroups)
        bool(value.hasTrustedPrompt)
        // Last, so that a client reading an older daemon's status (which ends before it) takes the file binding.
        string(value.deviceKey.rawValue)
        optional(value.writes) {
            $0.uint64(UInt64($1.writes))
            $0.uint64(UInt64($1.flushes))
        }
    }

    /// A list of strings: the count, then each one.
    mutating func strings(_ values: [String]) {
        uint32(UInt32(values.count))
        for value in values { string(value) }
    }
}

extension ByteReader {
    mutating func itemClass() throws(KeychainError) -> ItemClass {
        guard let value = ItemClass(rawValue: try string()) else { throw malformed("an unknown item class") }
        return value
    }

    mutating func attributes() throws(KeychainError) -> [AttributeKey: AttributeValue] {
        try AttributeCodec.decode(Array(try lengthPrefixed()))
    }

    mutating func proof() throws(KeychainError) -> AuthenticationProof? {
        try optional { (reader) throws(KeychainError) in
            let passcode = try reader.bool()
            let keychain = try reader.optional { (reader) throws(KeychainError) in try reader.data() }
            let enrolment = try reader.optional { (reader) throws(KeychainError) in try reader.data() }
            let password = try reader.optional { (reader) throws(KeychainError) in try reader.secret() }
            let session = try reader.optional { (reader) throws(KeychainError) in
                AuthenticationSessionID(rawValue: try reader.uint64())
            }
            return AuthenticationProof(
                passcode: passcode, biometryEnrolment: enrolment, passcodeKeychain: keychain,
                applicationPassword: password, session: session)
        }
    }

    mutating func keyUse() throws(KeychainError) -> KeyUse {
        switch try byte() {
        case 0: return .signDigest(Array(try lengthPrefixed()))
        case 1: return .agree(peerPublicKey: Array(try lengthPrefixed()))
        default: throw malformed("an unknown key use")
        }
    }

    mutating func newItem() throws(KeychainError) -> NewItem {
        NewItem(
            itemClass: try itemClass(), attributes: try attributes(), secret: try secret(),
            authentication: try proof())
    }

    mutating func item() throws(KeychainError) -> Item {
        Item(
            itemClass: try itemClass(), attributes: try attributes(),
            secret: try optional { (reader) throws(KeychainError) in try reader.secret() },
            persistentReference: PersistentReference(bytes: Array(try lengthPrefixed())))
    }

    mutating func query() throws(KeychainError) -> ItemQuery {
        let itemClass = try itemClass()
        let attributes = try attributes()
        let encodedPairs = try data()
        var secretServiceAttributes: [String: String] = [:]
        if !encodedPairs.isEmpty {
            guard let pairs = SecretServiceAttributes(encoded: encodedPairs) else {
                throw malformed("Secret Service attributes that are not an encoding of them")
            }
            secretServiceAttributes = pairs.pairs
        }
        let synchronizable: SynchronizableFilter
        switch try byte() {
        case 0: synchronizable = .no
        case 1: synchronizable = .yes
        case 2: synchronizable = .any
        default: throw malformed("an unknown synchronizable filter")
        }
        let groups = try optional { (reader) throws(KeychainError) -> [String] in
            let count = try reader.uint32()
            var groups: [String] = []
            for _ in 0..<count { groups.append(try reader.string()) }
            return groups
        }
        let reference = try optional { (reader) throws(KeychainError) in
            PersistentReference(bytes: Array(try reader.lengthPrefixed()))
        }
        let limit: MatchLimit
        switch try byte() {
        case 0: limit = .one
        case 1: limit = .all
        case 2: limit = .count(Int(clamping: try uint64()))
        default: throw malformed("an unknown match limit")
        }
        return ItemQuery(
            itemClass: itemClass, attributes: attributes, secretServiceAttributes: secretServiceAttributes,
            synchronizable: synchronizable, accessGroups: groups,
            persistentReference: reference, limit: limit, returnsSecret: try bool(), returnsAttributes: try bool(),
            authentication: try proof(), unauthenticatedItems: try bool() ? .skip : .fail)
    }

    mutating func changes() throws(KeychainError) -> ItemChanges {
        ItemChanges(
            attributes: try attributes(),
            secret: try optional { (reader) throws(KeychainError) in try reader.secret() })
    }

    mutating func strength() throws(KeychainError) -> PasscodeStrength {
        try bool() ? .cheapForTesting : .standard
    }

    mutating func error() throws(KeychainError) -> KeychainError {
        let code = KeychainError.Code(rawValue: Int32(bitPattern: try uint32()))
        let reason = try string()
        let pending = try optional { (reader) throws(KeychainError) in
            try AccessControl(encoded: try reader.data())
        }
        let use: KeychainError.ApplicationPasswordUse = try bool() ? .seal : .open
        return KeychainError(code, reason, pendingAccessControl: pending, applicationPasswordUse: use)
    }

    mutating func status() throws(KeychainError) -> KeychainStatus {
        let location: KeychainStatus.Location
        switch try byte() {
        case 0: location = .embedded(home: try string())
        case 1: location = .daemon(socket: try string())
        default: throw malformed("an unknown keychain location")
        }
        let reason = try string()
        guard let lockState = LockState(rawValue: try string()) else { throw malformed("an unknown lock state") }
        let hasPasscode = try bool()
        let lockout = try optional { (reader) throws(KeychainError) in
            Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64()))
        }
        let identifier = try string()
        let groups = try strings()
        let hasTrustedPrompt = try bool()
        var deviceKey = DeviceKeyBinding.file
        if !isAtEnd {
            guard let binding = DeviceKeyBinding(rawValue: try string()) else {
                throw malformed("an unknown device-key binding")
            }
            deviceKey = binding
        }
        var writes: WriteStatistics?
        if !isAtEnd {
            writes = try optional { (reader) throws(KeychainError) in
                WriteStatistics(writes: Int(clamping: try reader.uint64()), flushes: Int(clamping: try reader.uint64()))
            }
        }
        return KeychainStatus(
            location: location, reason: reason, lockState: lockState, hasPasscode: hasPasscode,
            passcodeLockout: lockout, applicationIdentifier: identifier, accessGroups: groups,
            hasTrustedPrompt: hasTrustedPrompt, deviceKey: deviceKey, writes: writes)
    }

    /// A list of strings as `ByteWriter.strings` wrote it.
    mutating func strings() throws(KeychainError) -> [String] {
        let count = try uint32()
        var values: [String] = []
        for _ in 0..<count { values.append(try string()) }
        return values
    }
}
