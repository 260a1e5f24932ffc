// Search, return, value and use keys (SecItem.h).

/// Matches certificates valid under a policy.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// Restricts the search to a list of items.
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// Restricts the search to a list of keychains (macOS).
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// Matches certificates by issuer.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// Matches certificates by e-mail address.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// Matches certificates whose subject contains a string.
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// Matches certificates whose subject starts with a string.
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
/// Matches certificates whose subject ends with a string.
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
/// Matches certificates whose subject equals a string.
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
/// Compares strings case-insensitively.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// Compares strings ignoring diacritics.
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
/// Compares strings ignoring character width.
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
/// Matches only trusted certificates.
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// Matches certificates valid on a date.
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
/// How many results: `kSecMatchLimitOne`, `kSecMatchLimitAll` or a number.
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// At most one result (the default of `SecItemCopyMatching`).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Every match (the default of `SecItemUpdate` and `SecItemDelete`).
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Return each item's secret as `Data`.
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return each item's attributes as a dictionary.
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference to each item.
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return each item's persistent reference as `Data`.
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// The item's secret.
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// A reference to the item.
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// The item's persistent reference.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"
/// A list of items to use (deprecated by Apple).
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// The keychain to use (macOS).
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// The prompt shown when the item needs authentication (deprecated by Apple).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Fail instead of asking for authentication (deprecated by Apple).
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Whether to ask for authentication: one of the `kSecUseAuthenticationUI*` values.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Ask for authentication when needed.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Fail with `errSecInteractionNotAllowed` when authentication is needed.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Skip items that need authentication.
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// The `LAContext` that authenticates the call.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Use the data-protection keychain (accepted and ignored: Clavis has no other).
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
