/// What a trust evaluation checks besides the chain (Apple's `SecPolicy`).
public enum TrustPolicy: Sendable, Hashable {
    /// A valid chain to a trusted anchor, nothing more (`SecPolicyCreateBasicX509`).
    case basicX509
    /// A TLS server certificate (`server` true; for `hostname` when one is given) or client certificate
    /// (`SecPolicyCreateSSL`).
    case ssl(server: Bool, hostname: String?)
}
