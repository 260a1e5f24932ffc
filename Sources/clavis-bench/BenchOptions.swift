/// clavis-bench's command line, checked before anything runs: `--help` prints the usage, and an unknown option, a
/// missing value or a value out of range is a one-line error (exit 2) rather than a default taken silently.
struct BenchOptions {
    /// What every mode is for and the options it takes.
    static let usage = """
        usage: clavis-bench [--sizes 1000,100000] [--operations 1000] [--keep-dir DIR] [--cli-calls 200]
                            [--daemon on|off] [--tpm TCTI] [--tpm-operations 50] [--tpm-items 100000]
          The keychain's speed, measured in a release build, below the API (the engine) and through it (Security,
          and the clavis command against gnome-keyring's secret-tool), beside the floors no keychain can beat here.
            --sizes 1000,100000,1000000  adds the million-item keychain (built once in DIR and reused by later runs)
            --keep-dir DIR               where keychains of a million items or more are kept ($TMPDIR/clavis-bench)
            --cli-calls 0                skips the command-line and Secret Service comparisons
            --daemon off                 skips the rows through clavisd (the same calls over its socket, 8 clients)
            --tpm TCTI                   the TPM for the TPM rows (default CLAVIS_TPM_TCTI); without one, skipped
        clavis-bench keys [--operations 1000]          only the SecKey P-256 rows and openssl speed ecdsap256
        clavis-bench secret-service [--lookups 500]    only the Secret Service lookups, clavisd against gnome-keyring
        clavis-bench tpm [--tpm TCTI] [--tpm-operations 50] [--tpm-items 100000]
                                                       only the TPM rows: opening with a TPM-sealed device key against
                                                       a file key, a write, a P-256 signature in the TPM and in software
        clavis-bench daemon-load [--items 100000] [--calls 10000] [--workload reads|adds|mix]
                                                       only the daemon load rows: reads, adds and the mix through one
                                                       clavisd, one client and then 8 (adds: a quarter of the calls)
        clavis-bench instructions [--operations 500]   only the instructions per SecItemCopyMatching and SecItemAdd,
                                                       counted by valgrind's callgrind on 1,000 items
        clavis-bench sync --database CONNINFO [--writes 200] [--items 10000]
                                                       only the sync rows, two clavisd syncing through the PostgreSQL
                                                       server CONNINFO names (a role that may create schemas and
                                                       roles): a write on one readable on the other, and a new device
                                                       receiving ITEMS items
        Exit status: 0 measured, 1 a measurement failed, 2 a usage error.
        """

    /// The mode the first argument names, or nil for the whole benchmark.
    let mode: String?
    private let values: [String: String]

    /// Why the command line does not run a measurement.
    enum Refusal: Error {
        /// `--help` or `-h`: the usage goes to standard output.
        case help
        /// A usage error, said in one line.
        case invalid(String)
    }

    /// What an option's value must be.
    private enum Value {
        case count(minimum: Int)
        case sizes
        case onOff
        case text
    }

    private static let options: [String: Value] = [
        "--sizes": .sizes, "--operations": .count(minimum: 1), "--keep-dir": .text, "--cli-calls": .count(minimum: 0),
        "--daemon": .onOff, "--tpm": .text, "--tpm-operations": .count(minimum: 1), "--tpm-items": .count(minimum: 0),
        "--lookups": .count(minimum: 1), "--items": .count(minimum: 1), "--calls": .count(minimum: 4),
        "--workload": .text, "--database": .text, "--writes": .count(minimum: 1),
    ]

    /// The options each mode takes (nil: the whole benchmark).
    private static let accepted: [String?: Set<String>] = [
        nil: [
            "--sizes", "--operations", "--keep-dir", "--cli-calls", "--daemon", "--tpm", "--tpm-operations",
            "--tpm-items",
        ],
        "keys": ["--operations"], "secret-service": ["--lookups"], "tpm": ["--tpm", "--tpm-operations", "--tpm-items"],
        "instructions": ["--operations"], "api-calls": ["--operations"],
        "daemon-load": ["--items", "--calls", "--workload"], "sync": ["--database", "--writes", "--items"],
    ]

    /// Reads `arguments` (the command line without the program's name).
    init(_ arguments: [String]) throws(Refusal) {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            guard Self.accepted[first] != nil else { throw .invalid("unknown mode '\(first.prefix(40))'") }
            mode = first
            rest = rest.dropFirst()
        } else {
            mode = nil
        }
        var values: [String: String] = [:]
        while let name = rest.popFirst() {
            if name == "--help" || name == "-h" { throw .help }
            guard let kind = Self.options[name], Self.accepted[mode]?.contains(name) == true else {
                throw .invalid(
                    "'\(name.prefix(40))' is not an option of \(mode.map { "clavis-bench \($0)" } ?? "clavis-bench")")
            }
            // An option's name, or a request for help, is never taken as the value before it.
            guard let value = rest.popFirst(), Self.options[value] == nil, value != "--help", value != "-h" else {
                throw .invalid("\(name) needs a value")
            }
            guard values[name] == nil else { throw .invalid("\(name) is given twice") }
            guard Self.admits(value, kind) else { throw .invalid("'\(value.prefix(40))' is not a value of \(name)") }
            values[name] = value
        }
        self.values = values
    }

    private static func admits(_ value: String, _ kind: Value) -> Bool {
        switch kind {
        case .count(let minimum): Int(value).map { $0 >= minimum } ?? false
        case .sizes:
            !value.isEmpty
                && value.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { part in
                    Int(part).map { $0 >= 1 } ?? false
                }
        case .onOff: value == "on" || value == "off"
        case .text: !value.isEmpty
        }
    }

    /// The value given for `name`, if any.
    func text(_ name: String) -> String? { values[name] }

    /// The count given for `name` (checked when the command line was read), else `fallback`.
    func count(_ name: String, default fallback: Int) -> Int { values[name].flatMap { Int($0) } ?? fallback }

    /// The keychain sizes given with `--sizes` (checked when the command line was read), else 1,000 and 100,000.
    var sizes: [Int] { values["--sizes"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1000, 100_000] }
}
