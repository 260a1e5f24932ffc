import ClavisClient
import ClavisCore

/// What a trust evaluation checks besides the chain (Apple's `SecPolicy`): the basic X.509 policy, or SSL with
/// an optional hostname.
public final class SecPolicy: Sendable {
    /// The policy's checks.
    let kind: TrustPolicy

    init(_ kind: TrustPolicy) {
        self.kind = kind
    }
}

/// Returns the type identifier of policies: what `CFGetTypeID` answers for a `SecPolicy`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecPolicyGetTypeID() -> CFTypeID { CoreFoundationTypeID.policy.rawValue }

/// Returns the policy of a valid X.509 chain ending at a trusted anchor.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

/// Returns the SSL policy: for a server certificate (`server` true) the leaf must be for `hostname` when one is
/// given and allow server authentication; for a client certificate, client authentication.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { $0 as String }))
}
