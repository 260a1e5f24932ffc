/// A credential an app hands to a context (Apple's `LACredentialType`, with its raw values).
public enum LACredentialType: Int, Sendable {
    /// A password the app provides for items whose access control has `applicationPassword`; when none is set,
    /// the user is asked for it (on the terminal or through `CLAVIS_ASKPASS`) and the typed text is used as UTF-8.
    case applicationPassword = 0
    /// A smart card PIN (no smart cards on Clavis: `setCredential` refuses it).
    case smartCardPIN = -3
}
