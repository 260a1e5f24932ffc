import ClavisClient
import ClavisCore
import FoundationEssentials

/// `log`: what clavisd recorded of the operations it served for this user (root: for every user), oldest first.
struct LogCommand: RunnableCommand {
    var query: AccessLogQuery

    static let descriptor = CommandDescriptor(
        name: "log",
        summary: "Show clavisd's access log: which program did what to which item, and the status (your own only).",
        options: [
            OptionSpec(
                flag: "--since", valueName: "time",
                help: "only entries since then: ISO 8601 (2026-12-01T09:30:00Z) or a span ago (90s, 15m, 2h, 7d)"),
            OptionSpec(
                flag: "--item", valueName: "reference",
                help: "only entries for this item: its persistentReference from clavis --json find-*"),
        ],
        usesItems: false
    ) { (parsed) throws(UsageError) in
        var query = AccessLogQuery()
        if let since = parsed.value("--since") {
            guard let time = Self.time(since, now: Date()) else {
                throw UsageError(message: "--since takes an ISO 8601 time or a span such as 15m, 2h or 7d")
            }
            query.since = time
        }
        if let item = parsed.value("--item") {
            guard let bytes = Data(base64Encoded: item), !bytes.isEmpty else {
                throw UsageError(message: "--item takes an item's persistentReference (base64)")
            }
            query.item = PersistentReference(bytes: Array(bytes))
        }
        return LogCommand(query: query)
    }

    func run(_ context: CommandContext) -> Int32 {
        let entries: [AccessLogEntry]
        do throws(KeychainError) {
            entries = try KeychainClient().accessLog(query)
        } catch {
            return context.fail("ClavisCopyAccessLog", error)
        }
        if context.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            Console.out((try? String(decoding: encoder.encode(entries), as: UTF8.self)) ?? "[]")
        } else if !entries.isEmpty {
            Console.out(entries.map(Self.line).joined(separator: "\n"))
        }
        return ExitStatus.success
    }

    /// One entry as a line: time, user and process, program, operation, class, groups, items, status.
    static func line(_ entry: AccessLogEntry) -> String {
        var words = [
            entry.timeText, "uid=\(entry.uid)", "pid=\(entry.pid)",
            ItemFormatter.printable(entry.executable ?? "(unidentified)"),
        ]
        if let application = entry.application { words.append("app=" + ItemFormatter.printable(application)) }
        words.append(entry.operation)
        if let itemClass = entry.itemClass { words.append("class=" + itemClass) }
        if !entry.accessGroups.isEmpty {
            words.append("groups=" + entry.accessGroups.map(ItemFormatter.printable).joined(separator: ","))
        }
        if !entry.items.isEmpty { words.append("items=" + entry.items.joined(separator: ",")) }
        words.append("status=\(entry.status) (\(entry.outcome))")
        return words.joined(separator: " ")
    }

    /// `text` as a time: ISO 8601 (with or without fractions of a second), or a span before `now` such as `15m`.
    static func time(_ text: String, now: Date) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 else {
            return nil
        }
        return now.addingTimeInterval(-count * unit)
    }
}
