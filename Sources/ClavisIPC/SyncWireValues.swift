import ClavisCore
import FoundationEssentials

// How sync commands and sync status travel between clients and clavisd.
extension ByteWriter {
    mutating func syncCommand(_ command: SyncCommand) {
        switch command {
        case .status:
            byte(0)
        case .enable(let server, let name):
            byte(1)
            string(server)
            string(name)
        case .join(let server, let name):
            byte(2)
            string(server)
            string(name)
        case .approve(let code):
            byte(3)
            string(code)
        case .remove(let device):
            byte(4)
            string(device)
        case .recover(let server, let name, let recoveryKey):
            byte(5)
            string(server)
            string(name)
            secret(recoveryKey)
        case .disable(let forget):
            byte(6)
            bool(forget)
        case .now:
            byte(7)
        }
    }

    mutating func syncStatus(_ status: SyncStatus) {
        string(status.state.rawValue)
        optional(status.server) { $0.string($1) }
        optional(status.device) { $0.syncDevice($1) }
        optional(status.joinCode) { $0.string($1) }
        uint32(UInt32(status.members.count))
        for member in status.members { syncDevice(member) }
        optional(status.lastRound) { (writer, round) in
            writer.uint64(UInt64(max(0, round.ended.timeIntervalSince1970 * 1000)))
            for count in [round.applied, round.sent, round.kept, round.refused] { writer.uint64(UInt64(max(count, 0))) }
        }
        optional(status.lastError) { $0.string($1) }
        bool(status.runsInBackground)
        optional(status.recoveryKey) { $0.secret($1) }
    }

    private mutating func syncDevice(_ device: SyncStatus.Device) {
        string(device.identifier)
        string(device.name)
    }
}

extension ByteReader {
    mutating func syncCommand() throws(KeychainError) -> SyncCommand {
        switch try byte() {
        case 0: return .status
        case 1: return .enable(server: try string(), deviceName: try string())
        case 2: return .join(server: try string(), deviceName: try string())
        case 3: return .approve(code: try string())
        case 4: return .remove(device: try string())
        case 5: return .recover(server: try string(), deviceName: try string(), recoveryKey: try secret())
        case 6: return .disable(forget: try bool())
        case 7: return .now
        default: throw malformed("an unknown sync command")
        }
    }

    mutating func syncStatus() throws(KeychainError) -> SyncStatus {
        guard let state = SyncStatus.State(rawValue: try string()) else { throw malformed("an unknown sync state") }
        var status = SyncStatus(state: state)
        status.server = try optional { (reader) throws(KeychainError) in try reader.string() }
        status.device = try optional { (reader) throws(KeychainError) in try reader.syncDevice() }
        status.joinCode = try optional { (reader) throws(KeychainError) in try reader.string() }
        let count = try uint32()
        guard count <= 10_000 else { throw malformed("\(count) devices") }
        for _ in 0..<count { status.members.append(try syncDevice()) }
        status.lastRound = try optional { (reader) throws(KeychainError) in
            let ended = Date(timeIntervalSince1970: Double(try reader.uint64()) / 1000)
            func count() throws(KeychainError) -> Int { Int(clamping: try reader.uint64()) }
            return SyncStatus.Round(
                ended: ended, applied: try count(), sent: try count(), kept: try count(), refused: try count())
        }
        status.lastError = try optional { (reader) throws(KeychainError) in try reader.string() }
        status.runsInBackground = try bool()
        status.recoveryKey = try optional { (reader) throws(KeychainError) in try reader.secret() }
        return status
    }

    private mutating func syncDevice() throws(KeychainError) -> SyncStatus.Device {
        SyncStatus.Device(identifier: try string(), name: try string())
    }
}
