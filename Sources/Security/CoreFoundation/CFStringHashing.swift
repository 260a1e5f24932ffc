/// A `CFString` and the equal `String` are one `AnyHashable`, as on Apple platforms: a result dictionary read with
/// the constant itself (`($0 as? [AnyHashable: Any])?[kSecAttrAccount]`) finds what its `String` key holds, and a
/// dictionary keyed by the constants is read with plain strings. (On Apple platforms Foundation's bridging gives
/// this; Linux's Foundation keeps an `NSString` apart from the equal `String` in an `AnyHashable`.)
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// The string's `AnyHashable`: that of the equal `String`.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String(self))
    }
}
