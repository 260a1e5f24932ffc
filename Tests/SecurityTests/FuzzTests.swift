import Foundation
import Security
import Testing

/// Any dictionary gets a status back and never stops the process.
@Suite struct FuzzTests {
    /// A small deterministic generator (SplitMix64), so a failure can be replayed from its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let keys: [String] = [
        "class", "acct", "svce", "agrp", "pdmn", "accc", "sync", "labl", "gena", "desc", "icmt", "crtr", "type",
        "invi", "nega", "srvr", "ptcl", "port", "path", "atyp", "sdmn", "cdat", "mdat", "v_Data", "v_PersistentRef",
        "v_Ref", "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref", "m_Limit", "m_CaseInsensitive", "nleg",
        "u_AuthUI", "u_AuthCtx", "bogus", "", String(repeating: "k", count: 10_000),
    ]

    static func value(_ random: inout Generator, depth: Int = 0) -> Any {
        switch random.below(depth > 1 ? 14 : 16) {
        case 0: return "genp"
        case 1: return "inet"
        case 2:
            return ["keys", "cert", "idnt", "nope", "m_LimitAll", "m_LimitOne", "syna", "ak", "akpu"].randomElement(
                using: &random)!
        case 3: return String(repeating: "é", count: random.below(3) == 0 ? 100_000 : random.below(40))
        case 4: return Data((0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 5: return Int(truncatingIfNeeded: random.next())
        case 6: return random.below(2) == 0
        case 7: return Double(bitPattern: random.next())
        case 8: return NSNull()
        case 9: return Date(timeIntervalSince1970: Double(random.below(1 << 30)))
        case 10: return kCFBooleanTrue!
        case 11: return -Int(random.below(3))
        case 12: return SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, .userPresence, nil) as Any
        case 13: return Data("genp".utf8) + Data(repeating: 0, count: 16)
        case 14: return [value(&random, depth: depth + 1), value(&random, depth: depth + 1)]
        default: return ["acct": value(&random, depth: depth + 1)]
        }
    }

    static func dictionary(_ random: inout Generator) -> NSMutableDictionary {
        let dictionary = NSMutableDictionary()
        let count = random.below(8) == 0 ? 129 + random.below(20) : random.below(12)
        for index in 0..<count {
            let key: AnyHashable
            switch random.below(12) {
            case 0: key = NSNumber(value: index)
            case 1: key = "x\(random.next())"
            default: key = keys[random.below(keys.count)]
            }
            dictionary.setObject(value(&random), forKey: key)
        }
        return dictionary
    }

    @Test(arguments: 0..<4)
    func arbitraryDictionariesReturnAStatusAndNeverTrap(seed: Int) {
        let service = TestKeychain.uniqueService()
        var random = Generator(state: UInt64(seed) &* 0x1234_5678_9ABC)
        let known: Set<OSStatus> = [
            errSecSuccess, errSecParam, errSecNoSuchClass, errSecNoSuchAttr, errSecItemNotFound, errSecDuplicateItem,
            errSecUnimplemented, errSecMissingEntitlement, errSecDataTooLarge, errSecInteractionNotAllowed,
        ]
        for round in 0..<150 {
            let dictionary = Self.dictionary(&random)
            // Confine writes to this test's service so parallel tests are undisturbed.
            if dictionary.object(forKey: "svce") != nil || random.below(2) == 0 {
                dictionary.setObject(service, forKey: "svce" as AnyHashable)
            }
            var result: CFTypeRef?
            let statuses = [
                SecItemAdd(dictionary, &result),
                SecItemCopyMatching(dictionary, &result),
                SecItemUpdate(dictionary, Self.dictionary(&random)),
                round.isMultiple(of: 3) ? SecItemDelete(dictionary) : errSecSuccess,
            ]
            for status in statuses {
                #expect(known.contains(status), "round \(round) of seed \(seed) returned \(status)")
            }
        }
    }
}

extension FuzzTests.Generator: RandomNumberGenerator {}
