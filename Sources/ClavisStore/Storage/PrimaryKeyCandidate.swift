/// One primary key a query names whole, in one of the groups it searches and with one `sync` value: the rows whose
/// `primary_digest` is this digest are the only ones it can match.
struct PrimaryKeyCandidate {
    /// The key's digest (`IndexDigests.primaryKeyDigest`).
    var digest: [UInt8]
    /// The searched group the digest was computed for.
    var accessGroup: String
    /// The `sync` value the digest was computed for.
    var isSynchronizable: Bool
}

extension ItemRow {
    /// The key among `candidates` whose digest the row's boxes are bound to, when the row is sealed in the
    /// primary-key-bound format; its secret box then proves the digest the row was selected by (a digest copied
    /// from another row does not open it).
    func primaryKey(among candidates: [PrimaryKeyCandidate]) -> PrimaryKeyCandidate? {
        guard binding.format == .primaryKeyBound else { return nil }
        return candidates.first { $0.digest == binding.primaryDigest }
    }
}
