public import ClavisCore
public import ClavisCrypto

/// A certificate chain evaluated under policies, as Apple's `SecTrustEvaluateWithError` evaluates it: OpenSSL builds
/// the chain from the certificates given and the anchors, and a refusal answers with Apple's status
/// (`certificateExpired`, `certificateNotValidYet`, `hostNameMismatch`, `invalidExtendedKeyUsage`, or `notTrusted`
/// for any other).
public struct CertificateTrust: Sendable {
    /// The directory of system anchors, as Debian and its derivatives keep it (hashed links made by c_rehash).
    public static let systemAnchorDirectory = "/etc/ssl/certs"

    /// The leaf first, then any other certificates that may help build the chain.
    public var certificates: [X509Certificate]
    /// The policies the leaf is evaluated under; every one must hold.
    public var policies: [TrustPolicy]
    /// The anchors trusted besides (or, with `anchorsOnly`, instead of) the system's.
    public var anchors: [X509Certificate] = []
    /// When true, the system's anchors are not trusted.
    public var anchorsOnly = false
    /// The verification time in seconds since 1970; nil for now.
    public var time: Int64?

    /// A trust for `certificates` (the leaf first; at least one) under `policies`.
    public init(certificates: [X509Certificate], policies: [TrustPolicy] = [.basicX509]) {
        precondition(!certificates.isEmpty, "a trust needs its leaf certificate")
        self.certificates = certificates
        self.policies = policies
    }

    /// The outcome of an evaluation.
    public struct Evaluation: Sendable {
        /// The chain built, leaf first (on a failure, as much of it as was built).
        public var chain: [X509Certificate]
        /// Nil when trusted; otherwise Apple's status and description of the failure.
        public var failure: KeychainError?

        /// True when the chain ends at a trusted anchor and meets every policy.
        public var isTrusted: Bool { failure == nil }
    }

    /// Verifies the chain against every policy, as Apple's trust requires: each SSL policy on its own (its purpose
    /// and host name), and basic X.509 as the chain alone; the first failure is the answer.
    public func evaluate() -> Evaluation {
        var checks: [(server: Bool, hostname: String?)?] = policies.compactMap { policy in
            guard case .ssl(let server, let hostname) = policy else { return nil }
            return (server, hostname)
        }
        if checks.isEmpty { checks = [nil] }
        var passed: Evaluation?
        for ssl in checks {
            let evaluation = evaluate(ssl: ssl)
            if evaluation.failure != nil { return evaluation }
            passed = evaluation
        }
        return passed ?? evaluate(ssl: nil)
    }

    /// Verifies the chain for one SSL policy's purpose and host name, or for basic X.509 when `ssl` is nil.
    private func evaluate(ssl: (server: Bool, hostname: String?)?) -> Evaluation {
        var verifier = CertificateChainVerifier()
        verifier.anchors = anchors
        verifier.trustsSystemAnchors = !anchorsOnly
        verifier.systemAnchorDirectory = Self.systemAnchorDirectory
        verifier.time = time
        if let ssl {
            verifier.purpose = ssl.server ? .sslServer : .sslClient
            if ssl.server, let hostname = ssl.hostname, !hostname.isEmpty { verifier.hostname = hostname }
        }
        let leaf = certificates[0]
        guard let result = try? verifier.verify(leaf, intermediates: Array(certificates.dropFirst())) else {
            return Evaluation(chain: [leaf], failure: KeychainError(.internal, "the trust could not be evaluated"))
        }
        guard let failure = result.failure else { return Evaluation(chain: result.chain, failure: nil) }
        let failing = result.chain.indices.contains(result.failingIndex) ? result.chain[result.failingIndex] : leaf
        let name = "\u{201C}\(failing.subjectSummary ?? "")\u{201D} certificate"
        let error: KeychainError =
            switch failure {
            case .expired: KeychainError(.certificateExpired, "\(name) is expired")
            case .notYetValid: KeychainError(.certificateNotValidYet, "\(name) is not yet valid")
            case .hostnameMismatch: KeychainError(.hostNameMismatch, "\(name) name does not match input")
            case .invalidPurpose: KeychainError(.invalidExtendedKeyUsage, "\(name) is not permitted for this usage")
            case .notTrusted, .other: KeychainError(.notTrusted, "\(name) is not trusted")
            }
        return Evaluation(chain: result.chain, failure: error)
    }
}
