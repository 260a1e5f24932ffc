import ClavisClient
import ClavisCore
import ClavisCrypto

// Evaluation is CertificateTrust's (ClavisClient): OpenSSL builds the chain from the certificates given and the
// anchors, and a refusal answers with Apple's codes.

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

    /// Evaluates the chain the state describes under its policies; the chain built comes back as the
    /// `SecCertificate` objects the caller gave where it holds them.
    private static func evaluate(_ state: State) -> Evaluation {
        var trust = CertificateTrust(
            certificates: state.certificates.map(\.certificate), policies: state.policies.map(\.kind))
        trust.anchors = (state.anchors ?? []).map(\.certificate)
        trust.anchorsOnly = state.anchorsOnly
        // A date a caller set may be anything a Double holds: NaN counts as now, the rest is clamped to the years
        // 1 to 9999, which certificates' times can name.
        trust.time = state.verifyDate.flatMap { date in
            let seconds = date.timeIntervalSince1970.rounded(.down)
            guard !seconds.isNaN else { return nil }
            return Int64(min(max(seconds, -62_135_596_800), 253_402_300_799))
        }
        let evaluation = trust.evaluate()
        let known = state.certificates + (state.anchors ?? [])
        let chain = evaluation.chain.map { built in
            known.first { $0.certificate.der == built.der } ?? SecCertificate(built)
        }
        return Evaluation(chain: chain, failure: evaluation.failure.map { ($0.osStatus, $0.reason) })
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
