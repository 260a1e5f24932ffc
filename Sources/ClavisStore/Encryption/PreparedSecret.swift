internal import ClavisCore

/// An item's secret ready to be stored: as it is, or to be sealed first under its application password, whose layer
/// binds the item's reference (known once its row is chosen).
struct PreparedSecret {
    /// The item's secret.
    let secret: SecureBytes
    /// The application password's layer, for an item whose access control has `applicationPassword`.
    let passwordLayer: ApplicationPasswordSealer.Layer?

    /// The secret as the item key seals it, for the item `reference` names.
    func stored(for reference: PersistentReference) throws -> SecureBytes {
        guard let passwordLayer else { return secret }
        return try passwordLayer.seal(secret, reference: reference)
    }
}
