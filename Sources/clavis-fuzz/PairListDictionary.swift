import Foundation

/// An `NSDictionary` subclass as a caller may write one: its entries in two lists, a key found by `isEqual`, so a
/// key unequal to itself (an `NSDate` holding NaN) is listed by the enumerator but never found. Foundation reads a
/// subclass by looking every key up, which is where such keys used to trap.
final class PairListDictionary: NSDictionary {
    private let storedKeys: [AnyObject]
    private let storedValues: [AnyObject]

    /// A dictionary of `keys[i]` to `values[i]`, in that order; a key may repeat (the first is found).
    init(keys: [AnyHashable], values: [Any]) {
        storedKeys = keys.map { $0.base as AnyObject }
        storedValues = values.map { $0 as AnyObject }
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required init(objects: UnsafePointer<AnyObject>?, forKeys keys: UnsafePointer<NSObject>?, count: Int) {
        storedKeys = (0..<count).map { keys![$0] }
        storedValues = (0..<count).map { objects![$0] }
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required init?(coder: NSCoder) { nil }

    override var count: Int { storedKeys.count }

    override func object(forKey key: Any) -> Any? {
        storedKeys.firstIndex { ($0 as? NSObject)?.isEqual(key) == true }.map { storedValues[$0] }
    }

    override func keyEnumerator() -> NSEnumerator { NSArray(array: storedKeys).objectEnumerator() }
}
