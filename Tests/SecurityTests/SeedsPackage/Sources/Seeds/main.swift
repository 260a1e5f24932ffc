// Drives the seeds' functions (the other files of this folder, copied unchanged) for SeedsPackageTests.
import ClavisClient
import ClavisCore
import Dispatch
import LocalAuthentication
import Security

/// Reads a passcode from standard input (never from the arguments).
func passcodeFromInput() -> SecureBytes {
    SecureBytes(Data((readLine(strippingNewline: true) ?? "").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let verb = arguments.first ?? ""
let argument = arguments.count > 1 ? arguments[1] : ""

switch verb {
case "token":
    try saveToken(token: "first", service: argument)
    try saveToken(token: "second", service: argument)
    print(try readToken(service: argument))
case "read-token":
    do {
        print(try readToken(service: argument))
    } catch KeychainError.unexpectedStatus(let status) {
        print("unexpectedStatus(\(status))")
    }
case "set-passcode":
    try KeychainClient().setPasscode(passcodeFromInput(), current: nil)
case "biometry":
    // A keychain with a passcode starts locked in a new process: unlock it as a device's login would.
    try KeychainClient().unlock(passcode: passcodeFromInput())
    try saveWithBiometry(data: Data("one".utf8), key: argument)
    try saveWithBiometry(data: Data("two".utf8), key: argument)
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: argument,
        kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    let item = result as? [String: Any] ?? [:]
    let data = item[kSecValueData as String] as? Data ?? Data()
    let protection = item[kSecAttrAccessible as String] as? String ?? "-"
    let hasAccessControl = item[kSecAttrAccessControl as String] != nil
    print(status, String(decoding: data, as: UTF8.self), protection, hasAccessControl)
case "read-biometry":
    // Reads the biometry item's data: `fail` without asking anyone (kSecUseAuthenticationUIFail), `context` with an
    // LAContext evaluated for biometry first and passed as kSecUseAuthenticationContext.
    try KeychainClient().unlock(passcode: passcodeFromInput())
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: argument,
        kSecReturnData as String: true,
    ]
    if arguments.count > 2 && arguments[2] == "context" {
        let context = LAContext()
        let evaluated = DispatchSemaphore(value: 0)
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "read") { _, _ in
            evaluated.signal()
        }
        evaluated.wait()
        query[kSecUseAuthenticationContext as String] = context
    } else {
        query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
    }
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    print(status, String(decoding: result as? Data ?? Data(), as: UTF8.self))
case "share-write":
    saveSharedToken(token: Data(argument.utf8))
case "share-read":
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "shared_token",
        kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    let item = result as? [String: Any] ?? [:]
    let data = item[kSecValueData as String] as? Data ?? Data()
    print(status, String(decoding: data, as: UTF8.self), item[kSecAttrAccessGroup as String] as? String ?? "-")
case "passwords":
    savePassword(service: argument, account: "alice", password: Data("pa55".utf8))
    let read = readPassword(service: argument, account: "alice")
    deletePassword(service: argument, account: "alice")
    let afterDelete = readPassword(service: argument, account: "alice")
    print(read.map { String(decoding: $0, as: UTF8.self) } ?? "nil", afterDelete == nil ? "nil" : "still there")
default:
    print("usage: Seeds token|read-token|set-passcode|biometry|read-biometry|share-write|share-read|passwords ARGUMENT")
}
