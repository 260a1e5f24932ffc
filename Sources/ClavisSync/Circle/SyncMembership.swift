public import ClavisCore

/// One device's membership of its account's circle: its keys, the circle version it trusts, and the sync keys of
/// every generation it was given. Every change goes through the server (`SyncCircleStore`) and is checked against
/// what the device already trusts; keys are taken only when they match the circle's commitment to them. The caller
/// keeps the value (sealed, in the device's keychain).
public struct SyncMembership: Sendable {
    /// This device's keys.
    public let device: SyncDeviceKey
    /// The circle version this device trusts.
    public private(set) var circle: SyncCircle
    /// The sync keys of each generation this device holds.
    public private(set) var keys: [Int64: SyncKeys]

    /// The keys records are sealed with now.
    public var currentKeys: SyncKeys? { keys[circle.generation] }

    /// Makes a new circle of this device alone, with the first generation of sync keys, signed by its recovery
    /// member, and returns the recovery key to show the user once.
    ///
    /// - Throws: `duplicateItem` when the account has a circle already (join it instead).
    public static func createCircle(device: SyncDeviceKey, name: String, store: SyncCircleStore)
        throws(KeychainError) -> (SyncMembership, SyncRecoveryKey)
    {
        let recovery = try SyncRecoveryKey.generate()
        let recoveryMember = try SyncDeviceKey.generate()
        let keys = SyncKeys.generate(generation: 1)
        let circle = SyncCircle(
            version: 1, generation: 1, members: [SyncCircle.Member(device, name: name)],
            recovery: SyncCircle.Member(recoveryMember, name: "recovery key"), keyCommitments: [1: keys.commitment])
        try store.database.transaction { () throws(KeychainError) in
            try store.publish(try SignedSyncCircle.sign(circle, by: recoveryMember), version: 1)
            try store.putWrappedKeys(
                try recovery.seal(recoveryMember), generation: 1, recipient: SyncCircleStore.recoveryMemberRecipient)
            try Self.wrap(keys, in: circle, store: store)
        }
        return (SyncMembership(device: device, circle: circle, keys: [1: keys]), recovery)
    }

    /// Asks to join the account's circle: posts this device's request, whose code the user then reads off this
    /// device and gives the approving member.
    ///
    /// - Throws: `itemNotFound` when the account has no circle; `verifyFailed` for a circle that does not check.
    public static func requestJoin(device: SyncDeviceKey, name: String, store: SyncCircleStore)
        throws(KeychainError) -> SyncJoinRequest
    {
        guard let circle = try SignedSyncCircle.followed(try store.circles(after: 0)) else {
            throw KeychainError(.itemNotFound, "the account has no sync circle: make one first")
        }
        let request = try SyncJoinRequest(device, name: name, circle: circle.recovery.identifier)
        try store.post(request)
        return request
    }

    /// Approves the waiting join request whose code is `code` (as the joining device shows it): the device is added
    /// in a new circle version and given every generation's keys. Returns the member added.
    ///
    /// - Throws: `itemNotFound` when no waiting request for this circle has that code, `duplicateItem` when another
    ///   device changed the circle meanwhile (refresh and approve again).
    @discardableResult
    public mutating func approve(code: String, store: SyncCircleStore) throws(KeychainError) -> SyncCircle.Member {
        let wanted = CrockfordBase32.normalized(code)
        let recovery = circle.recovery.identifier
        guard
            let request = try store.joinRequests().first(where: {
                $0.circle == recovery && CrockfordBase32.normalized($0.code) == wanted
            })
        else {
            throw KeychainError(.itemNotFound, "no device waiting to join this circle shows the code \(code)")
        }
        let next = circle.adding(request.member)
        try store.database.transaction { () throws(KeychainError) in
            try store.publish(try SignedSyncCircle.sign(next, by: device), version: next.version)
            for (generation, generationKeys) in keys {
                try store.putWrappedKeys(
                    try SyncDeviceKey.seal(generationKeys.encoded, to: request.member.encryptionKey),
                    generation: generation, recipient: request.member.identifier)
            }
            try store.removeJoinRequest(of: request.member.identifier)
        }
        circle = next
        return request.member
    }

    /// Removes the device `identifier` from the circle and starts a new generation of sync keys, given to the
    /// remaining members and the recovery member only: the removed device reads nothing written after. The records
    /// it wrote last are sealed again, by this device, under the new generation, so that every record stays signed by
    /// a member.
    ///
    /// - Throws: `itemNotFound` for a device that is not a member, `param` for this device itself.
    public mutating func remove(_ identifier: [UInt8], store: SyncCircleStore) throws(KeychainError) {
        guard circle.member(identifier) != nil else {
            throw KeychainError(.itemNotFound, "the device is not a member of the circle")
        }
        guard identifier != device.identifier else {
            throw KeychainError(.param, "a device leaves the circle by being removed from another")
        }
        guard let current = currentKeys else {
            throw KeychainError(.notAvailable, "this device does not hold the circle's current sync keys")
        }
        let rotated = current.rotated()
        let next = circle.removing(identifier, nextKeys: rotated)
        let records = SyncRecordStore(database: store.database)
        let heldKeys = keys
        let members = circle.signingKeys
        try store.database.transaction { () throws(KeychainError) in
            try store.publish(try SignedSyncCircle.sign(next, by: device), version: next.version)
            try Self.wrap(rotated, in: next, store: store)
            var after: Int64 = 0
            while true {
                let changes = try records.changes(after: after)
                guard let last = changes.last else { break }
                after = last.change
                for change in changes where change.record.writer == identifier {
                    let item = try change.record.open(keys: heldKeys, members: members)
                    let resealed = try SyncRecord.seal(
                        item, version: change.record.version + 1, keys: rotated, by: device)
                    try records.write(resealed, replacing: change.record.version)
                }
            }
        }
        circle = next
        keys[next.generation] = rotated
    }

