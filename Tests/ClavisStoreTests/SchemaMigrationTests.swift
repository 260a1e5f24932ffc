import ClavisCore
import ClavisSQLite
import FoundationEssentials
import Glibc
import Testing

@testable import ClavisStore

/// A keychain written by schema version 1 (16-byte lookup digests, boxes with stored nonces) opens, migrates in place
/// and reads every item.
@Suite struct SchemaMigrationTests {
    let temporary = TemporaryHome()

    @Test func aVersionOneKeychainMigratesAndReadsEveryItem() throws {
        try VersionOneKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer
                == Int64(Schema.migrator.latestVersion))
        // The old table's pages went back to the file system.
        #expect(try inspector.connection.scalar("PRAGMA freelist_count")?.integer == 0)
        #expect(
            try inspector.connection.scalar(
                "SELECT count(*) FROM items WHERE length(primary_digest) != 16 OR sealing != 0")?
                .integer == 0)
        let entries = [
            "items_access_group": 5, "items_account": 5, "items_service": 4, "items_server": 1, "items_label": 2,
        ]
        for (table, count) in entries {
            #expect(
                try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == Int64(count), "\(table)")
            let length = table == "items_access_group" ? 8 : 4
            #expect(
                try inspector.connection.scalar("SELECT count(*) FROM \(table) WHERE length(digest) != \(length)")?
                    .integer == 0)
        }
        let accounts = [("alice", "mail.example"), ("bob", "mail.example"), ("erin", "vpn"), ("dave", "vpn")]
        for (account, service) in accounts {
            let found = try keychain.find(query(account: account, service: service)).resultOrThrow()
            #expect(found.count == 1, "\(account)")
            #expect(found.first?.secret?.string == VersionOneKeychain.secrets[account], "\(account)")
        }
        var byGroup = query(account: "alice", service: "mail.example")
        byGroup.accessGroups = ["clavis"]
        #expect(try keychain.find(byGroup).resultOrThrow().first?.attributes[.label] == .string("Mail"))
        #expect(try keychain.explain(byGroup).contains { $0.contains("items_primary_key") })
        // A row sealed before the primary-key-bound format is read for its secret alone by opening its attributes.
        var secretOnly = byGroup
        secretOnly.returnsAttributes = false
        #expect(
            try keychain.find(secretOnly).resultOrThrow().first?.secret?.string == VersionOneKeychain.secrets["alice"])
        let listing = try keychain.find(ItemQuery(itemClass: .genericPassword, limit: .all, returnsSecret: true))
            .resultOrThrow()
        #expect(listing.compactMap { $0.attributes[.account]?.stringValue } == ["alice", "bob", "erin", "dave"])
        let labelled = ItemQuery(itemClass: .genericPassword, attributes: [.label: .string("Erin VPN")])
        #expect(try keychain.find(labelled).resultOrThrow().count == 1)
        let server = ItemQuery(
            itemClass: .internetPassword, attributes: [.server: .string("example.com")], returnsSecret: true)
        #expect(try keychain.find(server).resultOrThrow().first?.secret?.string == "secret-carol")
        #expect(try keychain.explain(server).contains { $0.contains("items_server") })
        let carol = try #require(try keychain.find(server).resultOrThrow().first)
        #expect(carol.persistentReference.bytes.starts(with: Array("inet".utf8)))
        let byReference = ItemQuery(
            itemClass: .internetPassword, persistentReference: carol.persistentReference, returnsSecret: true)
        #expect(try keychain.find(byReference).resultOrThrow().first?.secret?.string == "secret-carol")
        #expect(try keychain.explain(byReference).contains { $0.contains("items_reference") })
        let asGeneric = ItemQuery(itemClass: .genericPassword, persistentReference: carol.persistentReference)
        #expect(try keychain.find(asGeneric).resultOrThrow().isEmpty)
    }

    @Test func migratedItemsKeepTheirUniquenessAndTakeTheNewFormatWhenWritten() throws {
        let inGroup: [AttributeKey: AttributeValue] = [.accessGroup: .string("clavis")]
        try VersionOneKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        #expect(
            status { try keychain.add(password(account: "alice", service: "mail.example", inGroup)).resultOrThrow() }
                == .duplicateItem)
        let changed = try keychain.update(
            query(account: "bob", service: "mail.example", returnsSecret: false),
            with: ItemChanges(secret: "changed".secret)
        ).resultOrThrow()
        #expect(changed == 1)
        _ = try keychain.add(password(account: "frank", service: "vpn", secret: "secret-frank", inGroup))
            .resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        #expect(try inspector.connection.scalar("SELECT count(*) FROM items WHERE sealing = 3")?.integer == 2)
        #expect(
            try keychain.find(query(account: "bob", service: "mail.example")).resultOrThrow().first?.secret?.string
                == "changed")
        #expect(
            try keychain.find(query(account: "frank", service: "vpn")).resultOrThrow().first?.secret?.string
                == "secret-frank")
        #expect(
            try keychain.find(query(account: "erin", service: "vpn")).resultOrThrow().first?.secret?.string
                == "secret-erin")
        #expect(
            try keychain.delete(query(account: "alice", service: "mail.example", returnsSecret: false)).resultOrThrow()
                == 1)
        _ = try keychain.add(password(account: "alice", service: "mail.example", secret: "again", inGroup))
            .resultOrThrow()
        #expect(
            try keychain.find(query(account: "alice", service: "mail.example")).resultOrThrow().first?.secret?.string
                == "again")
    }

    @Test func aVersionTwoKeychainGainsTheKeyLookupsAndFindsKeysByTagAndApplicationLabel() throws {
        // A keychain at version 2 is today's without version 3's two tables and the later ones (version 6 shortens
        // digests already short).
        _ = try temporary.open().add(password(account: "alice", secret: "secret-alice")).resultOrThrow()
        try StoreInspector(temporary.home).connection.executeScript(
            """
            DROP TABLE items_application_label; DROP TABLE items_application_tag;
            DROP TABLE items_public_key_hash; DROP TABLE items_subject; DROP TABLE items_secret_service_attribute;
            DELETE FROM schema_version WHERE version >= 3;
            """)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer
                == Int64(Schema.migrator.latestVersion))
        let tag = AttributeValue.data(Data("com.example.key".utf8))
        let hash = AttributeValue.data(Data(repeating: 0x5A, count: 20))
        for (keyClass, tagged) in [(1, true), (0, true), (1, false)] as [(Int64, Bool)] {
            var attributes: [AttributeKey: AttributeValue] = [
                .keyClass: .number(keyClass), .keyType: .number(73), .applicationLabel: hash,
            ]
            if tagged { attributes[.applicationTag] = tag }
            _ = try keychain.add(
                NewItem(itemClass: .key, attributes: attributes, secret: SecureBytes([UInt8(keyClass)]))
            ).resultOrThrow()
        }
        // Every key is filed under its hash and tag (an absent tag, part of the primary key, under the empty one).
        for table in ["items_application_label", "items_application_tag"] {
            #expect(try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == 3, "\(table)")
        }
        let byTag = ItemQuery(
            itemClass: .key, attributes: [.applicationTag: tag, .keyClass: .number(1)], returnsSecret: true)
        #expect(try keychain.find(byTag).resultOrThrow().map { $0.secret?.withUnsafeBytes { Array($0) } } == [[1]])
        #expect(try keychain.explain(byTag).contains { $0.contains("items_application_tag") })
        let byHash = ItemQuery(itemClass: .key, attributes: [.applicationLabel: hash])
        #expect(try keychain.find(byHash).resultOrThrow().count == 3)
        #expect(try keychain.explain(byHash).contains { $0.contains("items_application_label") })
        #expect(
            try keychain.delete(ItemQuery(itemClass: .key, attributes: [.applicationTag: tag])).resultOrThrow() == 2)
        #expect(try inspector.connection.scalar("SELECT count(*) FROM items_application_tag")?.integer == 1)
        #expect(try keychain.find(query(account: "alice")).resultOrThrow().first?.secret?.string == "secret-alice")
    }

    @Test func aVersionThreeKeychainGainsTheCertificateLookupsAndFindsCertificatesByHashAndSubject() throws {
        // A keychain at version 3 is today's without the tables of versions 4 and 5.
        _ = try temporary.open().add(password(account: "alice", secret: "secret-alice")).resultOrThrow()
        try StoreInspector(temporary.home).connection.executeScript(
            """
            DROP TABLE items_public_key_hash; DROP TABLE items_subject; DROP TABLE items_secret_service_attribute;
            DELETE FROM schema_version WHERE version >= 4;
            """)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer
                == Int64(Schema.migrator.latestVersion))
        let hash = AttributeValue.data(Data(repeating: 0x5A, count: 20))
        for serial in [1, 2] as [UInt8] {
            let attributes: [AttributeKey: AttributeValue] = [
                .certificateType: .number(3), .issuer: .data(Data([0x30, 0])), .serialNumber: .data(Data([serial])),
                .publicKeyHash: serial == 1 ? hash : .data(Data(repeating: 0x11, count: 20)),
                .subject: .data(Data([0x31, serial])),
            ]
            _ = try keychain.add(
                NewItem(itemClass: .certificate, attributes: attributes, secret: SecureBytes([serial]))
            ).resultOrThrow()
        }
        for table in ["items_public_key_hash", "items_subject"] {
            #expect(try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == 2, "\(table)")
        }
        let byHash = ItemQuery(itemClass: .certificate, attributes: [.publicKeyHash: hash], returnsSecret: true)
        #expect(try keychain.find(byHash).resultOrThrow().map { $0.secret?.withUnsafeBytes { Array($0) } } == [[1]])
        #expect(try keychain.explain(byHash).contains { $0.contains("items_public_key_hash") })
        let bySubject = ItemQuery(
            itemClass: .certificate, attributes: [.subject: .data(Data([0x31, 2]))], returnsSecret: true)
        #expect(try keychain.find(bySubject).resultOrThrow().map { $0.secret?.withUnsafeBytes { Array($0) } } == [[2]])
        #expect(try keychain.explain(bySubject).contains { $0.contains("items_subject") })
        #expect(try keychain.delete(byHash).resultOrThrow() == 1)
        for table in ["items_public_key_hash", "items_subject"] {
            #expect(try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == 1, "\(table)")
        }
        #expect(try keychain.find(query(account: "alice")).resultOrThrow().first?.secret?.string == "secret-alice")
    }

    /// Rows sealed in format 1 (a random item key, wrapped) still open beside new ones, and every write (an add, an
    /// update, a tombstone) seals in format 2: a fresh 16-byte salt the item key is derived from.
    @Test func formerFormatRowsStillOpenAndEveryWriteSealsWithAFreshSalt() throws {
        try VersionFiveKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        try expectEveryVersionFiveItemReads(keychain)
        let alice = try #require(
            try keychain.find(query(account: "alice", service: "mail.example")).resultOrThrow().first)
        #expect(alice.attributes[.modificationDate] == alice.attributes[.creationDate])
        let bob = try #require(try keychain.find(query(account: "bob", service: "mail.example")).resultOrThrow().first)
        #expect(bob.attributes[.modificationDate] != bob.attributes[.creationDate])

        #expect(try inspector.connection.scalar("SELECT count(*) FROM items WHERE sealing = 1")?.integer == 7)
        let aliceRow = try #require(try inspector.itemIDs().first)
        var salts: Set<[UInt8]> = []
        for label in ["Mail 2", "Mail 3"] {
            let changed = try keychain.update(
                query(account: "alice", service: "mail.example", returnsSecret: false),
                with: ItemChanges(attributes: [.label: .string(label)])
            ).resultOrThrow()
            #expect(changed == 1)
            salts.insert(try inspector.blob("wrapped_key", id: aliceRow))
        }
        #expect(salts.count == 2 && salts.allSatisfy { $0.count == 16 })
        _ = try keychain.add(password(account: "grace", service: "vpn", secret: "secret-grace")).resultOrThrow()
        var dave = query(account: "dave", service: "vpn", returnsSecret: false)
        dave.synchronizable = .yes
        #expect(try keychain.delete(dave).resultOrThrow() == 1)
        let rows = try inspector.connection.rows(
            "SELECT sealing, length(wrapped_key), tombstone FROM items ORDER BY id")
        #expect(
            rows.map { [$0[0].integer, $0[1].integer, $0[2].integer] } == [
                [3, 16, 0], [1, 40, 0], [1, 40, 0], [1, 40, 1], [1, 40, 0], [1, 40, 0], [3, 16, 0], [3, 16, 1],
            ])
        #expect(
            try keychain.find(query(account: "alice", service: "mail.example")).resultOrThrow().first?.attributes[
                .label]
                == .string("Mail 3"))
        #expect(
            try keychain.find(query(account: "grace", service: "vpn")).resultOrThrow().first?.secret?.string
                == "secret-grace")
        #expect(
            try keychain.find(query(account: "erin", service: "vpn")).resultOrThrow().first?.secret?.string
                == "secret-erin")
    }

    /// Migration 6 cuts every attribute lookup's digests to 4 bytes, keeping each entry (the access group's keep 8),
    /// and compacts the file; every lookup still finds its items through its index.
    @Test func aVersionFiveKeychainMigratesToShortLookupDigestsAndFindsEveryItem() throws {
        try VersionFiveKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        #expect(
            try inspector.connection.scalar("SELECT MAX(version) FROM schema_version")?.integer
                == Int64(Schema.migrator.latestVersion))
        #expect(try inspector.connection.scalar("PRAGMA freelist_count")?.integer == 0)
        let entries = [
            "items_access_group": 7, "items_account": 7, "items_service": 6, "items_server": 1, "items_label": 2,
            "items_secret_service_attribute": 2, "items_application_label": 0, "items_subject": 0,
        ]
        for (table, count) in entries {
            let length = table == "items_access_group" ? 8 : 4
            #expect(
                try inspector.connection.scalar("SELECT count(*) FROM \(table)")?.integer == Int64(count), "\(table)")
            #expect(
                try inspector.connection.scalar("SELECT count(*) FROM \(table) WHERE length(digest) != \(length)")?
                    .integer == 0, "\(table)")
        }
        try expectEveryVersionFiveItemReads(keychain)
        let byAccount = ItemQuery(itemClass: .genericPassword, attributes: [.account: .string("erin")])
        #expect(try keychain.explain(byAccount).contains { $0.contains("items_account") })
        let byPair = ItemQuery(itemClass: .genericPassword, secretServiceAttributes: ["xdg:schema": "org.example"])
        #expect(try keychain.find(byPair).resultOrThrow().count == 1)
        #expect(try keychain.explain(byPair).contains { $0.contains("items_secret_service_attribute") })
        // New entries are filed at the new lengths beside the migrated ones.
        _ = try keychain.add(password(account: "grace", service: "vpn", [.accessGroup: .string("clavis")]))
            .resultOrThrow()
        let vpn = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("vpn")], limit: .all)
        #expect(
            try keychain.find(vpn).resultOrThrow().compactMap { $0.attributes[.account]?.stringValue } == [
                "erin", "grace",
            ])
        #expect(
            try keychain.delete(ItemQuery(itemClass: .genericPassword, accessGroups: ["clavis"])).resultOrThrow() == 5)
        #expect(
            try keychain.find(ItemQuery(itemClass: .genericPassword, synchronizable: .any)).resultOrThrow().count == 1)
    }

    /// Every item of `VersionFiveKeychain` reads, with its secret, by the lookups each was filed under.
    private func expectEveryVersionFiveItemReads(_ keychain: Keychain) throws {
        for (account, service) in [("alice", "mail.example"), ("bob", "mail.example"), ("erin", "vpn")] {
            let found = try keychain.find(query(account: account, service: service)).resultOrThrow()
            #expect(found.first?.secret?.string == VersionFiveKeychain.secrets[account], "\(account)")
        }
        var dave = query(account: "dave", service: "vpn")
        dave.synchronizable = .yes
        let daveItem = try #require(try keychain.find(dave).resultOrThrow().first)
        #expect(daveItem.secret?.string == "secret-dave")
        #expect(daveItem.attributes[.accessible] == .string("ck"))
        #expect(daveItem.attributes[.synchronizable] == .bool(true))
        let frank = ItemQuery(
            itemClass: .genericPassword, secretServiceAttributes: ["user": "frank"], returnsSecret: true)
        #expect(try keychain.find(frank).resultOrThrow().map { $0.secret?.string } == ["secret-frank"])
        let labelled = ItemQuery(
            itemClass: .genericPassword, attributes: [.label: .string("Erin VPN")], returnsSecret: true)
        #expect(try keychain.find(labelled).resultOrThrow().map { $0.secret?.string } == ["secret-erin"])
        let server = ItemQuery(
            itemClass: .internetPassword, attributes: [.server: .string("example.com")], returnsSecret: true)
        #expect(try keychain.find(server).resultOrThrow().map { $0.secret?.string } == ["secret-carol"])
        let inGroup = ItemQuery(
            itemClass: .genericPassword, synchronizable: .any, accessGroups: ["clavis"], limit: .all)
        #expect(
            try keychain.find(inGroup).resultOrThrow().compactMap { $0.attributes[.account]?.stringValue }
                == ["alice", "bob", "dave", "erin", "frank"])
    }

    @Test func alteringAMigratedItemStillBreaksOnlyThatItem() throws {
        try VersionOneKeychain.write(to: temporary.home)
        let keychain = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        var bytes = try inspector.blob("secret", id: id)
        bytes[bytes.count / 2] ^= 0x01
        try inspector.setBlob("secret", id: id, bytes)
        #expect(
            status { try keychain.find(query(account: "alice", service: "mail.example")).resultOrThrow() } == .decode)
        let bob = try keychain.find(query(account: "bob", service: "mail.example")).resultOrThrow()
        #expect(bob.first?.secret?.string == "secret-bob-2")
    }
}

