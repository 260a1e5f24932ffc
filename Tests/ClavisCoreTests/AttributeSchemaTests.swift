import ClavisCore
import Testing

/// The schema is one table; what keychains on disk depend on (primary-key order, compact codes, lookup tables) is
/// spelled out here, so that a row moved or renumbered fails a test rather than misreading stored items.
@Suite struct AttributeSchemaTests {
    @Test func eachCodeHasOneRow() {
        let codes = AttributeSchema.rows.map(\.key.rawValue)
        #expect(Set(codes).count == codes.count)
    }

    /// Stored primary-key digests hash these attributes in this order.
    @Test func primaryKeysKeepTheirHashingOrder() {
        let expected: [ItemClass: [String]] = [
            .genericPassword: ["acct", "svce", "agrp", "sync"],
            .internetPassword: ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "agrp", "sync"],
            .key: ["kcls", "klbl", "atag", "type", "bsiz", "esiz", "sdat", "edat", "crtr", "agrp", "sync"],
            .certificate: ["ctyp", "issr", "slnr", "agrp", "sync"],
            .identity: [],
        ]
        for itemClass in ItemClass.allCases {
            #expect(itemClass.primaryKey.map(\.rawValue) == expected[itemClass], "\(itemClass)")
        }
    }

    /// Sealed items name attributes by these one-byte codes.
    @Test func compactCodesNeverMove() {
        let sealedCodes = [
            "acct", "svce", "labl", "agrp", "sync", "pdmn", "cdat", "mdat", "accc", "gena", "desc", "icmt", "crtr",
            "type", "invi", "nega", "alis", "scrp", "cusi", "prot", "sdmn", "srvr", "ptcl", "atyp", "port", "path",
            "kcls", "klbl", "atag", "bsiz", "esiz", "sdat", "edat", "ctyp", "issr", "slnr", "cenc", "subj", "skid",
            "pkhh",
        ]
        for (index, code) in sealedCodes.enumerated() {
            let row = AttributeSchema.definition(of: AttributeKey(rawValue: code))
            #expect(row?.compactCode == UInt8(index + 1), "\(code)")
        }
        let assigned = AttributeSchema.rows.compactMap(\.compactCode)
        #expect(Set(assigned).count == assigned.count)
        #expect(!assigned.contains(0))
    }

    /// The store's tables are named after these, and a lookup starts from the first indexed attribute a query has.
    @Test func lookupsKeepTheirTablesAndRanks() {
        #expect(
            AttributeSchema.indexed.map(\.rawValue) == ["acct", "srvr", "klbl", "pkhh", "atag", "subj", "labl", "svce"])
        let tables = AttributeSchema.rows.compactMap { row in row.lookup.map { (row.key.rawValue, $0.table) } }
        #expect(
            Dictionary(uniqueKeysWithValues: tables) == [
                "acct": "items_account", "svce": "items_service", "srvr": "items_server", "labl": "items_label",
                "klbl": "items_application_label", "atag": "items_application_tag", "pkhh": "items_public_key_hash",
                "subj": "items_subject", "agrp": "items_access_group", "ssat": "items_secret_service_attribute",
            ])
    }

    @Test func classesTakeTheKindsTheirRowsSay() {
        #expect(ItemClass.genericPassword.attributeKinds[.service] == .blob)
        #expect(ItemClass.genericPassword.attributeKinds[.server] == nil)
        #expect(ItemClass.internetPassword.attributeKinds[.port] == .number)
        #expect(ItemClass.key.attributeKinds[.canSign] == .bool)
        #expect(ItemClass.certificate.attributeKinds[.alias] == .blob)
        // An identity carries what every class shares, and nothing else.
        #expect(
            Set(ItemClass.identity.attributeKinds.keys.map(\.rawValue)) == [
                "pdmn", "agrp", "sync", "cdat", "mdat", "labl", "accc",
            ])
        for row in AttributeSchema.rows {
            #expect(row.primaryKeyOf.isSubset(of: row.classes), "\(row.key)")
        }
    }

    @Test func protectionClassesAreNamedAsApplesConstants() {
        #expect(ProtectionClass.whenUnlocked.name == "WhenUnlocked")
        #expect(ProtectionClass.whenPasscodeSetThisDeviceOnly.name == "WhenPasscodeSetThisDeviceOnly")
    }
}
