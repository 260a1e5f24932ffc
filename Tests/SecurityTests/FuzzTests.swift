import ClavisTestSupport
import Foundation
import Security
import Testing

@testable import clavis_fuzz

/// Any dictionary gets a status back and never stops the process.
@Suite(.preparedKeychain) struct FuzzTests {
    /// `clavis-fuzz`, built next to this test bundle by `swift build`.
    static let executable = ClavisBinary.sibling("clavis-fuzz")

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

    /// A subclass holding what a caller's own dictionary would is read the same way: each value as given, a string
    /// as a string, a boolean or a number as either (Foundation hands a subclass's values out as they are).
    @Test func aSubclassHoldingValidEntriesReadsAsFoundationsOwnDoes() {
        let service = TestKeychain.uniqueService()
        let secret = Data("subclass secret".utf8)
        let item = PairListDictionary(
            keys: [kSecClass, kSecAttrService, kSecAttrAccount, kSecValueData, kSecAttrSynchronizable],
            values: [
                kSecClassGenericPassword, service as NSString, "a" as NSString, secret as NSData, kCFBooleanFalse!,
            ])
        #expect(SecItemAdd(item, nil) == errSecSuccess)
        let lookups: [(AnyObject, AnyObject, AnyObject)] = [
            (kCFBooleanTrue!, kSecMatchLimitOne, kSecAttrSynchronizableAny),
            (NSNumber(value: 1), NSNumber(value: 1), kCFBooleanFalse!),
        ]
        for (returnData, limit, synchronizable) in lookups {
            let query = PairListDictionary(
                keys: [
                    kSecClass, kSecAttrService, kSecAttrAccount, kSecReturnData, kSecMatchLimit, kSecAttrSynchronizable,
                ],
                values: [
                    kSecClassGenericPassword, service as NSString, "a" as NSString, returnData, limit, synchronizable,
                ])
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query, &result) == errSecSuccess, "\(query.allValues)")
            #expect(result as? Data == secret)
        }
        let changes = PairListDictionary(
            keys: [kSecAttrLabel, kSecAttrSynchronizable], values: ["l" as NSString, kCFBooleanFalse!])
        let query = PairListDictionary(
            keys: [kSecClass, kSecAttrService], values: [kSecClassGenericPassword, service as NSString])
        #expect(SecItemUpdate(query, changes) == errSecSuccess)
        var attributes: CFTypeRef?
        let read: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
        ]
        #expect(SecItemCopyMatching(read as CFDictionary, &attributes) == errSecSuccess)
        #expect((attributes as? [String: Any])?[kSecAttrLabel as String] as? String == "l")
        #expect(SecItemDelete(query) == errSecSuccess)
        #expect(SecItemCopyMatching(query, nil) == errSecItemNotFound)
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
