internal import ClavisCore

/// The statements filing a row under one digest of an attribute and removing it again, built once per attribute:
/// every add, update and delete runs one per digest, and building their text on each write took about a tenth of an
/// add's instructions.
struct LookupStatements {
    /// Binds the digest, then the row's id.
    let insert: String
    /// Binds the digest, then the row's id.
    let delete: String

    fileprivate static let byKey: [AttributeKey: LookupStatements] = Dictionary(
        uniqueKeysWithValues: AttributeSchema.withLookupTables.map { key in
            let table = key.lookupTable
            return (
                key,
                LookupStatements(
                    insert: "INSERT INTO \(table) (digest, item) VALUES (?, ?)",
                    delete: "DELETE FROM \(table) WHERE digest = ? AND item = ?")
            )
        })
}

extension AttributeKey {
    /// The statements filing a row under a digest of this attribute and removing it; the attribute must have a
    /// lookup table.
    var lookupStatements: LookupStatements {
        guard let statements = LookupStatements.byKey[self] else {
            preconditionFailure("attribute \(rawValue) has no lookup table")
        }
        return statements
    }
}
