import ClavisCore
import FoundationEssentials

// How the authentication calls' values travel between a client and clavisd; every reader checks what it reads.

extension ByteWriter {
    mutating func session(_ value: AuthenticationSessionID) { uint64(value.rawValue) }

    mutating func failure(_ value: AuthenticationFailure) { uint32(UInt32(bitPattern: Int32(value.rawValue))) }

    mutating func enrolment(_ value: Result<Data, AuthenticationFailure>) {
        switch value {
        case .success(let enrolment):
            byte(0)
            lengthPrefixed(enrolment)
        case .failure(let failure):
            byte(1)
            self.failure(failure)
        }
    }

    mutating func biometry(_ value: BiometryStatus) {
        byte(value.kind.rawValue)
        enrolment(value.enrolment)
        bool(value.isLockedOut)
    }

    mutating func prompt(_ value: PasscodePrompt) {
        switch value.purpose {
        case .unlock: byte(0)
        case .verify(let session):
            byte(1)
            self.session(session)
        }
        string(value.description)
        uint32(UInt32(value.hints.count))
        for (name, hint) in value.hints.sorted(by: { $0.key < $1.key }) {
            string(name)
            string(hint)
        }
    }
}

extension ByteReader {
    /// The most hints a prompt may carry (the GnuPG options are a handful).
    static let maximumPromptHints: UInt32 = 16

    mutating func session() throws(KeychainError) -> AuthenticationSessionID {
        AuthenticationSessionID(rawValue: try uint64())
    }

    mutating func failure() throws(KeychainError) -> AuthenticationFailure {
        guard let failure = AuthenticationFailure(rawValue: Int(Int32(bitPattern: try uint32()))) else {
            throw malformed("an unknown authentication failure")
        }
        return failure
    }

    mutating func enrolment() throws(KeychainError) -> Result<Data, AuthenticationFailure> {
        switch try byte() {
        case 0: .success(try data())
        case 1: .failure(try failure())
        default: throw malformed("an unknown biometric outcome")
        }
    }

    mutating func biometry() throws(KeychainError) -> BiometryStatus {
        guard let kind = BiometryKind(rawValue: try byte()) else { throw malformed("an unknown kind of sensor") }
        return BiometryStatus(kind: kind, enrolment: try enrolment(), isLockedOut: try bool())
    }

    mutating func prompt() throws(KeychainError) -> PasscodePrompt {
        let purpose: PasscodePrompt.Purpose
        switch try byte() {
        case 0: purpose = .unlock
        case 1: purpose = .verify(try session())
        default: throw malformed("an unknown prompt purpose")
        }
        let description = try string()
        let count = try uint32()
        guard count <= Self.maximumPromptHints else { throw malformed("too many prompt hints") }
        var hints: [String: String] = [:]
        for _ in 0..<count { hints[try string()] = try string() }
        return PasscodePrompt(purpose: purpose, description: description, hints: hints)
    }
}
