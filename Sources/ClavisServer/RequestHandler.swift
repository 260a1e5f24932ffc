import ClavisCore
import ClavisIPC

/// Carries out one request on a keychain service and says what happened as a response.
enum RequestHandler {
    static func answer(_ request: Request, with service: any KeychainService) -> Response {
        do throws(KeychainError) {
            switch request {
            case .add(let item): return response(try service.add(item)) { .item($0) }
            case .find(let query): return response(try service.find(query)) { .items($0) }
            case .update(let query, let changes):
                return response(try service.update(query, with: changes)) { .count($0) }
            case .delete(let query): return response(try service.delete(query)) { .count($0) }
            case .lock:
                try service.lock()
                return .done
            case .unlock(let passcode):
                try service.unlock(passcode: passcode)
                return .done
            case .verifyPasscode(let passcode, let session):
                return .identity(try service.verifyPasscode(passcode, session: session))
            case .promptForPasscode(let prompt):
                return .identity(try service.promptForPasscode(prompt))
            case .biometryStatus:
                return .biometry(try service.biometryStatus())
            case .scanBiometry(let reason, let session):
                return .biometricCheck(try service.scanBiometry(reason: reason, session: session))
            case .endAuthenticationSession(let session):
                try service.endAuthenticationSession(session)
                return .done
            case .setPasscode(let new, let current, let strength):
                try service.setPasscode(new, current: current, strength: strength)
                return .done
            case .status:
                return .status(try service.status())
            case .exportBackup(let passphrase, let strength):
                let (archive, summary) = try service.exportBackup(passphrase: passphrase, strength: strength)
                return .backup(archive, summary)
            case .importBackup(let archive, let passphrase):
                return .restore(try service.importBackup(archive, passphrase: passphrase))
            }
        } catch {
            return .failure(error)
        }
    }

    private static func response<Result>(_ answer: ServiceAnswer<Result>, _ done: (Result) -> Response) -> Response {
        switch answer {
        case .done(let result): done(result)
        case .needsUnlock: .needsUnlock
        case .needsAuthentication(let policy, let use): .needsAuthentication(policy, use)
        }
    }
}
