import Foundation
import Security
import Testing

@testable import clavis_fuzz

/// Any dictionary gets a status back and never stops the process.
@Suite(.preparedKeychain) struct FuzzTests {
    /// `clavis-fuzz`, built next to this test bundle by `swift build`.
    static let executable = URL(fileURLWithPath: ClavisBinary.path).deletingLastPathComponent()
        .appendingPathComponent("clavis-fuzz").path

    /// Keys whose hashing traps in Foundation (an `NSDate` holding NaN) used to crash all four calls while the
    /// dictionary was read; they are now `errSecParam`, like any key that is not a string.
    @Test func keysWhoseHashingTrapsAreParam() {
        TestKeychain.prepare()
        let traps: [AnyHashable] = [
            NSDate(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .nan),
            NSDate(timeIntervalSinceReferenceDate: .infinity), NSNumber(value: Double.nan), Double.infinity,
        ]
        for key in traps {
            let query = NSMutableDictionary()
            query.setObject(kSecClassGenericPassword, forKey: kSecClass)
            query.setObject("value", forKey: key)
            let changes = NSMutableDictionary()
            changes.setObject("l", forKey: key)
            expectEveryCallIsParam(query, changes: changes)
            // A subclass, which Foundation reads by looking every key up: the NaN date never finds itself.
            expectEveryCallIsParam(
                PairListDictionary(keys: [kSecClass, key], values: [kSecClassGenericPassword, "value" as NSString]),
                changes: PairListDictionary(keys: [key], values: ["l" as NSString]))
        }
    }

    /// Checks that `query` with a bad key, and `changes` with one, are `errSecParam` in every call.
    private func expectEveryCallIsParam(_ query: NSDictionary, changes: NSDictionary) {
        var result: CFTypeRef?
        #expect(SecItemAdd(query, &result) == errSecParam, "\(type(of: query)) \(query.allKeys)")
        #expect(SecItemCopyMatching(query, &result) == errSecParam)
        #expect(SecItemUpdate(query, [kSecAttrLabel: "l"] as CFDictionary) == errSecParam)
        #expect(SecItemDelete(query) == errSecParam)
        let valid: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TestKeychain.uniqueService(),
        ]
        #expect(SecItemUpdate(valid as CFDictionary, changes) == errSecParam)
    }

    /// NaN and infinite numbers and dates as values are a status, never a trap.
    @Test func nanAndInfiniteValuesAreAStatus() {
        let service = TestKeychain.uniqueService()
        for value: Any in [
            Double.nan, Double.infinity, NSNumber(value: -Double.infinity), Date.distantFuture,
            Date(timeIntervalSinceReferenceDate: .nan), NSDate(timeIntervalSinceReferenceDate: .infinity),
        ] {
            for key in [kSecAttrPort, kSecAttrCreator, kSecMatchLimit, kSecAttrCreationDate, kSecAttrSynchronizable] {
                let query: [String: Any] = [
                    kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: service,
                    key as String: value,
                ]
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                #expect([errSecParam, errSecItemNotFound, errSecSuccess].contains(status), "\(key) \(value)")
            }
        }
    }

    /// A few thousand random dictionaries (every Foundation type as keys and values, NaN and infinities among
    /// them) through the four calls, in the real `clavis-fuzz` binary on a private keychain; the release run
    /// (`swift run -c release clavis-fuzz`) does 100,000.
    @Test(arguments: 1...3)
    func arbitraryDictionariesReturnAKnownStatusAndNeverTrap(seed: Int) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable), "run `swift build` before `swift test`")
        let run = try runProcess(Self.executable, ["--rounds", "1500", "--seed", String(seed)])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError.prefix(2000))")
        #expect(run.standardOutput.contains("1500 rounds, 6000 calls"))
        #expect(run.standardOutput.contains("unknown statuses: 0"))
    }
}
