import ClavisCore
import ClavisCrypto
import Synchronization

/// A certificate chain to evaluate under policies (Apple's `SecTrust`): the certificates given, the anchors
/// trusted, the verification date and the last evaluation's outcome.
///
/// Its settings change through Apple's setter functions, so they sit behind a mutex; any change forgets the
/// last evaluation.
public final class SecTrust: Sendable {
    /// What a trust holds.
    struct State {
        /// The leaf first, then any other certificates that may help build the chain.
        var certificates: [SecCertificate]
        /// The policies the leaf is evaluated under.
        var policies: [SecPolicy]
        /// The anchors set by `SecTrustSetAnchorCertificates`; nil for the system's.
        var anchors: [SecCertificate]?
        /// When true, the system's anchors are not trusted.
        var anchorsOnly = false
        /// The verification date; nil for now.
        var verifyDate: Date?
        /// The last evaluation, until a setting changes.
        var evaluation: Evaluation?
    }

    /// The outcome of an evaluation.
    struct Evaluation {
        /// The chain built, leaf first.
        var chain: [SecCertificate]
        /// Nil when trusted; otherwise the status and Apple's description of the failure.
        var failure: (status: OSStatus, description: String)?
    }

    /// The settings and the last evaluation.
    let state: Mutex<State>

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        state = Mutex(State(certificates: certificates, policies: policies))
    }

    /// Runs `body` on the settings, forgetting the last evaluation.
    func change(_ body: (inout State) -> Void) {
        state.withLock { state in
            body(&state)
            state.evaluation = nil
        }
    }
}

/// Returns the type identifier of trusts: what `CFGetTypeID` answers for a `SecTrust`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustGetTypeID() -> CFTypeID { CoreFoundationTypeID.trust.rawValue }

/// Makes a trust for `certificates` (one `SecCertificate`, or an array whose first is the leaf) under `policies`
/// (one `SecPolicy`, an array of them, or nil for the basic X.509 policy); `errSecParam` for anything else.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    trust.pointee = nil
    let certificateList: [SecCertificate]
    if let certificate = certificates as? SecCertificate {
        certificateList = [certificate]
    } else if let array = certificates as? NSArray, let list = array as? [SecCertificate], !list.isEmpty,
        list.count == array.count
    {
        certificateList = list
    } else {
        return errSecParam
    }
    let policyList: [SecPolicy]
    switch policies {
    case nil: policyList = [SecPolicyCreateBasicX509()]
    case let policy as SecPolicy: policyList = [policy]
    case let array as NSArray:
        guard let list = array as? [SecPolicy], list.count == array.count else { return errSecParam }
        policyList = list
    default: return errSecParam
    }
    trust.pointee = SecTrust(certificates: certificateList, policies: policyList)
    return errSecSuccess
}

/// Trusts only `anchorCertificates` (any certificate among them, a root or not), or the system's anchors again
/// when nil; call `SecTrustSetAnchorCertificatesOnly(trust, false)` to trust the system's as well.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    var anchors: [SecCertificate]?
    if let anchorCertificates {
        guard let list = anchorCertificates as? [SecCertificate], list.count == anchorCertificates.count else {
            return errSecParam
        }
        anchors = list
    }
    trust.change { state in
        state.anchors = anchors
        state.anchorsOnly = anchors != nil
    }
    return errSecSuccess
}

/// Says whether only the anchors set by `SecTrustSetAnchorCertificates` are trusted (true) or the system's too.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.change { $0.anchorsOnly = anchorCertificatesOnly }
    return errSecSuccess
}

/// Evaluates validity periods at `verifyDate` instead of now.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    let date = verifyDate as Date
    trust.change { $0.verifyDate = date }
    return errSecSuccess
}
