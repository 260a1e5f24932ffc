internal import ClavisCore
internal import ClavisSQLite

extension Keychain {
    /// Runs the item write `body` in the next commit, with the writes that arrive beside it (`GroupCommit`), and
    /// returns once that commit is on disk: its answer, or its own error (another write's failure is not its own).
    /// `alone`: the write derives a key from an application password, and commits by itself.
    func write<Result: Sendable>(
        alone: Bool = false, _ body: @escaping (KeychainEngine) throws -> ServiceAnswer<Result>
    ) throws(KeychainError) -> ServiceAnswer<Result> {
        var answer: ServiceAnswer<Result>?
        let write = GroupCommit.Write(alone: alone) { engine in
            let result = try body(engine)
            answer = result
            if case .done = result { return true }
            return false
        }
        groupCommit.commit(write, commitTogether: commitTogether)
        if let failure = write.failure { throw KeychainError(converting: failure) }
        guard let answer else { throw KeychainError(.internal, "a write finished without an answer") }
        return answer
    }

    /// Commits `batch` under the engine's lock: a lone write in its own transaction, as it always was; several in
    /// one, each in a savepoint of its own, so that one that fails (a duplicate, a constraint, a full disk) is undone
    /// alone and the others commit. When SQLite had to roll back the whole transaction (a full disk, an I/O error),
    /// the failing write keeps its error and the others run again in a new one. When the commit itself fails (the
    /// disk fills at the flush), nothing of it is on disk: each write is then committed alone, for its own outcome.
    func commitTogether(_ batch: [GroupCommit.Write]) {
        engine.withLock { engine in
            defer { readers?.publish(from: engine) }
            engine.readPin?.giveUpIfForked()
            do {
                try engine.reopenForWritingIfRefused()
            } catch {
                for write in batch { write.failure = engine.refusal(for: error) }
                return
            }
            engine.readPin?.beforeWrite()
            var pending = batch
            while !pending.isEmpty {
                pending = commitOnce(pending, engine)
            }
        }
    }

    /// One attempt at committing `pending` together; the writes to run again in a new transaction (those rolled back
    /// with a write whose failure ended the whole transaction), empty when every write has its outcome.
    private func commitOnce(_ pending: [GroupCommit.Write], _ engine: KeychainEngine) -> [GroupCommit.Write] {
        let connection = engine.connection
        var ran: [GroupCommit.Write] = []
        var failedAlone: [GroupCommit.Write] = []
        var ending: GroupCommit.Write?
        do {
            if pending.count == 1 {
                ran = pending
                pending[0].wrote = try pending[0].run(engine)
            } else {
                try connection.transaction {
                    for write in pending {
                        do {
                            write.wrote = try connection.savepoint { try write.run(engine) }
                            ran.append(write)
                        } catch {
                            write.failure = engine.refusal(for: error)
                            failedAlone.append(write)
                            if !connection.isInTransaction {
                                ending = write
                                throw error
                            }
                        }
                    }
                }
            }
        } catch {
            if pending.count == 1 {
                pending[0].failure = engine.refusal(for: error)
                return []
            }
            // Every write of the transaction is undone, and one that failed alone may have failed because of another
            // (a duplicate of an item an earlier write added): each runs again but the one that ended it.
            if let ending {
                // Everything else runs again together in a new transaction.
                return pending.filter { $0 !== ending }
            }
            // BEGIN or COMMIT failed (a full disk at the flush, an I/O error): nothing of this transaction is on disk,
            // and which write was too much cannot be told. Each commits alone, so each has its own outcome.
            for write in pending { _ = commitOnce([write], engine) }
            return []
        }
        let wrote = ran.filter(\.wrote)
        committed.withLock { statistics in
            statistics.writes += wrote.count
            if !wrote.isEmpty { statistics.flushes += 1 }
        }
        if !wrote.isEmpty, engine.writeRefusal == nil {
            do {
                try engine.rollbackCounter?.recordWrite(connection)
            } catch {
                for write in wrote { write.failure = engine.refusal(for: error) }
            }
        }
        return []
    }

}
