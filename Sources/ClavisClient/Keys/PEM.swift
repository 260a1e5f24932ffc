public import FoundationEssentials

/// PEM text as `openssl` and most tools write it: a base64 body between `-----BEGIN name-----` and
/// `-----END name-----` lines.
public enum PEM {
    /// One PEM block of `name` ("CERTIFICATE", "PUBLIC KEY") around `der`, in lines of 64 characters, ending with a
    /// line feed.
    public static func block(_ name: String, _ der: Data) -> String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(name)-----\n\(body)\n-----END \(name)-----\n"
    }
}
