import Security

/// Random keychain dictionaries: Apple's keys with values of every type, foreign keys of every Foundation type
/// (among them those whose hashing traps, such as an `NSDate` holding NaN), NaN and infinite numbers and dates.
struct FuzzDictionaries {
    var random: SplitMix64

    /// The string keys: Apple's codes, near misses and oversized ones.
    static let names: [String] = [
        "class", "acct", "svce", "agrp", "pdmn", "accc", "sync", "labl", "gena", "desc", "icmt", "crtr", "type",
        "invi", "nega", "srvr", "ptcl", "port", "path", "atyp", "sdmn", "cdat", "mdat", "alis", "v_Data",
        "v_PersistentRef", "v_Ref", "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref", "m_Limit",
        "m_CaseInsensitive", "nleg", "u_AuthUI", "u_AuthCtx", "u_OpPrompt", "u_NoAuthUI", "atag", "klbl", "kcls",
        "bogus", "", String(repeating: "k", count: 10_000),
    ]

    /// The numbers and dates that break naive conversions.
    static let awkwardDoubles: [Double] = [
        .nan, -.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, 9.3e18, -9.3e18, 0.5, -0.0,
    ]

    /// A value of any type a caller might put in a dictionary.
    mutating func value(depth: Int = 0) -> Any {
        switch random.below(depth > 1 ? 18 : 20) {
        case 0: return "genp"
        case 1: return "inet"
        case 2:
            return random.pick([
                "keys", "cert", "idnt", "nope", "m_LimitAll", "m_LimitOne", "syna", "ak", "akpu", "u_AuthUIF",
            ])
        case 3: return String(repeating: "é", count: random.below(3) == 0 ? 40_000 : random.below(40))
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
        case 14: return NSNumber(value: random.pick(Self.awkwardDoubles))
        case 15: return Date(timeIntervalSinceReferenceDate: random.pick(Self.awkwardDoubles))
        case 16: return NSDate(timeIntervalSinceReferenceDate: random.pick(Self.awkwardDoubles))
        case 17: return foreignKey()
        case 18: return [value(depth: depth + 1), value(depth: depth + 1)]
        default: return ["acct": value(depth: depth + 1)]
        }
    }

    /// A key that is not a string: every Foundation type, including ones whose hashing traps.
    mutating func foreignKey() -> AnyHashable {
        switch random.below(11) {
        case 0: return NSDate(timeIntervalSinceReferenceDate: random.pick(Self.awkwardDoubles))
        case 1: return Date(timeIntervalSinceReferenceDate: random.pick(Self.awkwardDoubles))
        case 2: return NSNumber(value: random.pick(Self.awkwardDoubles))
        case 3: return random.pick(Self.awkwardDoubles)
        case 4: return Int(truncatingIfNeeded: random.next())
        case 5: return Data([UInt8(truncatingIfNeeded: random.next())]) as NSData
        case 6: return NSArray(array: ["acct"])
        case 7: return NSDictionary(dictionary: ["class": "genp"])
        case 8: return NSNull()
        case 9: return NSUUID()
        default: return URL(fileURLWithPath: "/acct")
        }
    }

    /// A dictionary of up to a dozen entries (sometimes more than the 128 Clavis reads); half of them start from a
    /// valid item (class, account, service) so that the calls reach the store, not only the parser. One in four is
    /// a subclass of `NSDictionary` (`PairListDictionary`), which Foundation reads differently.
    mutating func dictionary(addingService: Bool = false) -> NSDictionary {
        var keys: [AnyHashable] = []
        var values: [Any] = []
        var count = random.below(8) == 0 ? 129 + random.below(20) : random.below(12)
        if random.below(2) == 0 {
            keys += ["class", "acct", "svce"]
            values += [random.pick(["genp", "inet"]), "account-\(random.below(20))", "fuzz"]
            count = random.below(4)
        }
        // Foundation's own dictionary traps on some pairs of foreign keys (a NaN unequal to itself, numbers equal
        // across types with different hashes) when its storage grows: one foreign key per dictionary, which a real
        // caller can make, keeps the trap in the caller's dictionary out of the results.
        var hasForeignKey = false
        for _ in 0..<count {
            let key: AnyHashable =
                switch random.below(12) {
                case 0: foreignKey()
                case 1: "x\(random.next())"
                default: random.pick(Self.names)
                }
            if !(key.base is String) {
                if hasForeignKey { continue }
                hasForeignKey = true
            }
            keys.append(key)
            values.append(value())
        }
        if addingService {
            keys.append("svce")
            values.append("fuzz")
        }
        if random.below(4) == 0 { return PairListDictionary(keys: keys, values: values) }
        let dictionary = NSMutableDictionary()
        for (key, value) in zip(keys, values) { dictionary.setObject(value, forKey: key) }
        return dictionary
    }
}
