import ClavisCore
import ClavisCrypto

// Evaluation builds the chain with OpenSSL (CertificateChainVerifier) from the certificates given and the
// anchors, and answers with Apple's codes: errSecCertificateExpired, errSecCertificateNotValidYet,
// errSecHostNameMismatch, errSecInvalidExtendedKeyUsage, or errSecNotTrusted for any other refusal.

/// The directory of system anchors, as Debian and its derivatives keep it (hashed links made by c_rehash).
private let systemAnchorDirectory = "/etc/ssl/certs"

extension SecTrust {
    /// The last evaluation, or a new one when a setting changed since.
    func evaluation() -> Evaluation {
        state.withLock { state in
            if let evaluation = state.evaluation { return evaluation }
            let evaluation = Self.evaluate(state)
            state.evaluation = evaluation
            return evaluation
        }
    }

    /// Verifies the chain the state describes against every policy, as Apple's trust requires: each SSL policy on
    /// its own (its purpose and host name), and basic X.509 as the chain alone; the first failure is the answer.
    private static func evaluate(_ state: State) -> Evaluation {
        var checks: [(server: Bool, hostname: String?)?] = state.policies.compactMap { policy in
            guard case .ssl(let server, let hostname) = policy.kind else { return nil }
            return (server, hostname)
        }
        if checks.isEmpty { checks = [nil] }
        var passed: Evaluation?
        for ssl in checks {
            let evaluation = evaluate(state, ssl: ssl)
            if evaluation.failure != nil { return evaluation }
            passed = evaluation
        }
        return passed ?? evaluate(state, ssl: nil)
    }

    /// Verifies the chain for one SSL policy's purpose and host name, or for basic X.509 when `ssl` is nil.
    private static func evaluate(_ state: State, ssl: (server: Bool, hostname: String?)?) -> Evaluation {
        var verifier = CertificateChainVerifier()
        verifier.anchors = (state.anchors ?? []).map(\.certificate)
        verifier.trustsSystemAnchors = !state.anchorsOnly
        verifier.systemAnchorDirectory = systemAnchorDirectory
        // A date a caller set may be anything a Double holds: NaN counts as now, the rest is clamped to the years
        // 1 to 9999, which certificates' times can name.
        verifier.time = state.verifyDate.flatMap { date in
            let seconds = date.timeIntervalSince1970.rounded(.down)
            guard !seconds.isNaN else { return nil }
            return Int64(min(max(seconds, -62_135_596_800), 253_402_300_799))
        }
        if let ssl {
            verifier.purpose = ssl.server ? .sslServer : .sslClient
            if ssl.server, let hostname = ssl.hostname, !hostname.isEmpty { verifier.hostname = hostname }
        }
        let leaf = state.certificates[0]
        guard
            let result = try? verifier.verify(
                leaf.certificate, intermediates: state.certificates.dropFirst().map(\.certificate))
        else {
            return Evaluation(chain: [leaf], failure: (errSecInternal, "the trust could not be evaluated"))
        }
        let known = state.certificates + (state.anchors ?? [])
        let chain = result.chain.map { built in
            known.first { $0.certificate.der == built.der } ?? SecCertificate(built)
        }
        guard let failure = result.failure else { return Evaluation(chain: chain, failure: nil) }
        let name = "\u{201C}\(chain[result.failingIndex].subjectSummary ?? "")\u{201D} certificate"
        switch failure {
        case .expired: return Evaluation(chain: chain, failure: (errSecCertificateExpired, "\(name) is expired"))
        case .notYetValid:
            return Evaluation(chain: chain, failure: (errSecCertificateNotValidYet, "\(name) is not yet valid"))
        case .hostnameMismatch:
            return Evaluation(chain: chain, failure: (errSecHostNameMismatch, "\(name) name does not match input"))
        case .invalidPurpose:
            return Evaluation(
                chain: chain, failure: (errSecInvalidExtendedKeyUsage, "\(name) is not permitted for this usage"))
        case .notTrusted, .other:
            return Evaluation(chain: chain, failure: (errSecNotTrusted, "\(name) is not trusted"))
        }
    }
}

/// Evaluates the trust: true when the chain ends at a trusted anchor and meets every policy; otherwise false,
/// with an `NSOSStatusErrorDomain` error carrying Apple's code and description.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    guard let failure = trust.evaluation().failure else {
        error?.pointee = nil
        return true
    }
    error?.pointee = NSError(
        domain: NSOSStatusErrorDomain, code: Int(failure.status),
        userInfo: [NSLocalizedDescriptionKey: failure.description])
    return false
}

/// Returns the leaf certificate's public key (nil when it is not a key `SecKey` supports).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    let leaf = trust.state.withLock { $0.certificates[0] }
    return SecCertificateCopyKey(leaf)
}

/// Returns the number of certificates in the chain the evaluation built (evaluating first if needed).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    trust.evaluation().chain.count
}

/// Returns the chain the evaluation built, leaf first and the anchor last (evaluating first if needed); on a
/// failed evaluation, as much of it as was built.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    trust.evaluation().chain as NSArray
}
