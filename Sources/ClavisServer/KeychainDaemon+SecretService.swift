import ClavisCore

/// clavisd's Secret Service: the provider on the session bus (user mode), each caller identified as a socket peer
/// is, from the credentials the bus daemon gives.
extension KeychainDaemon {
    /// Serves the Secret Service on the session bus, unless another program owns `org.freedesktop.secrets`; says
    /// on the daemon's log whether it owns the name, and why not.
    public func serveSecretService() {
        let provider = SecretServiceProvider { request, authentication throws(SecretServiceError) in
            try self.secretServiceKeychain(for: request, authentication: authentication)
        }
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
    /// its groups as the Secret Service shares them (`SecretServiceSharing`), what it proved kept in `authentication`.
    ///
    /// - Throws: `AccessDenied` for a caller of another user, or one that cannot be identified.
    func secretServiceKeychain(
        for request: SecretServiceRequest, authentication: SecretServiceKeychain.CallerAuthentication
    ) throws(SecretServiceError) -> SecretServiceKeychain {
        guard request.uid == daemonUID else {
            throw SecretServiceError(.accessDenied, "this keychain daemon serves user \(daemonUID) only")
        }
        do {
            // The bus does not tell the caller's group; nothing here needs it.
            let peer: PeerProcess
            if let known = authentication.peer.current(pid: request.pid) {
                peer = known
            } else {
                peer = try PeerProcess.identify(pid: request.pid, uid: request.uid, gid: 0, pidfd: request.pidfd)
                authentication.peer.keep(peer)
            }
            let service = try service(
                for: peer, adjust: SecretServiceSharing.adjust, ledger: authentication.ledger)
            return SecretServiceKeychain(service: service, authentication: authentication)
        } catch {
            throw SecretServiceError(.accessDenied, error.reason)
        }
    }
}
