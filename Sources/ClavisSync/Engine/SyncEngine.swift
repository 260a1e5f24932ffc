public import ClavisCore
import FoundationEssentials

/// One device's sync rounds: read the account's changes since the last round and apply them, then send the local
/// changes, each replacing the version last seen (a device that wrote first makes this one read and decide again).
/// When an item changed here and elsewhere since they last agreed, the newest modification wins, a tie going to the
/// greater device identifier; a delete travels as a tombstone. A round that cannot reach the server changes nothing,
/// and the next one sends what changed meanwhile.
public struct SyncEngine {
    /// This device's membership (its keys and the circle it trusts).
    public var membership: SyncMembership
    /// What this device remembers between rounds.
    public var state: SyncState
    /// The time now, in milliseconds since 1970 (tests move it).
    public var now: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// How long a delete is remembered: 90 days. A tombstone older than that is removed from the server by the
    /// first device that reads it, and no device sends it again; a device that comes back after longer than that
    /// may bring back an item deleted meanwhile.
    public static let tombstoneLifetime: Int64 = 90 * 24 * 3600 * 1000

    /// How far devices' clocks may disagree about a tombstone's expiry: a day.
    static let clockAllowance: Int64 = 24 * 3600 * 1000

    /// An engine for `membership`, resuming from `state`.
    public init(membership: SyncMembership, state: SyncState = SyncState()) {
        self.membership = membership
        self.state = state
    }

    /// What a round did.
    public struct Round: Sendable, Equatable {
        /// Changes from other devices applied here.
        public var applied = 0
        /// Local changes sent.
        public var sent = 0
        /// Changes from other devices that lost to a newer local one.
        public var kept = 0
        /// Changes from other devices this keychain refused for good (an attribute this build does not know, a secret
        /// over its limit): passed over, so that the others still arrive.
        public var refused = 0

        /// A round that did `applied`, `sent`, `kept` and `refused` so many.
        public init(applied: Int = 0, sent: Int = 0, kept: Int = 0, refused: Int = 0) {
            self.applied = applied
            self.sent = sent
            self.kept = kept
            self.refused = refused
        }
    }

    /// Runs one round against `records` for the keychain `local`, following the circle first (`circles`).
    /// `localChanged` false says that nothing changed in `local` since this engine's last round succeeded (the
    /// caller saw no write): the round then only receives, without reading every local item.
    ///
    /// - Throws: what reading, opening or writing throws: `verifyFailed` for a record or circle the server changed,
    ///   `notAvailable` when the server cannot be reached or this device was removed. Nothing received is applied
    ///   after a failure, and what was applied stays.
    @discardableResult
    public mutating func synchronize(
        _ local: some SyncLocalItems, records: SyncRecordStore, circles: SyncCircleStore, localChanged: Bool = true
    ) throws(KeychainError) -> Round {
        try membership.refresh(store: circles)
        try checkHighWaterMarks(records: records)
        var round = Round()
        // Another device may write between this device's read and its write: read again and decide again, a few
        // times at most (each retry means another device's change arrived and was applied).
        for _ in 0..<4 {
            try receive(local, records: records, round: &round, localChanged: localChanged)
            if localChanged, !(try send(local, records: records, round: &round)) { continue }
            return round
        }
        throw KeychainError(.duplicateItem, "other devices kept changing the same items; the next round goes on")
    }

    /// Applies the changes after the last one read: each one, unless the local item changed since it last agreed
    /// with the server and that change wins (it is sent next).
    private mutating func receive(
        _ local: some SyncLocalItems, records: SyncRecordStore, round: inout Round, localChanged: Bool
    ) throws(KeychainError) {
        let keys = membership.keys
        let members = membership.circle.signingKeys
        var pending: [[UInt8]: SyncedItem]?
        while true {
            let changes = try records.changes(after: state.lastChange)
            if changes.isEmpty { return }
            if pending == nil { pending = localChanged ? try localChanges(of: local) : [:] }
            // Each change's step, decided in order; the items to apply go to the keychain together, and the state
            // moves past a change only once its step is done.
            let (steps, toApply, refusedRecord) = decide(changes, pending: pending, keys: keys, members: members)
            let applied = toApply.isEmpty ? SyncApplied(outcomes: []) : try local.apply(toApply)
            for step in steps {
                try carryOut(step, applied: applied, pending: &pending, round: &round, records: records)
            }
            if let refusedRecord { throw refusedRecord }
        }
    }

