public import ClavisCore
import ClavisSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the passcode on the controlling terminal (`/dev/tty`) with echo off, so it works even when standard
/// input and output are redirected.
///
/// The terminal is put in non-canonical mode without echo or signals while the passcode is typed: Enter ends it,
/// Backspace deletes, Ctrl-U clears, Ctrl-C (and Ctrl-D on an empty line, or end of input) cancels. The terminal's
/// settings are restored afterwards. Three attempts per evaluation, as `sudo` allows.
public struct TerminalPasscodeReader: PasscodeReader {
    /// A reader when the process has a controlling terminal; `nil` otherwise.
    public init?() {
        guard (try? FileDescriptor(opening: "/dev/tty", O_RDWR | O_NOCTTY)) != nil else { return nil }
    }

    /// Three attempts.
    public var attempts: Int { 3 }

    /// Writes `prompt` to the terminal and reads a line without echo; `nil` when canceled.
    public func readPasscode(prompt: String) -> SecureBytes? {
        guard let terminal = try? FileDescriptor(opening: "/dev/tty", O_RDWR | O_NOCTTY) else { return nil }
        let descriptor = terminal.rawValue
        var saved = termios()
        let canConfigure = tcgetattr(descriptor, &saved) == 0
        if canConfigure {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
            withUnsafeMutableBytes(of: &raw.c_cc) { characters in
                characters[Int(VMIN)] = 1
                characters[Int(VTIME)] = 0
            }
            tcsetattr(descriptor, TCSAFLUSH, &raw)
        }
        defer {
            if canConfigure { tcsetattr(descriptor, TCSAFLUSH, &saved) }
            show(descriptor, "\n")
        }
        // The prompt comes after echo is off, so nothing typed once it shows is echoed or flushed away.
        show(descriptor, prompt)
        let capacity = KeychainLimits.passcodeBytes
        var length = 0
        var canceled = false
        var tooLong = false
        let typed = SecureBytes(count: capacity) { buffer in
            var byte: UInt8 = 0
            while true {
                let count = SystemCall.retrying { read(descriptor, &byte, 1) }
                if count <= 0 || byte == 0x03 || (byte == 0x04 && length == 0) {
                    canceled = true
                    break
                }
                switch byte {
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x04: return
                case 0x7F, 0x08: length = max(0, length - 1)
                case 0x15:
                    length = 0
                    tooLong = false
                default:
                    if length < capacity {
                        buffer[length] = byte
                        length += 1
                    } else {
                        tooLong = true
                    }
                }
            }
            byte = 0
        }
        // An over-long entry cannot be any passcode: refuse it rather than check a truncated one.
        if canceled || tooLong { return nil }
        return typed.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    private func show(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
