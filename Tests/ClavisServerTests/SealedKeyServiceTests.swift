import ClavisCore
import ClavisCrypto
import ClavisEmbedded
import ClavisIdentity
import ClavisStore
import FoundationEssentials
import Testing

/// The service side of keys that are not permanent (`SealedKey`): the box a caller keeps opens only in the keychain
/// that sealed it, for a caller holding its access group, unchanged, and across the service's restarts; nothing of
/// the key is stored.
@Suite struct SealedKeyServiceTests {
    /// A service on the keychain in `folder` for an app holding `groups` (the first its application identifier).
    private func service(_ folder: String, groups: [String] = ["TEAM.app"]) throws -> EmbeddedKeychainService {
        service(on: try Keychain(home: KeychainHome(path: folder)), groups: groups)
    }

    /// A service on `keychain` for an app holding `groups` (the first its application identifier).
    private func service(on keychain: Keychain, groups: [String]) -> EmbeddedKeychainService {
        EmbeddedKeychainService(
            keychain: keychain,
            entitlements: Entitlements(
                applicationIdentifier: groups[0], keychainAccessGroups: Array(groups.dropFirst())),
            reason: "test")
    }

    private func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appending(path: "clavis-sealed-\(UUID().uuidString)").path
    }

    private let request = NewItem(
        itemClass: .key,
        attributes: [.tokenID: .string(TokenKey.secureEnclave), .applicationTag: .data(Data("sealed".utf8))],
        secret: SecureBytes([UInt8]()))
    private let digest = SHA256.hash(Array("a challenge".utf8))

    /// Checks that `signature` is the key's over `digest`.
    private func expectSigned(_ signature: SecureBytes, by key: SealedKey) throws {
        let publicKey = try AsymmetricKey.ellipticCurve(x963: try #require(key.item.secret), isPrivate: false)
        #expect(
            (try? publicKey.verify(
                signature: signature.unprotectedBytes(), digest: digest, algorithm: nil, padding: .ecdsa)) == true)
    }

    @Test func aBoxSignsInItsKeychainAcrossRestartsAndNothingIsStored() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let key: SealedKey
        do {
            let service = try service(folder)
            key = try service.generateSealedKey(request).resultOrThrow()
            #expect(key.item.persistentReference.bytes.isEmpty)
            #expect(key.item.attributes[.isPermanent] == .bool(false))
            #expect(key.item.attributes[.accessGroup] == .string("TEAM.app"))
            #expect(key.item.attributes[.accessible] == .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue))
            try expectSigned(
                try service.useSealedKey(key.box, for: .signDigest(digest), authentication: nil)
                    .resultOrThrow(), by: key)
            #expect(try service.find(ItemQuery(itemClass: .key)).resultOrThrow().isEmpty)
        }
        // The keychain opened again (a restarted daemon) still opens the box.
        let reopened = try service(folder)
        try expectSigned(
            try reopened.useSealedKey(key.box, for: .signDigest(digest), authentication: nil)
                .resultOrThrow(), by: key)
    }

    @Test func aBoxChangedInAnyByteOrFromAnotherKeychainIsRefused() throws {
        let folder = temporaryFolder()
        let otherFolder = temporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: otherFolder)
        }
        let service = try service(folder)
        let key = try service.generateSealedKey(request).resultOrThrow()
        for index in key.box.indices {
            var changed = key.box
            changed[index] ^= 0x01
            let error = #expect(throws: KeychainError.self) {
                _ = try service.useSealedKey(changed, for: .signDigest(digest), authentication: nil)
            }
            // A changed group names one the app lacks; every other change fails to decode or open.
            #expect(
                error?.code == .decode || error?.code == .missingEntitlement || error?.code == .param,
                "byte \(index): \(String(describing: error))")
        }
        let truncated = #expect(throws: KeychainError.self) {
            _ = try service.useSealedKey(Array(key.box.dropLast()), for: .signDigest(digest), authentication: nil)
        }
        #expect(truncated?.code == .decode)
        let other = try self.service(otherFolder)
        let foreign = #expect(throws: KeychainError.self) {
            _ = try other.useSealedKey(key.box, for: .signDigest(digest), authentication: nil)
        }
        #expect(foreign?.code == .decode)
    }

    @Test func onlyAnAppHoldingTheKeysGroupUsesIt() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keychain = try Keychain(home: KeychainHome(path: folder))
        let owner = service(on: keychain, groups: ["TEAM.app", "TEAM.shared"])
        var shared = request
        shared.attributes[.accessGroup] = .string("TEAM.shared")
        let key = try owner.generateSealedKey(shared).resultOrThrow()
        let stranger = service(on: keychain, groups: ["TEAM.other"])
        // Another app sharing the group uses it.
        let partner = service(on: keychain, groups: ["TEAM.partner", "TEAM.shared"])
        try expectSigned(
            try partner.useSealedKey(key.box, for: .signDigest(digest), authentication: nil).resultOrThrow(), by: key)
        let refused = #expect(throws: KeychainError.self) {
            _ = try stranger.useSealedKey(key.box, for: .signDigest(digest), authentication: nil)
        }
        #expect(refused?.code == .missingEntitlement)
        let kept = #expect(throws: KeychainError.self) { _ = try stranger.addSealedKey(key.box, as: request) }
        #expect(kept?.code == .missingEntitlement)
        // The owner keeps it in its group, and in no other.
        var elsewhere = request
        elsewhere.attributes[.accessGroup] = .string("TEAM.app")
        let moved = #expect(throws: KeychainError.self) { _ = try owner.addSealedKey(key.box, as: elsewhere) }
        #expect(moved?.code == .param)
        let stored = try owner.addSealedKey(key.box, as: request).resultOrThrow()
        #expect(stored.accessGroup == "TEAM.shared" && stored.secret == key.item.secret)
        #expect(try owner.find(ItemQuery(itemClass: .key)).resultOrThrow().count == 1)
        // Nor may an app make a key in a group it lacks.
        var foreign = request
        foreign.attributes[.accessGroup] = .string("TEAM.shared")
        let made = #expect(throws: KeychainError.self) { _ = try stranger.generateSealedKey(foreign) }
        #expect(made?.code == .missingEntitlement)
    }

    @Test func aKeyThatIsNotPermanentTakesNoApplicationPassword() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let service = try service(folder)
        var guarded = request
        let policy = AccessControl(
            protection: .whenUnlockedThisDeviceOnly, flags: [.privateKeyUsage, .applicationPassword])
        guarded.attributes[.accessControl] = .data(policy.encoded)
        guarded.attributes[.accessible] = .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue)
        let error = #expect(throws: KeychainError.self) { _ = try service.generateSealedKey(guarded) }
        #expect(error?.code == .param)
    }
}
