import ClavisCore

/// A caller's `CFDictionary`, read into string keys, each tagged with the request key it names, and values kept
/// typed as read (`QueryValue`), without trusting anything about it.
///
/// Every accessor returns a status for a bad value (`errSecParam`) instead of trapping.
struct QueryDictionary {
    /// The names of the entries not taken yet (`"class"`, `"acct"`, ...), each beside its value in `values` and the
    /// request key it names, if any, in `requestKeys`. A query holds a handful of entries, so a scan costs less
    /// than hashing every key a request looks for, most of which are absent.
    private var names: [String] = []
    private var requestKeys: [RequestKey?] = []
    private var values: [QueryValue] = []
    /// The request keys among the entries not taken yet (`RequestKey.bit`): an absent key costs one test.
    private var present: UInt64 = 0

    /// Reads `dictionary`; a key that is not a string is `errSecParam`.
    ///
    /// Foundation's own `NSDictionary` and `NSMutableDictionary` hand out their stored keys and values
    /// (`allKeys`, `allValues`: one pass each over the same storage, so in the same order) without converting
    /// them; strings and data are converted here, class by class, numbers are kept as `NSNumber`, and any other value
    /// is fetched by its key, which unboxes what Foundation boxed. For any subclass, the keys are walked first
    /// (`keyEnumerator()`), and only once every one of them is known to be a string is any value looked up, by that
    /// string: looking up or hashing some foreign keys traps (an `NSDate` holding NaN), and Foundation's bulk
    /// accessors look each key up again for a subclass. A subclass that lists a key it then cannot find is
    /// `errSecParam` as well.
    init(_ dictionary: NSDictionary) throws(KeychainError) {
        let kind = type(of: dictionary)
        if kind == NSDictionary.self || kind == NSMutableDictionary.self {
            let keys = dictionary.allKeys
            let stored = dictionary.allValues
            guard keys.count == stored.count else {
                throw KeychainError(.param, "the dictionary's keys and values do not pair up (it changed while read)")
            }
            reserveCapacity(keys.count)
            // Indexed rather than zipped: a zip's iterator costs more than the entries' own conversion.
            for position in keys.indices {
                guard let name = keys[position] as AnyObject as? NSString else {
                    throw KeychainError(.param, "a query key is not a string")
                }
                let object = stored[position] as AnyObject
                let value: QueryValue
                if let string = object as? NSString {
                    value = .string(string as String)
                } else if let data = object as? NSData {
                    // One copy of the bytes: Foundation's bridging appends them one by one.
                    value = .data(data.length == 0 ? Data() : Data(bytes: data.bytes, count: data.length))
                } else if let number = object as? NSNumber {
                    value = .number(number)
                } else {
                    guard let fetched = dictionary.object(forKey: name) else {
                        throw KeychainError(.param, "the dictionary lists a key it does not hold")
                    }
                    value = .other(fetched)
                }
                insert(name as String, value)
            }
            return
        }
        let enumerator = dictionary.keyEnumerator()
        var listed: [String] = []
        while let key = enumerator.nextObject() {
            guard let name = key as? String else {
                throw KeychainError(.param, "a query key is not a string")
            }
            if !listed.contains(name) { listed.append(name) }
        }
        reserveCapacity(listed.count)
        for name in listed {
            guard let value = dictionary.object(forKey: name) else {
                throw KeychainError(.param, "the dictionary lists a key it does not hold")
            }
            insert(name, .other(value))
        }
    }

