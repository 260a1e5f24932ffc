import ClavisCore
import FoundationEssentials

/// clavisd's Secret Service: the provider on the session bus (user mode), each caller identified as a socket peer
/// is, from the credentials the bus daemon gives.
extension KeychainDaemon {
    /// Serves the Secret Service on the session bus, unless another program owns `org.freedesktop.secrets`; says
    /// on the daemon's log whether it owns the name, and why not.
    public func serveSecretService() {
        let provider = SecretServiceProvider(
            keychain: { request, authentication throws(SecretServiceError) in
                try self.secretServiceKeychain(for: request, authentication: authentication)
            },
            record: { request, keychain, failure in
                self.recordSecretServiceCall(request, by: keychain, failure: failure)
            })
        switch SecretServiceBus.serve(provider) {
        case .ownsName:
            DaemonLog.report("serving the Secret Service: owns org.freedesktop.secrets on the session bus")
        case .nameTaken:
            DaemonLog.report("the Secret Service is not served: another program owns org.freedesktop.secrets")
        case .unreachable(let reason):
            DaemonLog.report("the Secret Service is not served: the session bus cannot be reached (\(reason))")
        }
    }

    /// The keychain of the program that sent `request`, identified through the app registry as a socket peer is,
    /// its groups as the Secret Service shares them (`SecretServiceSharing`), what it proved kept in `authentication`:
    /// worked out at the client's first call and kept while its process runs the same program, as a socket
    /// connection keeps its peer. Each call counts as activity on that keychain for `--auto-lock`.
    ///
    /// - Throws: `AccessDenied` for a caller of another user, or one that cannot be identified.
    func secretServiceKeychain(
        for request: SecretServiceRequest, authentication: SecretServiceKeychain.CallerAuthentication
    ) throws(SecretServiceError) -> SecretServiceKeychain {
        guard request.uid == daemonUID else {
            throw SecretServiceError(.accessDenied, "this keychain daemon serves user \(daemonUID) only")
        }
        let caller: IdentifiedCaller.Identity
        if let known = authentication.caller.current() {
            caller = known
        } else {
            do {
                // The bus does not tell the caller's group; nothing here needs it.
                var peer = try PeerProcess.identify(pid: request.pid, uid: request.uid, gid: 0, pidfd: request.pidfd)
                let service = try service(
                    for: &peer, adjust: SecretServiceSharing.adjust, ledger: authentication.ledger)
                caller = IdentifiedCaller.Identity(peer: peer, service: service)
            } catch {
                throw SecretServiceError(.accessDenied, error.reason)
            }
            authentication.caller.keep(caller)
        }
        idleLock?.noteActivity(on: caller.service.home, at: .now)
        return SecretServiceKeychain(
            service: caller.service, authentication: authentication, peer: caller.peer, session: secretServiceSession)
    }

    /// Records a Secret Service call in the access log, as a socket request is: who called (from the bus's
    /// credentials and the app registry), the method, and how it was answered.
    func recordSecretServiceCall(
        _ request: SecretServiceRequest, by keychain: SecretServiceKeychain?, failure: SecretServiceError?
    ) {
        let (status, outcome) = failure.map(\.logged) ?? (0, "done")
        accessLog.record(
            AccessLogEntry(
                time: Date(), uid: request.uid, pid: keychain?.peer.pid ?? request.pid,
                executable: keychain?.peer.executable,
                application: keychain?.service.entitlements.applicationIdentifier,
                operation: "secret-service \(request.operation)", itemClass: ItemClass.genericPassword.rawValue,
                accessGroups: keychain.map { [$0.service.entitlements.defaultGroup] } ?? [], status: status,
                outcome: outcome, unregisteredBecause: keychain?.peer.unregisteredBecause))
    }
}
