import ClavisCore
import ClavisCrypto
import ClavisStore
import FoundationEssentials
import Testing

@Suite struct BackupTests {
    let device = TemporaryHome()
    let otherDevice = TemporaryHome()
    let passphrase = "correct horse battery".secret

    /// One item per protection class (account = class code), one synchronizable item, one item with an ACL.
    private func populated() throws -> Keychain {
        let keychain = try device.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        for protection in ProtectionClass.allCases {
            _ = try keychain.add(
                password(
                    account: protection.rawValue, secret: "BACKUP-SECRET-\(protection.rawValue)",
                    [.accessible: .string(protection.rawValue), .accessGroup: .string("team.app")])
            ).resultOrThrow()
        }
        _ = try keychain.add(password(account: "synced", secret: "s", [.synchronizable: .bool(true)])).resultOrThrow()
        let policy = AccessControl(protection: .whenUnlocked, flags: .userPresence)
        _ = try keychain.add(password(account: "guarded", secret: "g", [.accessControl: .data(policy.encoded)]))
            .resultOrThrow()
        return keychain
    }

    @Test func restoringOnAnotherDeviceBringsBackOnlyWhatMayTravel() throws {
        let (archive, summary) = try populated().exportBackup(passphrase: passphrase, kdf: .cheapForTesting())
        #expect(summary.exported == 4, "ak, ck, dk and the synchronizable item")
        #expect(summary.thisDeviceOnly == 4, "aku, cku, dku, akpu stay behind")
        #expect(summary.accessControlled == 1)

        let restoredKeychain = try otherDevice.open()
        let restored = try restoredKeychain.importBackup(archive, passphrase: passphrase)
        #expect(restored.restored == 4 && restored.alreadyPresent == 0)
        let items = try restoredKeychain.find(
            ItemQuery(itemClass: .genericPassword, synchronizable: .any, returnsSecret: true)
        ).resultOrThrow()
        let accounts = Set(items.compactMap { $0.attributes[.account]?.stringValue })
        #expect(accounts == ["ak", "ck", "dk", "synced"])
        let ak = try #require(items.first { $0.attributes[.account] == .string("ak") })
        #expect(ak.secret?.string == "BACKUP-SECRET-ak")
        #expect(ak.accessGroup == "team.app")
        #expect(ak.protection == .whenUnlocked)

        let again = try restoredKeychain.importBackup(archive, passphrase: passphrase)
        #expect(again.restored == 0 && again.alreadyPresent == 4)
    }

    @Test func theBackupRevealsNoSecretAndNeedsItsPassphrase() throws {
        let (archive, _) = try populated().exportBackup(passphrase: passphrase, kdf: .cheapForTesting())
        let bytes = Array(archive)
        for marker in ["BACKUP-SECRET", "team.app", "synced"] {
            let needle = Array(marker.utf8)
            let found = (0...(bytes.count - needle.count)).contains {
                bytes[$0..<$0 + needle.count].elementsEqual(needle)
            }
            #expect(!found, "\(marker) in clear")
        }
        let target = try otherDevice.open()
        #expect(status { try target.importBackup(archive, passphrase: "wrong".secret) } == .authFailed)
        var altered = bytes
        altered[altered.count - 20] ^= 1
        #expect(status { try target.importBackup(Data(altered), passphrase: passphrase) } == .authFailed)
        #expect(status { try target.importBackup(Data("not a backup".utf8), passphrase: passphrase) } == .decode)
        #expect(status { try target.importBackup(Data(bytes.prefix(30)), passphrase: passphrase) } == .decode)
        #expect(try target.find(ItemQuery(itemClass: .genericPassword, synchronizable: .any)).resultOrThrow().isEmpty)
    }

    @Test func exportNeedsAnUnlockedKeychainAndAPassphrase() throws {
        let keychain = try populated()
        #expect(status { try keychain.exportBackup(passphrase: "".secret, kdf: .cheapForTesting()) } == .param)
        keychain.lock()
        #expect(
            status { try keychain.exportBackup(passphrase: passphrase, kdf: .cheapForTesting()) }
                == .interactionNotAllowed)
    }
}