    /// The step of each change, in order, and the items to apply; a record that does not verify ends the list
    /// there, with its error: it stops the round there, and every round after, until it is resolved, never applied
    /// nor passed over unnoticed (the changes before it still are).
    private func decide(
        _ changes: [SyncRecordStore.Change], pending: [[UInt8]: SyncedItem]?, keys: [Int64: SyncKeys],
        members: [[UInt8]: [UInt8]]
    ) -> (steps: [Step], toApply: [SyncedItem], refused: KeychainError?) {
        var steps: [Step] = []
        var toApply: [SyncedItem] = []
        for change in changes {
            let record = change.record
            // This device's own write, read back.
            if record.writer == membership.device.identifier, state.versions[record.identifier] == record.version {
                steps.append(.own(change))
                continue
            }
            let item: SyncedItem
            do {
                // After an expired delete, a version 1 is the item beginning again, not a replay.
                let known = knowsExpiredTombstone(record.identifier) ? nil : state.versions[record.identifier]
                item = try record.open(keys: keys, members: members, newerThan: known)
            } catch {
                return (steps, toApply, error)
            }
            if let mine = pending?[record.identifier],
                !Self.wins(
                    item.modified, writer: record.writer, over: mine.modified, ownWriter: membership.device.identifier)
            {
                steps.append(.kept(change, item))
            } else {
                steps.append(.apply(change, item, toApply.count))
                toApply.append(item)
            }
        }
        return (steps, toApply, nil)
    }

    /// Does one change's step, once the keychain took the items to apply (`applied`), and moves the state past it.
    private mutating func carryOut(
        _ step: Step, applied: SyncApplied, pending: inout [[UInt8]: SyncedItem]?, round: inout Round,
        records: SyncRecordStore
    ) throws(KeychainError) {
        switch step {
        case .own(let change):
            state.lastChange = change.change
        case .kept(let change, let item):
            round.kept += 1
            try passed(change, item, records: records)
        case .apply(let change, let item, let index):
            // A change that could not be applied now is read again by the next round.
            guard index < applied.outcomes.count else {
                throw applied.stopped ?? KeychainError(.internal, "the keychain applied fewer changes than given")
            }
            if applied.outcomes[index] == nil {
                pending?[change.record.identifier] = nil
                state.agreed[change.record.identifier] = try fingerprint(of: item)
                round.applied += 1
            } else {
                // A newer build's item, or one this keychain cannot hold: waiting would not change that, and would
                // hold back every change after it. A local change it won over stays here, and is not sent over it.
                if let mine = pending?[change.record.identifier] {
                    state.agreed[change.record.identifier] = try fingerprint(of: mine)
                    pending?[change.record.identifier] = nil
                }
                round.refused += 1
            }
            try passed(change, item, records: records)
        }
    }

    /// What a round does with each change it read.
    private enum Step {
        /// This device's own write, read back.
        case own(SyncRecordStore.Change)
        /// Another device's change that lost to a newer local one.
        case kept(SyncRecordStore.Change, SyncedItem)
        /// Another device's change, the item at this index of those given to the keychain.
        case apply(SyncRecordStore.Change, SyncedItem, Int)
    }

    /// Moves the state past `change` (its item applied, kept or refused), and removes from the server the tombstone
    /// it carries once expired.
    private mutating func passed(_ change: SyncRecordStore.Change, _ item: SyncedItem, records: SyncRecordStore)
        throws(KeychainError)
    {
        let identifier = change.record.identifier
        state.versions[identifier] = change.record.version
        state.lastChange = change.change
        state.tombstones[identifier] = item.isTombstone ? item.modified : nil
        if isExpired(item) {
            // Best effort: another device removes it when this one cannot.
            try? records.expire(identifier, version: change.record.version)
            state.versions[identifier] = nil
            state.agreed[identifier] = nil
            state.tombstones[identifier] = nil
        }
    }

    /// True when the last version this device knows of the record `identifier` is a tombstone that has expired (a
    /// day early, for clocks that differ): any device may have removed it from the server since, and the item may
    /// have begun again at version 1.
    private func knowsExpiredTombstone(_ identifier: [UInt8]) -> Bool {
        state.tombstones[identifier].map(mayHaveExpiredElsewhere) ?? false
    }

    /// Sends every local item changed since it last agreed with the server; false when another device wrote one of
    /// them first (receive again, then send again).
    private mutating func send(_ local: some SyncLocalItems, records: SyncRecordStore, round: inout Round)
        throws(KeychainError) -> Bool
    {
        guard let keys = membership.currentKeys else {
            throw KeychainError(.notAvailable, "this device does not hold the circle's current sync keys")
        }
        // The mark of the last record written goes out after the writes, and is kept only once the server has it:
        // a mark kept but never published would make this device refuse the server's (older) one for good.
        var mark: SyncHighWaterMark?
        var finished = true
        for (identifier, item) in try localChanges(of: local).sorted(by: { $0.value.modified < $1.value.modified }) {
            // After an expired delete, the server's record may be gone (the item begins again at version 1) or not.
            let previous =
                knowsExpiredTombstone(identifier) ? try records.version(of: identifier) : state.versions[identifier]
            let record = try SyncRecord.seal(item, version: (previous ?? 0) + 1, keys: keys, by: membership.device)
            do {
                try records.write(record, replacing: previous)
            } catch  where error.code == .duplicateItem {
                finished = false
                break
            }
            state.versions[identifier] = record.version
            state.agreed[identifier] = try fingerprint(of: item)
            state.tombstones[identifier] = item.isTombstone ? item.modified : nil
            mark = SyncHighWaterMark(
                device: membership.device.identifier, record: identifier, version: record.version,
                modified: item.modified, sequence: (state.lastWritten?.sequence ?? 0) + 1)
            round.sent += 1
        }
        if let mark {
            try records.publish(mark, by: membership.device, circle: membership.circle.recovery.identifier)
            state.lastWritten = mark
        }
        return finished
    }

