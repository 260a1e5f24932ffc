import Security

// clavis-fuzz: random dictionaries through the four SecItem calls, each of which must answer a known status and
// never trap. Runs on a private keychain in a fresh temporary folder, removed at the end.
//   clavis-fuzz [--rounds 100000] [--seed 1]
// Exit status: 0 when every call answered a known status; 1 when one did not (each printed); 2 for bad usage.
// A trap ends the process with its signal, which is what the test and the release run look for.

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String, default value: Int) -> Int? {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard index + 1 < arguments.count else { return nil }
    return Int(arguments[index + 1])
}

guard let rounds = option("--rounds", default: 100_000), let seed = option("--seed", default: 1), rounds >= 0 else {
    FileHandle.standardError.write(Data("usage: clavis-fuzz [--rounds N] [--seed N]\n".utf8))
    exit(2)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clavis-fuzz-\(getpid())").path
try? FileManager.default.removeItem(atPath: folder)
setenv("CLAVIS_HOME", folder + "/home", 1)
unsetenv("CLAVIS_ENTITLEMENTS")
unsetenv("CLAVIS_ASKPASS")

let known: Set<OSStatus> = [
    errSecSuccess, errSecParam, errSecNoSuchClass, errSecNoSuchAttr, errSecItemNotFound, errSecDuplicateItem,
    errSecUnimplemented, errSecMissingEntitlement, errSecDataTooLarge, errSecInteractionNotAllowed,
    // A WhenPasscodeSetThisDeviceOnly item (or one whose access control needs the passcode) on a keychain without one.
    errSecNotAvailable,
]
var fuzz = FuzzDictionaries(random: SplitMix64(state: UInt64(truncatingIfNeeded: seed) &* 0x1234_5678_9ABC))
var counts: [OSStatus: Int] = [:]
var unknown = 0
let started = Date()
for round in 0..<rounds {
    let dictionary = fuzz.dictionary(addingService: fuzz.random.below(2) == 0)
    var result: CFTypeRef?
    let statuses = [
        ("SecItemAdd", SecItemAdd(dictionary, &result)),
        ("SecItemCopyMatching", SecItemCopyMatching(dictionary, &result)),
        ("SecItemUpdate", SecItemUpdate(dictionary, fuzz.dictionary())),
        ("SecItemDelete", SecItemDelete(dictionary)),
    ]
    for (call, status) in statuses {
        counts[status, default: 0] += 1
        if !known.contains(status) {
            unknown += 1
            print("round \(round) of seed \(seed): \(call) answered \(status)")
        }
    }
    // Keep the keychain small so that searches stay quick.
    if round % 1000 == 999 {
        for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword] {
            SecItemDelete([kSecClass: itemClass, kSecAttrSynchronizable: kSecAttrSynchronizableAny] as CFDictionary)
        }
    }
}
let seconds = Date().timeIntervalSince(started)
let summary = counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
print("\(rounds) rounds, \(rounds * 4) calls in \(String(format: "%.1f", seconds)) s; statuses \(summary)")
print("unknown statuses: \(unknown); traps: 0")
try? FileManager.default.removeItem(atPath: folder)
exit(unknown == 0 ? 0 : 1)
