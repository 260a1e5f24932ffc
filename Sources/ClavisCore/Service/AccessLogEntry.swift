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

    /// Creates an entry.
    public init(
        time: Date, uid: UInt32, pid: Int32, executable: String?, application: String?, operation: String,
        itemClass: String? = nil, accessGroups: [String] = [], items: [String] = [], status: Int32, outcome: String
    ) {
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
        case time, uid, pid, executable, application, operation, accessGroups, items, status, outcome
        case itemClass = "class"
    }

    /// The time as ISO 8601 in UTC with milliseconds, as the log's lines and `clavis log` show it.
    public var timeText: String { Self.timeStyle.format(time) }

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

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
    }

    /// The entry as one line of JSON (no line break inside: strings escape theirs), without its line break.
    public var jsonLine: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// Reads one line of the log; `nil` for a line that is not an entry (a torn last line after a crash).
    public init?(jsonLine: some Collection<UInt8>) {
        guard let entry = try? JSONDecoder().decode(Self.self, from: Data(jsonLine)) else { return nil }
        self = entry
    }
}