    /// Checks each member's high-water mark (this device's own from its state): no older than one seen before, and
    /// the last record it names still held at that version or a newer one (a tombstone's may be gone once expired).
    ///
    /// - Throws: `verifyFailed` when not: the server dropped a record, or went back to an earlier copy.
    private mutating func checkHighWaterMarks(records: SyncRecordStore) throws(KeychainError) {
        let circle = membership.circle
        var marks = try records.marks(of: circle.signingKeys, circle: circle.recovery.identifier)
        let own = state.lastWritten
        for mark in marks {
            let seen = mark.device == own?.device ? own?.sequence : state.marksSeen[mark.device]
            guard mark.sequence >= seen ?? 0 else {
                throw KeychainError(
                    .verifyFailed,
                    "the server sent an older high-water mark of \(Self.name(of: mark.device, in: circle)) than one "
                        + "already seen: it went back to an earlier copy")
            }
            if mark.device != own?.device { state.marksSeen[mark.device] = mark.sequence }
        }
        if let own {
            marks.removeAll { $0.device == own.device }
            marks.append(own)
        }
        for mark in marks where !mayHaveExpiredElsewhere(mark.modified) {
            guard let held = try records.version(of: mark.record), held >= mark.version else {
                throw KeychainError(
                    .verifyFailed,
                    "the server no longer holds version \(mark.version) of the last record "
                        + "\(Self.name(of: mark.device, in: circle)) wrote: it dropped it, or went back to an earlier copy"
                )
            }
        }
    }

    /// The local items changed since they last agreed with the server, by record identifier.
    private func localChanges(of local: some SyncLocalItems) throws(KeychainError) -> [[UInt8]: SyncedItem] {
        guard let keys = membership.currentKeys else { return [:] }
        var changed: [[UInt8]: SyncedItem] = [:]
        for item in try local.itemsToSync() {
            let identifier = SyncRecordIdentifier.of(item.itemClass, attributes: item.attributes, keys: keys)
            if !isExpired(item), try state.agreed[identifier] != fingerprint(of: item) { changed[identifier] = item }
        }
        return changed
    }

    /// What tells that `item` changed since it last agreed with the server: HMAC-SHA256 of the whole item, time
    /// included, under the circle's identifier key (keyed, so that the state kept on disk allows no guessing of a
    /// secret).
    private func fingerprint(of item: SyncedItem) throws(KeychainError) -> [UInt8] {
        guard let keys = membership.currentKeys else {
            throw KeychainError(.notAvailable, "this device does not hold the circle's current sync keys")
        }
        return keys.fingerprint(of: item)
    }

    /// How a message names the device `identifier` of `circle`.
    private static func name(of identifier: [UInt8], in circle: SyncCircle) -> String {
        circle.member(identifier).map { "device '\($0.name)'" } ?? "a device"
    }

    /// True when a tombstone made at `modified` may have expired on some device: older than `tombstoneLifetime` less
    /// `clockAllowance` (a device whose clock runs ahead may already have removed it from the server).
    private func mayHaveExpiredElsewhere(_ modified: Int64) -> Bool {
        now() - modified > Self.tombstoneLifetime - Self.clockAllowance
    }

    /// True for a tombstone older than `tombstoneLifetime`.
    private func isExpired(_ item: SyncedItem) -> Bool {
        item.isTombstone && now() - item.modified > Self.tombstoneLifetime
    }

    /// True for an error applying a change that no later round would avoid: the item itself is refused, not the
    /// moment (a locked keychain, a full disk, a lost server are retried).
    public static func refusesForGood(_ error: KeychainError) -> Bool {
        [.param, .noSuchAttribute, .dataTooLarge, .decode].contains(error.code)
    }

    /// True when a change made at `time` by `writer` replaces a local one made at `localTime`: the newer wins, and at
    /// the same time the greater device identifier.
    static func wins(_ time: Int64, writer: [UInt8], over localTime: Int64, ownWriter: [UInt8]) -> Bool {
        time != localTime ? time > localTime : ownWriter.lexicographicallyPrecedes(writer)
    }
}
