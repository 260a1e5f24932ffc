internal import COpenSSL

/// Builds and verifies a certificate chain with OpenSSL's `X509_STORE`: given anchors or the system's, an
/// optional hostname and purpose, at a chosen time.
public struct CertificateChainVerifier: Sendable {
    /// What the leaf must be good for, beyond a valid chain.
    public enum Purpose: Sendable {
        /// A TLS server certificate (extended key usage serverAuth when the extension is present).
        case sslServer
        /// A TLS client certificate (extended key usage clientAuth when the extension is present).
        case sslClient
    }

    /// Why a chain was refused.
    public enum Failure: Sendable, Equatable {
        /// A certificate's validity period ended before the verification time.
        case expired
        /// A certificate's validity period starts after the verification time.
        case notYetValid
        /// The chain ends at no trusted anchor, or a signature in it does not verify.
        case notTrusted
        /// The leaf is not for the hostname asked for.
        case hostnameMismatch
        /// A certificate's key usage or extended key usage does not allow the purpose.
        case invalidPurpose
        /// Any other refusal, with OpenSSL's code and text.
        case other(code: Int32, text: String)
    }

    /// The outcome: the chain built (leaf first, as far as it got) and the failure, if any.
    public struct Result: Sendable {
        /// The chain OpenSSL built, leaf first; on failure, as much of it as was built.
        public var chain: [X509Certificate]
        /// Nil when the chain is trusted.
        public var failure: Failure?
        /// The position in `chain` of the certificate the failure is about (0, the leaf, when unknown).
        public var failingIndex: Int
    }

    /// The anchors trusted in addition to (or instead of) the system's.
    public var anchors: [X509Certificate] = []
    /// Whether the system's anchors are trusted too.
    public var trustsSystemAnchors = true
    /// The hashed directory of system anchors; nil for OpenSSL's default paths.
    public var systemAnchorDirectory: String? = "/etc/ssl/certs"
    /// The name the leaf must be for: an IP address, or a DNS name (subject alternative names only, as Apple).
    public var hostname: String?
    /// What the leaf must be good for; nil for any.
    public var purpose: Purpose?
    /// The verification time in seconds since 1970; nil for now.
    public var time: Int64?

    /// A verifier trusting the system's anchors, for any purpose, now.
    public init() {}

    /// Verifies `leaf`, building the chain from `intermediates` and the anchors.
    public func verify(
        _ leaf: X509Certificate, intermediates: [X509Certificate]
    ) throws(CryptoError) -> Result {
        let store = try TrustStore()
        for anchor in anchors { try store.add(anchor) }
        if trustsSystemAnchors { try store.addSystemAnchors(directory: systemAnchorDirectory) }
        let untrusted = try CertificateStack()
        for certificate in intermediates { try untrusted.append(certificate) }
        let context = try VerificationContext(store: store, leaf: leaf, untrusted: untrusted)
        let parameters = context.parameters
        // Apple trusts any certificate given as an anchor, a root or not: OpenSSL does so with a partial chain.
        if !anchors.isEmpty { X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
        if let time { X509_VERIFY_PARAM_set_time(parameters, time_t(time)) }
        if let hostname {
            // An IPv4 or IPv6 address is matched against the iPAddress names; anything else against the DNS names,
            // never the common name (Apple ignores it).
            if X509_VERIFY_PARAM_set1_ip_asc(parameters, hostname) != 1 {
                ERR_clear_error()
                X509_VERIFY_PARAM_set_hostflags(
                    parameters, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
                guard X509_VERIFY_PARAM_set1_host(parameters, hostname, hostname.utf8.count) == 1 else {
                    throw OpenSSLStatus.failure("X509_VERIFY_PARAM_set1_host")
                }
            }
        }
        if let purpose {
            let code = purpose == .sslServer ? X509_PURPOSE_SSL_SERVER : X509_PURPOSE_SSL_CLIENT
            try OpenSSLStatus.check(X509_STORE_CTX_set_purpose(context.pointer, code), "X509_STORE_CTX_set_purpose")
        }
        let verified = X509_verify_cert(context.pointer)
        let code = X509_STORE_CTX_get_error(context.pointer)
        let depth = max(0, Int(X509_STORE_CTX_get_error_depth(context.pointer)))
        let chain = X509_STORE_CTX_get1_chain(context.pointer).map { CertificateStack(taking: $0).certificates() }
        ERR_clear_error()
        let built = chain.flatMap { $0.isEmpty ? nil : $0 } ?? [leaf]
        if verified == 1 { return Result(chain: built, failure: nil, failingIndex: 0) }
        return Result(chain: built, failure: Self.failure(code), failingIndex: min(depth, built.count - 1))
    }

    /// The failure an `X509_V_ERR_*` code stands for.
    private static func failure(_ code: Int32) -> Failure {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: .expired
        case X509_V_ERR_CERT_NOT_YET_VALID: .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostnameMismatch
        case X509_V_ERR_INVALID_PURPOSE: .invalidPurpose
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED,
            X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            .notTrusted
        default: .other(code: code, text: String(cString: X509_verify_cert_error_string(Int(code))))
        }
    }
}
