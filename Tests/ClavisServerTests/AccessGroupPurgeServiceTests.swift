import ClavisCore
import ClavisEmbedded
import ClavisIdentity
import ClavisStore
import FoundationEssentials
import Testing

@testable import ClavisServer

/// The service side of `clavis app remove --delete-items`: a group a registered app still holds is kept whatever the
/// caller asks, only an administrator may purge, and the daemon's log line names groups and counts, never a value.
@Suite struct AccessGroupPurgeServiceTests {
    private func service(administrator: Bool, held: Set<String>) throws -> (EmbeddedKeychainService, Keychain, String) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "clavis-purge-\(UUID().uuidString)").path
        let keychain = try Keychain(home: KeychainHome(path: folder))
        var entitlements = Entitlements(applicationIdentifier: "TEAM.admin", keychainAccessGroups: [])
        entitlements.isAdministrator = administrator
        let service = EmbeddedKeychainService(
            keychain: keychain, entitlements: entitlements, reason: "test", registeredGroups: { held })
        for group in ["TEAM.a", "TEAM.shared"] {
            _ = try keychain.add(
                NewItem(
                    itemClass: .genericPassword,
                    attributes: [.account: .string("me"), .accessGroup: .string(group)],
                    secret: SecureBytes(Array("secret-of-\(group)".utf8)))
            ).resultOrThrow()
        }
        return (service, keychain, folder)
    }

    @Test func aGroupARegisteredAppHoldsIsKept() throws {
        let (service, keychain, folder) = try service(administrator: true, held: ["TEAM.shared", "TEAM.b"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let purge = try service.purgeAccessGroups(["TEAM.a", "TEAM.shared", "TEAM.a"])
        #expect(purge == AccessGroupPurge(deleted: 1, purgedGroups: ["TEAM.a"], keptGroups: ["TEAM.shared"]))
        let left = try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow()
        #expect(left.map(\.accessGroup) == ["TEAM.shared"])
        let line = RequestHandler.describe(purge, application: "TEAM.admin")
        #expect(
            line
                == "TEAM.admin deleted 1 items of a removed app's groups (TEAM.a); kept TEAM.shared: another registered app holds them"
        )
        #expect(!line.contains("secret-of"))
    }

    @Test func onlyAnAdministratorMayPurge() throws {
        let (service, keychain, folder) = try service(administrator: false, held: [])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: KeychainError.self) { try service.purgeAccessGroups(["TEAM.a"]) }
        #expect(try keychain.find(ItemQuery(itemClass: .genericPassword)).resultOrThrow().count == 2)
    }
}