    /// Follows the circle's changes since the version this device trusts, checking each against the one before,
    /// and takes the keys of any new generation wrapped to this device.
    ///
    /// - Throws: `verifyFailed` for a change no member signed or keys the circle does not commit to; `notAvailable`
    ///   once this device has been removed.
    public mutating func refresh(store: SyncCircleStore) throws(KeychainError) {
        for signed in try store.circles(after: circle.version) { circle = try signed.verified(trusting: circle) }
        guard circle.member(device.identifier) != nil else {
            throw KeychainError(.notAvailable, "this device was removed from the sync circle")
        }
        keys.merge(try Self.keysWrapped(to: device, in: circle, store: store)) { held, _ in held }
    }

    /// The membership of a device whose join request a member approved; `nil` while no circle lists it yet.
    ///
    /// - Throws: `verifyFailed` when the circle that lists it is not the one its request (and code) named.
    public static func joined(device: SyncDeviceKey, request: SyncJoinRequest, store: SyncCircleStore)
        throws(KeychainError) -> SyncMembership?
    {
        guard let circle = try SignedSyncCircle.followed(try store.circles(after: 0)),
            circle.member(device.identifier) != nil
        else { return nil }
        guard circle.recovery.identifier == request.circle else {
            throw KeychainError(.verifyFailed, "the circle that lists this device is not the one it asked to join")
        }
        return SyncMembership(
            device: device, circle: circle, keys: try keysWrapped(to: device, in: circle, store: store))
    }

    /// Joins with the recovery key alone, when no member is left to approve: the recovery key opens the recovery
    /// member, which adds this device in a new circle version and holds every generation's keys.
    ///
    /// - Throws: `authFailed` for a key that is not this account's, `itemNotFound` when the account has no circle,
    ///   `verifyFailed` for a circle or keys that do not check.
    public static func recover(
        device: SyncDeviceKey, name: String, recovery: SyncRecoveryKey, store: SyncCircleStore
    ) throws(KeychainError) -> SyncMembership {
        guard let current = try SignedSyncCircle.followed(try store.circles(after: 0)) else {
            throw KeychainError(.itemNotFound, "the account has no sync circle")
        }
        guard let sealedMember = try store.wrappedKeys(for: SyncCircleStore.recoveryMemberRecipient)[1] else {
            throw KeychainError(.itemNotFound, "the account's recovery member is missing")
        }
        let recoveryMember = try recovery.openMember(sealedMember)
        guard recoveryMember.identifier == current.recovery.identifier else {
            throw KeychainError(.verifyFailed, "the recovery member on the server is not the circle's")
        }
        let keys = try keysWrapped(to: recoveryMember, in: current, store: store)
        let next = current.adding(SyncCircle.Member(device, name: name))
        try store.database.transaction { () throws(KeychainError) in
            try store.publish(try SignedSyncCircle.sign(next, by: recoveryMember), version: next.version)
            for (generation, generationKeys) in keys {
                try store.putWrappedKeys(
                    try SyncDeviceKey.seal(generationKeys.encoded, to: device.encryptionPublicKey),
                    generation: generation, recipient: device.identifier)
            }
        }
        return SyncMembership(device: device, circle: next, keys: keys)
    }

    /// Seals `keys` to each member of `circle` and to its recovery member.
    private static func wrap(_ keys: SyncKeys, in circle: SyncCircle, store: SyncCircleStore) throws(KeychainError) {
        for member in circle.members + [circle.recovery] {
            try store.putWrappedKeys(
                try SyncDeviceKey.seal(keys.encoded, to: member.encryptionKey), generation: keys.generation,
                recipient: member.identifier)
        }
    }

    /// Every generation's keys wrapped to `device` that `circle` commits to; any other is refused.
    private static func keysWrapped(to device: SyncDeviceKey, in circle: SyncCircle, store: SyncCircleStore)
        throws(KeychainError) -> [Int64: SyncKeys]
    {
        var keys: [Int64: SyncKeys] = [:]
        for (generation, sealed) in try store.wrappedKeys(for: device.identifier) {
            let opened = try SyncKeys(encoded: try device.open(sealed))
            guard opened.generation == generation, circle.keyCommitments[generation] == opened.commitment else {
                throw KeychainError(
                    .verifyFailed, "the sync keys stored for generation \(generation) are not the ones the circle made")
            }
            keys[generation] = opened
        }
        return keys
    }
}
