import ClavisCore
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct ItemOperationTests {
    let temporary = TemporaryHome()

    @Test func addedItemReadsBackWithItsSecretAndAttributes() throws {
        let keychain = try temporary.open()
        let stored = try keychain.add(password(account: "alice", secret: "token-1")).resultOrThrow()
        let found = try keychain.find(query(account: "alice")).resultOrThrow()
        #expect(found.count == 1)
        #expect(found[0].secret?.string == "token-1")
        #expect(found[0].attributes[.account] == .string("alice"))
        #expect(found[0].protection == .whenUnlocked)
        #expect(found[0].isSynchronizable == false)
        #expect(found[0].persistentReference == stored.persistentReference)
        #expect(found[0].attributes[.creationDate] != nil)
        #expect(found[0].attributes[.creationDate] == found[0].attributes[.modificationDate])
    }

    @Test func secondAddWithSamePrimaryKeyIsDuplicate() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "alice")).resultOrThrow()
        #expect(
            status { try keychain.add(password(account: "alice", secret: "other")).resultOrThrow() } == .duplicateItem)
        #expect(status { try keychain.add(password(account: "alice", service: "svc2")).resultOrThrow() } == nil)
        #expect(
            status { try keychain.add(password(account: "Alice")).resultOrThrow() } == nil, "matching is case-sensitive"
        )
        #expect(
            status {
                try keychain.add(password(account: "alice", [.accessGroup: .string("other.group")])).resultOrThrow()
            } == nil,
            "the access group is part of the primary key")
    }

    @Test func missingPrimaryKeyAttributesCountAsEmpty() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(
            NewItem(itemClass: .genericPassword, attributes: [.service: .string("s")], secret: "a".secret)
        ).resultOrThrow()
        let duplicate = NewItem(
            itemClass: .genericPassword, attributes: [.service: .string("s"), .account: .string("")], secret: "b".secret
        )
        #expect(status { try keychain.add(duplicate).resultOrThrow() } == .duplicateItem)
        let found = try keychain.find(
            ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("")], returnsSecret: true)
        ).resultOrThrow()
        #expect(found.map { $0.secret?.string } == ["a"])
    }

    @Test func internetPasswordsAreUniqueOverServerProtocolPortAndPath() throws {
        let keychain = try temporary.open()
        func site(_ port: Int64, _ path: String) -> NewItem {
            NewItem(
                itemClass: .internetPassword,
                attributes: [
                    .account: .string("bob"), .server: .string("example.com"), .protocol: .string("htps"),
                    .port: .number(port), .path: .string(path), .authenticationType: .string("dflt"),
                ], secret: "pw".secret)
        }
        _ = try keychain.add(site(443, "/")).resultOrThrow()
        #expect(status { try keychain.add(site(443, "/")).resultOrThrow() } == .duplicateItem)
        _ = try keychain.add(site(8443, "/")).resultOrThrow()
        _ = try keychain.add(site(443, "/admin")).resultOrThrow()
        let all = try keychain.find(
            ItemQuery(itemClass: .internetPassword, attributes: [.server: .string("example.com")])
        ).resultOrThrow()
        #expect(all.count == 3)
        let one = try keychain.find(ItemQuery(itemClass: .internetPassword, attributes: [.port: .number(8443)]))
            .resultOrThrow()
        #expect(one.count == 1)
    }

    @Test func findReturnsEmptyWhenNothingMatchesAndHonoursLimitAndInsertionOrder() throws {
        let keychain = try temporary.open()
        #expect(try keychain.find(query(account: "nobody")).resultOrThrow().isEmpty)
        for name in ["c", "a", "b"] {
            _ = try keychain.add(password(account: name)).resultOrThrow()
        }
        let all = try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow()
        #expect(all.map { $0.attributes[.account] } == [.string("c"), .string("a"), .string("b")])
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword, limit: .one)).resultOrThrow().count == 1)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword, limit: .count(2))).resultOrThrow().count == 2)
        #expect(all.allSatisfy { $0.secret == nil }, "secrets are decrypted only when asked for")
    }

    @Test func updateChangesSecretAndAttributesAndRefreshesModificationDate() throws {
        let keychain = try temporary.open()
        let original = try keychain.add(password(account: "alice", secret: "old")).resultOrThrow()
        let changed = try keychain.update(
            query(account: "alice"), with: ItemChanges(attributes: [.label: .string("Work")], secret: "new".secret)
        ).resultOrThrow()
        #expect(changed == 1)
        let found = try #require(try keychain.find(query(account: "alice")).resultOrThrow().first)
        #expect(found.secret?.string == "new")
        #expect(found.attributes[.label] == .string("Work"))
        #expect(found.persistentReference == original.persistentReference)
        #expect(found.attributes[.creationDate] == original.attributes[.creationDate])
        guard case .date(let modified) = found.attributes[.modificationDate],
            case .date(let created) = found.attributes[.creationDate]
        else {
            Issue.record("dates missing")
            return
        }
        #expect(modified >= created)
        let byLabel = try keychain.find(ItemQuery(itemClass: .genericPassword, attributes: [.label: .string("Work")]))
            .resultOrThrow()
        #expect(byLabel.count == 1, "the label index follows an update")
    }

    @Test func updateThatCollidesIsDuplicateAndChangesNothing() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "alice", secret: "a")).resultOrThrow()
        _ = try keychain.add(password(account: "bob", secret: "b")).resultOrThrow()
        let result = status {
            try keychain.update(query(account: "bob"), with: ItemChanges(attributes: [.account: .string("alice")]))
                .resultOrThrow()
        }
        #expect(result == .duplicateItem)
        #expect(try keychain.find(query(account: "bob")).resultOrThrow().first?.secret?.string == "b")
        #expect(try keychain.find(query(account: "alice")).resultOrThrow().first?.secret?.string == "a")
    }

    @Test func updateAndDeleteActOnEveryMatch() throws {
        let keychain = try temporary.open()
        for name in ["a", "b", "c"] {
            _ = try keychain.add(password(account: name, service: "shared")).resultOrThrow()
        }
        _ = try keychain.add(password(account: "d", service: "other")).resultOrThrow()
        let sharedQuery = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("shared")])
        #expect(
            try keychain.update(sharedQuery, with: ItemChanges(attributes: [.comment: .string("x")])).resultOrThrow()
                == 3)
        #expect(try keychain.delete(sharedQuery).resultOrThrow() == 3)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 1)
        #expect(try keychain.delete(sharedQuery).resultOrThrow() == 0)
    }

    @Test func readByPersistentReferenceAlone() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        let stored = try keychain.add(password(account: "b", secret: "bee")).resultOrThrow()
        let found = try keychain.find(
            ItemQuery(itemClass: .genericPassword, persistentReference: stored.persistentReference, returnsSecret: true)
        ).resultOrThrow()
        #expect(found.map { $0.secret?.string } == ["bee"])
    }

    @Test func synchronizableItemsAreSeenOnlyWhenAskedForAndLeaveTombstones() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "local")).resultOrThrow()
        _ = try keychain.add(password(account: "synced", [.synchronizable: .bool(true)])).resultOrThrow()
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 1)
        #expect(
            try keychain.find(ItemQuery(itemClass: .genericPassword, synchronizable: .yes)).resultOrThrow().count == 1)
        #expect(
            try keychain.find(ItemQuery(itemClass: .genericPassword, synchronizable: .any)).resultOrThrow().count == 2)
        let synced = ItemQuery(
            itemClass: .genericPassword, attributes: [.account: .string("synced")], synchronizable: .yes)
        #expect(try keychain.delete(synced).resultOrThrow() == 1)
        #expect(
            try keychain.find(ItemQuery(itemClass: .genericPassword, synchronizable: .any)).resultOrThrow().count == 1)
        let rows = try StoreInspector(temporary.home).tombstoneCount()
        #expect(rows == 1)
        _ = try keychain.add(password(account: "synced", [.synchronizable: .bool(true)])).resultOrThrow()
    }

    @Test func synchronizableThisDeviceOnlyIsStoredAndNeverLeavesTheDevice() throws {
        let keychain = try temporary.open()
        let item = password(account: "a", [.synchronizable: .bool(true), .accessible: .string("aku")])
        let added = try keychain.add(item).resultOrThrow()
        #expect(added.isSynchronizable && added.protection == .whenUnlockedThisDeviceOnly)
        let (_, summary) = try keychain.exportBackup(passphrase: "p".secret, kdf: .cheapForTesting())
        #expect(summary.exported == 0)
        #expect(summary.thisDeviceOnly == 1)
    }

    @Test func emptySecretIsStoredAndReadBack() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "empty", secret: "")).resultOrThrow()
        let found = try keychain.find(query(account: "empty")).resultOrThrow()
        #expect(found.first?.secret?.count == 0)
    }

    @Test func badInputGivesTypedErrorsAndWritesNothing() throws {
        let keychain = try temporary.open()
        #expect(
            status { try keychain.add(password(account: "a", [.port: .number(1)])).resultOrThrow() } == .noSuchAttribute
        )
        #expect(status { try keychain.add(password(account: "a", [.label: .date(Date())])).resultOrThrow() } == .param)
        #expect(
            status { try keychain.add(password(account: "a", [.accessible: .string("zz")])).resultOrThrow() } == .param)
        #expect(
            status {
                try keychain.add(NewItem(itemClass: .identity, attributes: [:], secret: "k".secret)).resultOrThrow()
            }
                == .unimplemented
        )
        let huge = NewItem(
            itemClass: .genericPassword, attributes: [.account: .string("big")],
            secret: SecureBytes(count: KeychainLimits.secretBytes + 1) { _ in })
        #expect(status { try keychain.add(huge).resultOrThrow() } == .dataTooLarge)
        let longAttribute = password(account: String(repeating: "x", count: KeychainLimits.attributeValueBytes + 1))
        #expect(status { try keychain.add(longAttribute).resultOrThrow() } == .dataTooLarge)
        #expect(
            status {
                try keychain.find(ItemQuery(itemClass: .genericPassword, attributes: [.server: .string("x")]))
                    .resultOrThrow()
            }
                == .noSuchAttribute)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().isEmpty)
        let oneMiB = NewItem(
            itemClass: .genericPassword, attributes: [.account: .string("mib")],
            secret: SecureBytes(count: 1024 * 1024) { $0.initializeMemory(as: UInt8.self, repeating: 7) })
        _ = try keychain.add(oneMiB).resultOrThrow()
        let mib = try keychain.find(
            ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("mib")], returnsSecret: true)
        ).resultOrThrow()
        #expect(mib.first?.secret?.count == 1024 * 1024)
        #expect(try StoreInspector(temporary.home).integrityCheck() == "ok")
    }

    @Test func atomicBatchAddStoresNothingWhenOneItemFails() throws {
        let keychain = try temporary.open()
        let batch = [password(account: "a"), password(account: "b"), password(account: "a")]
        #expect(status { try keychain.add(contentsOf: batch).resultOrThrow() } == .duplicateItem)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().isEmpty)
    }

    @Test func primaryKeyLookupAcrossGroupsAndSyncStatesFindsEachMatch() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", secret: "one", [.accessGroup: .string("team.one")])).resultOrThrow()
        _ = try keychain.add(
            password(account: "a", secret: "two", [.accessGroup: .string("team.two"), .synchronizable: .bool(true)])
        ).resultOrThrow()
        _ = try keychain.add(password(account: "a", secret: "three", [.accessGroup: .string("team.three")]))
            .resultOrThrow()
        var lookup = query(account: "a")
        lookup.limit = .all
        lookup.accessGroups = ["team.one", "team.two"]
        #expect(try keychain.find(lookup).resultOrThrow().map { $0.secret?.string } == ["one"])
        lookup.synchronizable = .any
        #expect(try keychain.find(lookup).resultOrThrow().map { $0.secret?.string } == ["one", "two"])
        lookup.accessGroups = ["team.three"]
        #expect(try keychain.find(lookup).resultOrThrow().map { $0.secret?.string } == ["three"])
    }

    @Test func accessGroupsNarrowQueries() throws {
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "a", [.accessGroup: .string("team.one")])).resultOrThrow()
        _ = try keychain.add(password(account: "b", [.accessGroup: .string("team.two")])).resultOrThrow()
        let one = try keychain.find(ItemQuery(itemClass: .genericPassword, accessGroups: ["team.one"])).resultOrThrow()
        #expect(one.map(\.accessGroup) == ["team.one"])
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword, accessGroups: [])).resultOrThrow().isEmpty)
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 2)
    }
}
