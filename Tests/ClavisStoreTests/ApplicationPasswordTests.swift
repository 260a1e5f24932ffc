import ClavisCore
import ClavisCrypto
import FoundationEssentials
import Testing

@testable import ClavisStore

/// Items whose access control has `applicationPassword`: their secret is sealed under a key derived from a password
/// the caller gives, on top of the item key.
@Suite struct ApplicationPasswordTests {
    let temporary = TemporaryHome()
    let enrolment = Data("enrolled: left-thumb".utf8)

    /// A keychain with a passcode recorded with the cheap KDF, which application passwords then use too.
    private func keychain() throws -> Keychain {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        return keychain
    }

    private func item(_ account: String, _ flags: AccessControl.Flags, password: String?) -> NewItem {
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: flags)
        var item = NewItem(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("svc"),
                .accessible: .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
                .accessControl: .data(policy.encoded),
            ],
            secret: "secret-\(account)".secret)
        item.authentication = password.map { AuthenticationProof(applicationPassword: $0.secret) }
        return item
    }

    private func read(_ keychain: Keychain, _ account: String, _ proof: AuthenticationProof?) throws -> String? {
        var lookup = query(account: account)
        lookup.authentication = proof
        return try keychain.find(lookup).resultOrThrow().first?.secret?.string
    }

    private func withPassword(_ text: String) -> AuthenticationProof {
        AuthenticationProof(applicationPassword: text.secret)
    }

    @Test func anAddWithoutThePasswordIsRefusedNamingItAndStoresNothing() throws {
        let keychain = try keychain()
        do {
            _ = try keychain.add(item("a", .applicationPassword, password: nil)).resultOrThrow()
            Issue.record("added without its application password")
        } catch {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.pendingAccessControl?.flags == .applicationPassword)
        }
        #expect(try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow().isEmpty)
    }

    @Test func theSecretOpensWithThePasswordOnlyWhileAttributesNeedNone() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", .applicationPassword, password: "open sesame")).resultOrThrow()
        #expect(try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow().count == 1)
        do {
            _ = try read(keychain, "a", nil)
            Issue.record("read without the application password")
        } catch let error as KeychainError {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.pendingAccessControl?.usesApplicationPassword == true)
        }
        #expect(status { try read(keychain, "a", withPassword("open sesame!")) } == .authFailed)
        #expect(status { try read(keychain, "a", AuthenticationProof(passcode: true)) } == .interactionNotAllowed)
        #expect(try read(keychain, "a", withPassword("open sesame")) == "secret-a")
    }

    @Test func itComesInAdditionToAConstraintWithoutAConjunction() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", [.biometryAny, .applicationPassword], password: "pw")).resultOrThrow()
        #expect(
            status { try read(keychain, "a", AuthenticationProof(biometryEnrolment: enrolment)) }
                == .interactionNotAllowed)
        #expect(status { try read(keychain, "a", withPassword("pw")) } == .interactionNotAllowed)
        let both = AuthenticationProof(biometryEnrolment: enrolment, applicationPassword: "pw".secret)
        #expect(try read(keychain, "a", both) == "secret-a")
    }

    @Test func anUpdateNeedsThePasswordAndKeepsTheSecretSealedUnderIt() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", .applicationPassword, password: "pw")).resultOrThrow()
        let label = ItemChanges(attributes: [.label: .string("renamed")])
        #expect(
            status { try keychain.update(query(account: "a"), with: label).resultOrThrow() } == .interactionNotAllowed)
        var authenticated = query(account: "a")
        authenticated.authentication = withPassword("pw")
        #expect(try keychain.update(authenticated, with: label).resultOrThrow() == 1)
        #expect(try keychain.update(authenticated, with: ItemChanges(secret: "changed".secret)).resultOrThrow() == 1)
        #expect(status { try read(keychain, "a", withPassword("other")) } == .authFailed)
        #expect(try read(keychain, "a", withPassword("pw")) == "changed")
    }

    @Test func aDeleteNeedsNoPassword() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", .applicationPassword, password: "pw")).resultOrThrow()
        #expect(try keychain.delete(query(account: "a")).resultOrThrow() == 1)
        #expect(try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow().isEmpty)
    }

    @Test func neitherThePasswordNorTheSecretIsInTheDatabase() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", .applicationPassword, password: "marker-password-4711")).resultOrThrow()
        #expect(try read(keychain, "a", withPassword("marker-password-4711")) == "secret-a")
        let database = temporary.contents(of: "keychain.db") + temporary.contents(of: "keychain.db-wal")
        for marker in ["marker-password-4711", "secret-a"] {
            #expect(!database.containsBytes(Array(marker.utf8)), "\(marker) found in the database")
        }
    }

    /// Whoever holds the device key and the class keys (opening the item key's layer as the engine does) still
    /// finds only a sealed blob, which the password opens.
    @Test func underTheItemKeyTheSecretIsStillSealedByThePassword() throws {
        let keychain = try keychain()
        _ = try keychain.add(item("a", .applicationPassword, password: "pw")).resultOrThrow()
        try keychain.unlock(passcode: "1234".secret)
        let engine = try KeychainEngine(
            home: temporary.home,
            deviceKeyProvider: DeviceKeyFile(path: temporary.home.deviceKeyPath) { SecureBytes([]) })
        try engine.unlock(passcode: "1234".secret)
        var rows: [ItemRow] = []
        try engine.connection.forEachRow("SELECT \(ItemRow.columns) FROM items") { row in
            rows.append(try ItemRow(row: row, itemClass: .genericPassword))
            return true
        }
        let row = try #require(rows.first)
        let classKey = try #require(try engine.openClassKey(for: row.binding.protection))
        let itemKey = try engine.sealer.itemKey(storedKey: row.storedKey, classKey: classKey, binding: row.binding)
        let inner = try engine.sealer.openSecret(row.sealedSecret, itemKey: itemKey, binding: row.binding)
        let bytes = inner.unprotectedBytes()
        #expect(bytes.starts(with: Array("cap1".utf8)))
        #expect(!bytes.containsBytes(Array("secret-a".utf8)))
        let reference = row.binding.persistentReference
        #expect(
            try ApplicationPasswordSealer.open(inner, password: "pw".secret, reference: reference).string == "secret-a")
        #expect(
            status { try ApplicationPasswordSealer.open(inner, password: "pW".secret, reference: reference) }
                == .authFailed)
        // Bound to its item: the same blob under another reference does not open.
        let other = PersistentReference(bytes: reference.bytes.reversed())
        #expect(
            status { try ApplicationPasswordSealer.open(inner, password: "pw".secret, reference: other) } == .authFailed
        )
    }
}
