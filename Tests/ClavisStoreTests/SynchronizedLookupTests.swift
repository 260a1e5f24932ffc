import ClavisCore
import ClavisSQLite
import FoundationEssentials
import Testing

@testable import ClavisStore

/// Applying another device's change looks up the rows of its primary key, tombstones included, through indexes: a
/// new device receiving thousands of items must not read every row for each one.
@Suite struct SynchronizedLookupTests {
    let temporary = TemporaryHome()

    @Test func theRowsOfAKeyAreFoundThroughIndexesOnly() throws {
        _ = try temporary.open()
        let inspector = try StoreInspector(temporary.home)
        let key: [DatabaseValue] = [.text(ItemClass.genericPassword.rawValue), .blob(Array(repeating: 7, count: 32))]
        let plan = try inspector.connection.rows(
            "EXPLAIN QUERY PLAN " + KeychainEngine.synchronizedRowsOfKey, key + key
        ).compactMap { $0.last?.text }
        let reads = plan.filter { $0.contains("items") }
        #expect(reads.count == 2, "\(plan)")
        #expect(reads.allSatisfy { $0.hasPrefix("SEARCH items USING INDEX") }, "\(plan)")
        #expect(reads.contains { $0.contains("items_tombstones") }, "\(plan)")
        #expect(reads.contains { $0.contains("items_primary_key") }, "\(plan)")
    }
}
