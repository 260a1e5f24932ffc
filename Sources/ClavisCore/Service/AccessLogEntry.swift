public import FoundationEssentials

/// One operation clavisd served, as its access log records it: who asked (from the kernel, never the client's word),
/// what was asked, which items it touched and what the answer was. Never an attribute value or a secret: items are
/// named by their persistent reference, which says nothing about what they hold.
public struct AccessLogEntry: Sendable, Hashable, Codable {
    /// When the daemon answered.
    public var time: Date
    /// The caller's user.
    public var uid: UInt32
    /// The caller's process.
    public var pid: Int32
    /// The caller's executable as the daemon identified it, or `nil` when it could not be identified.
    public var executable: String?
    /// The application identifier the app registry gives that executable.
    public var application: String?
    /// The operation: `add`, `find`, `update`, `delete`, `lock`, `unlock`, `verifyPasscode`, `scanBiometry`, ...
    public var operation: String
    /// The item class of an item operation (`genp`, `inet`, ...).
    public var itemClass: String?
    /// The access groups the operation asked for or touched (empty: every group of the caller).
    public var accessGroups: [String]
    /// The items it touched: each one's persistent reference, base64 (as `clavis --json find-*` prints it).
    public var items: [String]
    /// The status answered: `errSecSuccess` (0), or the `OSStatus` of the failure.
    public var status: Int32
    /// What the answer was, in words: `done`, `not found`, `needs unlock`, `needs authentication` or `failed`.
    public var outcome: String
    /// Why the caller was served as unregistered although it runs a registered app (traced, a loader override, code
    /// another user could change), or not served at all; `nil` when it was served as what it runs.
    public var unregisteredBecause: String?

    /// Creates an entry.
    public init(
        time: Date, uid: UInt32, pid: Int32, executable: String?, application: String?, operation: String,
        itemClass: String? = nil, accessGroups: [String] = [], items: [String] = [], status: Int32, outcome: String,
        unregisteredBecause: String? = nil
    ) {
        self.unregisteredBecause = unregisteredBecause
        self.time = time
        self.uid = uid
        self.pid = pid
        self.executable = executable
        self.application = application
        self.operation = operation
        self.itemClass = itemClass
        self.accessGroups = accessGroups
        self.items = items
        self.status = status
        self.outcome = outcome
    }

    private enum CodingKeys: String, CodingKey {
        case time, uid, pid, executable, application, operation, accessGroups, items, status, outcome,
            unregisteredBecause
        case itemClass = "class"
    }

    /// The time as ISO 8601 in UTC with milliseconds (`2026-12-01T09:30:00.125Z`), as the log's lines and
    /// `clavis log` show it.
    public var timeText: String { String(decoding: Self.timeBytes(time), as: UTF8.self) }

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The ISO 8601 text of `time`, computed directly (days to a civil date, after Howard Hinnant's algorithm):
    /// a formatter costs microseconds, and the daemon writes one entry per request.
    private static func timeBytes(_ time: Date) -> [UInt8] {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let (dayNumber, millisecond) =
            dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(month, 2)
        text.append(UInt8(ascii: "-"))
        digits(day, 2)
        text.append(UInt8(ascii: "T"))
        digits(millisecond / 3_600_000, 2)
        text.append(UInt8(ascii: ":"))
        digits(millisecond / 60_000 % 60, 2)
        text.append(UInt8(ascii: ":"))
        digits(millisecond / 1000 % 60, 2)
        text.append(UInt8(ascii: "."))
        digits(millisecond % 1000, 3)
        text.append(UInt8(ascii: "Z"))
        return text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try Self.timeStyle.parse(try container.decode(String.self, forKey: .time))
        uid = try container.decode(UInt32.self, forKey: .uid)
        pid = try container.decode(Int32.self, forKey: .pid)
        executable = try container.decodeIfPresent(String.self, forKey: .executable)
        application = try container.decodeIfPresent(String.self, forKey: .application)
        operation = try container.decode(String.self, forKey: .operation)
        itemClass = try container.decodeIfPresent(String.self, forKey: .itemClass)
        accessGroups = try container.decodeIfPresent([String].self, forKey: .accessGroups) ?? []
        items = try container.decodeIfPresent([String].self, forKey: .items) ?? []
        status = try container.decode(Int32.self, forKey: .status)
        outcome = try container.decode(String.self, forKey: .outcome)
        unregisteredBecause = try container.decodeIfPresent(String.self, forKey: .unregisteredBecause)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeText, forKey: .time)
        try container.encode(uid, forKey: .uid)
        try container.encode(pid, forKey: .pid)
        try container.encodeIfPresent(executable, forKey: .executable)
        try container.encodeIfPresent(application, forKey: .application)
        try container.encode(operation, forKey: .operation)
        try container.encodeIfPresent(itemClass, forKey: .itemClass)
        try container.encode(accessGroups, forKey: .accessGroups)
        try container.encode(items, forKey: .items)
        try container.encode(status, forKey: .status)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(unregisteredBecause, forKey: .unregisteredBecause)
    }

    /// The entry as one line of JSON (no line break inside: strings escape theirs), without its line break; the
    /// same object `encode(to:)` makes, written directly rather than through `JSONEncoder` (about 15 µs an entry).
    public var jsonLine: [UInt8] {
        var line = JSONLine()
        line.bytes += Array("{\"time\":\"".utf8) + Self.timeBytes(time) + [UInt8(ascii: "\"")]
        line.key("uid")
        line.number(Int64(uid))
        line.key("pid")
        line.number(Int64(pid))
        if let executable {
            line.key("executable")
            line.string(executable)
        }
        if let application {
            line.key("application")
            line.string(application)
        }
        line.key("operation")
        line.string(operation)
        if let itemClass {
            line.key("class")
            line.string(itemClass)
        }
        line.key("accessGroups")
        line.strings(accessGroups)
        line.key("items")
        line.strings(items)
        line.key("status")
        line.number(Int64(status))
        line.key("outcome")
        line.string(outcome)
        if let unregisteredBecause {
            line.key("unregisteredBecause")
            line.string(unregisteredBecause)
        }
        line.bytes.append(UInt8(ascii: "}"))
        return line.bytes
    }

    /// Reads one line of the log; `nil` for a line that is not an entry (a torn last line after a crash).
    public init?(jsonLine: some Collection<UInt8>) {
        guard let entry = try? JSONDecoder().decode(Self.self, from: Data(jsonLine)) else { return nil }
        self = entry
    }
}

/// A JSON object written byte by byte, for `AccessLogEntry.jsonLine`.
private struct JSONLine {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(384) }

    /// `,"name":`, the start of a field after the first.
    mutating func key(_ name: String) {
        bytes.append(UInt8(ascii: ","))
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A JSON string: quotes and backslashes escaped, control bytes (line breaks included) as `\u00XX`.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most texts (paths, identifiers, references) need no escape: their bytes are copied at once.
        let copied =
            text.utf8.withContiguousStorageIfAvailable { utf8 in
                guard !utf8.contains(where: Self.needsEscape) else { return false }
                bytes.append(contentsOf: utf8)
                return true
            } ?? false
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")]
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0xF))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON array of strings.
    mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A decimal integer.
    mutating func number(_ value: Int64) {
        var text = String(value)
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// True for a byte written escaped: a quote, a backslash or a control byte.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