    private mutating func reserveCapacity(_ count: Int) {
        names.reserveCapacity(count)
        requestKeys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// Adds an entry. Two keys Foundation holds apart (their UTF-16 differs) may still be one name to Swift
    /// (canonically equivalent): one entry, holding the value read last.
    private mutating func insert(_ name: String, _ value: QueryValue) {
        if let index = names.firstIndex(of: name) {
            values[index] = value
            return
        }
        let requestKey = RequestKey.named(name)
        names.append(name)
        requestKeys.append(requestKey)
        values.append(value)
        if let requestKey { present |= requestKey.bit }
    }

    /// The keys present, sorted so that the first offending key is reported deterministically.
    var keys: [String] { names.sorted() }

    /// The raw value of `key`, left in place.
    func value(_ key: RequestKey) -> QueryValue? { index(of: key).map { values[$0] } }

    /// Removes and returns the raw value of `key` (the last entry takes its place: `keys` sorts).
    mutating func take(_ key: RequestKey) -> QueryValue? {
        guard let index = index(of: key) else { return nil }
        present &= ~key.bit
        names.swapAt(index, names.count - 1)
        requestKeys.swapAt(index, requestKeys.count - 1)
        values.swapAt(index, values.count - 1)
        names.removeLast()
        requestKeys.removeLast()
        return values.removeLast()
    }

    private func index(of key: RequestKey) -> Int? {
        guard present & key.bit != 0 else { return nil }
        return requestKeys.firstIndex(of: key)
    }

    /// Removes `key` and returns its value as a string; another type is `errSecParam`.
    mutating func takeString(_ key: RequestKey) throws(KeychainError) -> String? {
        guard let value = take(key) else { return nil }
        return try ValueDecoding.string(value, key: key.name)
    }

    /// Removes `key` and returns its value as bytes; another type is `errSecParam`.
    mutating func takeData(_ key: RequestKey) throws(KeychainError) -> Data? {
        guard let value = take(key) else { return nil }
        return try ValueDecoding.data(value, key: key.name)
    }

    /// Removes `key` and returns its value as a boolean; another type is `errSecParam`.
    mutating func takeBool(_ key: RequestKey) throws(KeychainError) -> Bool? {
        guard let value = take(key) else { return nil }
        return try ValueDecoding.bool(value, key: key.name)
    }

    /// Takes every remaining entry as an attribute of `itemClass`, checked against its schema; `cdat` and `mdat`
    /// are read (and checked) but left out when `droppingDates`, since the store sets them.
    ///
    /// - Throws: `noSuchAttribute` for a key the class lacks, `param` for a value of the wrong type.
    mutating func takeAttributes(of itemClass: ItemClass, droppingDates: Bool) throws(KeychainError)
        -> [AttributeKey: AttributeValue]
    {
        let kinds = itemClass.attributeKinds
        var attributes: [AttributeKey: AttributeValue] = Dictionary(minimumCapacity: names.count)
        var failure: (name: String, error: KeychainError)?
        for position in names.indices {
            let name = names[position]
            let value = values[position]
            let key = AttributeKey(rawValue: name)
            let decoded: AttributeValue
            do throws(KeychainError) {
                guard let kind = kinds[key] else {
                    throw KeychainError(
                        .noSuchAttribute, "class \(itemClass.rawValue) has no attribute '\(name.prefix(64))'")
                }
                decoded = try ValueDecoding.attribute(value, kind: kind, key: name)
            } catch {
                // The first offending key in sorted order is reported, whatever order the dictionary gave.
                if failure.map({ name < $0.name }) ?? true { failure = (name, error) }
                continue
            }
            if droppingDates && (key == .creationDate || key == .modificationDate) { continue }
            attributes[key] = decoded
        }
        if let failure { throw failure.error }
        names.removeAll()
        requestKeys.removeAll()
        values.removeAll()
        present = 0
        return attributes
    }

    /// The first key in sorted order that `isOffending`, if any (without sorting every key).
    func firstKey(where isOffending: (String) -> Bool) -> String? {
        var first: String?
        for name in names where isOffending(name) && first.map({ name < $0 }) ?? true {
            first = name
        }
        return first
    }
}

/// Conversions from the values a caller may put in a dictionary to typed values, with `errSecParam` for any other.
enum ValueDecoding {
    /// A `String` or `NSString`.
    static func string(_ value: QueryValue, key: @autoclosure () -> String) throws(KeychainError) -> String {
        guard let string = value.string else { throw wrongType(key(), "a string") }
        return string
    }

    /// `Data` or `NSData`.
    static func data(_ value: QueryValue, key: @autoclosure () -> String) throws(KeychainError) -> Data {
        guard let data = value.data else { throw wrongType(key(), "data") }
        return data
    }

    /// A boolean (`CFBoolean`, `Bool`) or a number, where any non-zero value is true.
    static func bool(_ value: QueryValue, key: @autoclosure () -> String) throws(KeychainError) -> Bool {
        if let number = value.number { return number.int64Value != 0 || number.doubleValue != 0 }
        guard case .other(let other) = value, let bool = other as? Bool else { throw wrongType(key(), "a boolean") }
        return bool
    }

    /// A whole number that fits in 64 bits.
    static func integer(_ value: QueryValue, key: @autoclosure () -> String) throws(KeychainError) -> Int64 {
        let value = value.object
        if let integer = value as? Int64 { return integer }
        if let integer = value as? Int { return Int64(integer) }
        guard let number = value as? NSNumber else { throw wrongType(key(), "a number") }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double, abs(double) < 9.2e18 else {
            throw wrongType(key(), "a whole number")
        }
        return Int64(double)
    }

    /// A `Date` or `NSDate`.
    static func date(_ value: QueryValue, key: @autoclosure () -> String) throws(KeychainError) -> Date {
        guard case .other(let other) = value, let date = other as? Date else { throw wrongType(key(), "a date") }
        return date
    }

    /// The typed value of an attribute of `kind`.
    static func attribute(
        _ value: QueryValue, kind: AttributeValue.Kind, key: @autoclosure () -> String
    ) throws(KeychainError) -> AttributeValue {
        switch kind {
        case .string: .string(try string(value, key: key()))
        case .data: .data(try data(value, key: key()))
        case .blob:
            // Apple's blob columns keep a CFString a string, a CFData data and a CFNumber a number.
            if let text = value.string {
                .string(text)
            } else if let bytes = value.data {
                .data(bytes)
            } else if value.number != nil {
                .number(try integer(value, key: key()))
            } else {
                throw wrongType(key(), "a string, data or a number")
            }
        case .number: .number(try integer(value, key: key()))
        case .bool: .bool(try bool(value, key: key()))
        case .date: .date(try date(value, key: key()))
        }
    }

    private static func wrongType(_ key: String, _ expected: String) -> KeychainError {
        KeychainError(.param, "the value of '\(key)' must be \(expected)")
    }
}