/// A keychain as `clavis` wrote it at schema version 1 (`sqlite3 keychain.db .dump`, and its device key): four
/// generic passwords (a label; an update; protection classes `ck` and `dku`, with a comment and a generic attribute)
/// and one internet password, all in group "clavis"; one generic password was deleted and added again.
enum VersionOneKeychain {
    static let secrets = [
        "alice": "secret-alice", "bob": "secret-bob-2", "carol": "secret-carol", "dave": "secret-dave",
        "erin": "secret-erin",
    ]

    static func write(to home: KeychainHome) throws {
        try KeychainFixture.write(dump: dump, deviceKey: deviceKey, to: home)
    }

    static let deviceKey = "a5f8cfbf5bb5e6bb639ffc853c679feaed88ca3bf22613f0a2afcfeca3dc7c28"

    static let dump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version VALUES(1);
        CREATE TABLE settings (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        INSERT INTO settings VALUES('keybag_salt',X'e1e7b019d8504e23879b2b2cd8545084adf67636443f361ee6ee7c618c4de01a');
        CREATE TABLE keybag (class TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL) WITHOUT ROWID;
        INSERT INTO keybag VALUES('ak',X'ff7eb7ff661b33c979e7a0a5293d85595701c44ddc510bbfbb3894c81f838f9cb184ba2cccb09e05');
        INSERT INTO keybag VALUES('akpu',X'626f9e44b7cfdfae65422bcfc05279b142867668177d3d985ae58c868ef68c26b21e411c68a58a8c');
        INSERT INTO keybag VALUES('aku',X'6eb73f882b278fb4b6de3daab71cacde179759d0f0606522a02b92ffe5370a1fe010669ddd687939');
        INSERT INTO keybag VALUES('ck',X'0ab7284467b9bbef35b5b0ebf7ba81aad960bbb3124d4b26a799971a408ed30fd4d39ea8dd36266b');
        INSERT INTO keybag VALUES('cku',X'98c324dac90a51b5753c4abf8e0ce835c5bd2cac06c73ed880925a943731914cfcaf73b2d707bbed');
        INSERT INTO keybag VALUES('dk',X'3fc48930d295bf4ffff1a33a0fc5300e5094a3cb7926d33d71ecf985f23d22d3e6c0ea79245a9381');
        INSERT INTO keybag VALUES('dku',X'a1a96244a054f03042cfe2ca14b2daefaccabe0372c15cdcdfb26bef3a1327826916d72efd097cb5');
        CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            class TEXT NOT NULL,
            persistent_ref BLOB NOT NULL UNIQUE,
            protection TEXT NOT NULL,
            sync INTEGER NOT NULL,
            tombstone INTEGER NOT NULL DEFAULT 0,
            primary_digest BLOB NOT NULL,
            agrp_digest BLOB NOT NULL,
            acct_digest BLOB,
            svce_digest BLOB,
            srvr_digest BLOB,
            labl_digest BLOB,
            wrapped_key BLOB NOT NULL,
            attributes BLOB NOT NULL,
            secret BLOB NOT NULL
        );
        INSERT INTO items VALUES(1,'genp',X'67656e706e40c2e959d0c9fd7ab861aaecac2721','ak',0,0,X'f9f6bca5363de478736d62d375a4ff2b',X'99e0d56347ff9e831e4db7f4429846c8',X'f36dbd928b02cf27ec6cd97b4123c49f',X'bea260bb0320ff10414432103b796a4b',NULL,X'0144cc6c1f36b2c2eaf61270ac222ae9',X'e4b101d608bf416d491bdafcef54d899d3071d6d14b231273d88d735224e41731e65e2f10b1ca85b',X'cbfd7eb31fa90ba5ee360b3e82512e6861830af4fd68c646b1f91418b86cc59c3111c51049a1d9af6d9c63b2639314b662463c40e969a1f2ee1f8b6e0156d1dff45dcd95d22fe9211d72a702d52c779a0e80204c48e5aa4d70f10f69510ce1b16b5ae3956ab7b2dde06388053e3bfd00ed2e3596654700f72ca7d661263ab98eaa9a521dc7854097cac76c6913337d',X'a68e5fb1ee8c6abca3579e77a1eb14efdc82c0568b92004ea973222ff8ba2b55430d8c3dd3b4e921');
        INSERT INTO items VALUES(2,'genp',X'67656e70ed8b913f3c34e1698e5a7df794b76fb0','ak',0,0,X'f24d4cc353e96053138954c3e4359bf4',X'99e0d56347ff9e831e4db7f4429846c8',X'2f5606589671c7b99beac4f8c3d83485',X'bea260bb0320ff10414432103b796a4b',NULL,NULL,X'2c637f6d0770e6578fe79fd74b7803b4967381566611556ccd15add8fc8367e1fda29b36b781fa8b',X'7705be03f464b2386b297794b0fcedbe05bc74e6a693a15db8ec9cdb96ffbd443564723cf682b7ed7acaa1aa088a0097cfcc60ff0e5daa998eface7f974fb4e7cc96788c6061be14c77e41c9add326c12b1638bb140616bf7966723b792f12d7c0975ff6c519d3f107abf2040511a6c3a16bf22104cd83fa8945bac1826d48',X'97df43eff2311171155b65b06975d34de72b795f01ffcf66d09aa66dc4d371420c24bd104821b3a4');
        INSERT INTO items VALUES(3,'inet',X'696e6574ed639431f580223205481f451fb36bef','ak',0,0,X'73ee85c098a0153085e3e49b81b1d0cc',X'99e0d56347ff9e831e4db7f4429846c8',X'0210e2997aa9ae938a0753014c881baa',NULL,X'6463c985ce5f703904fbd7bfabd6da10',NULL,X'd4e9d4ccd68a5821aa4848b7382bf61b27ba15b0555ace2b07a5e95a86e906e5f5cf3069c7bb70d8',X'43b3dcf2806869a91660b127dfe4bac4b133f3dc77fea44a99ed3f4d4f8c436332c1db3072b9aa48c4cbf53e04dfdd1eeecb07bd3f8396c19baeca8a29e2d75b3f531b1c34a67d201b23016a0b1608e0bf039ab317fca9a682877337ae7eecc04dc3b9afd733fa39d44190e427066be915ad82d528bf0a2b23aaa65d74101ac0',X'61dda63c238e91f03b9029d4afdffc9f84990cffa5c2e4269e30da317e63730b671664f6bfe94dd1');
        INSERT INTO items VALUES(5,'genp',X'67656e701145f68a85e9ff75f126b0bf2950194d','ck',0,0,X'985085d66f6010a78dd45bb10b47b56a',X'99e0d56347ff9e831e4db7f4429846c8',X'7a4eaceb2390f8f95a34ceeff58c930b',X'4e2b1d6e45d08a1b19248eb220b27d4d',NULL,X'5eb59d3f786ee1c7bacf65493bd79be4',X'ab4496e0f05adcaa33f46d3ba4ba667f12d37476c048145a26c52cd085b6d7093923ef27dd0ad484',X'd5bc716809101918345b9f0a279b462acaefdabb315e67670f132b5d84fc24c4bbd65be772b63860b5cce7b518a916de297b1d67f5bbe462549bc9e988e606ca4438e2b84e7a7ef85dfac4a14c8805a7884ee5e3306cec9129ac4078cfe6850c8da4188c388dffa9334e00b21ebbd832a63501bca41847ca500fca79cd4b620b1f0be5d4fc7c39e11f',X'2b16ebda957c7b1b1b9c938db4e3be32f67f8c64f3b5db8b055a50d8edfb9cdfbce09a3b13ea2b');
        INSERT INTO items VALUES(6,'genp',X'67656e703849f2b80c34fcaf0323c6d446ba7e08','dku',0,0,X'2bbfc0653f1fd99249291992860a91e7',X'99e0d56347ff9e831e4db7f4429846c8',X'5fe7bb71e094c0c953757a804476d5b8',X'4e2b1d6e45d08a1b19248eb220b27d4d',NULL,NULL,X'690c568b12864432a63e4cf7ee562c0774bfd0dcaa736b2bba069ca285a23be2b56d0bd8016dca1a',X'bcb6edcc2a14e53ce72f77292f8df42b37b9a01ad16c191ae757859a4a1fd00e40b76c438ac91286534f05fbaf0515810db841fa2f8dbe0eab2a0d63a8c8c22029d151cc7681da50a844d776a768f314b473e7b2f117244ad6903059532ce14be0c41b54c0b83a0093d0c19d607d720d3dc5500576abadc361f281337a6471304f47c04a15ca5b24e0c89f7fb93ca2a571dbc7f6f067cbf0488f28eb',X'2b7524367a0be68193937bf2705589c5cc6fdac635c8887369f40cb84235d85242ecb4e14f7f66');
        CREATE UNIQUE INDEX items_primary_key ON items (class, primary_digest) WHERE tombstone = 0;
        CREATE INDEX items_account ON items (acct_digest);
        CREATE INDEX items_service ON items (svce_digest);
        CREATE INDEX items_server ON items (srvr_digest);
        CREATE INDEX items_label ON items (labl_digest);
        CREATE INDEX items_access_group ON items (agrp_digest);
        COMMIT;
        """
}
