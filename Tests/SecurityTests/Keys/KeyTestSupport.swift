import ClavisTestSupport
import Foundation
import Security
import Testing

/// Generates a key pair as an app would, trapping the test on failure.
func makePrivateKey(type: CFString, bits: Int, extra: [String: Any] = [:]) throws -> SecKey {
    var parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
    parameters.merge(extra) { _, new in new }
    var error: Unmanaged<CFError>?
    let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
    if let error { Issue.record("SecKeyCreateRandomKey: \(error.takeRetainedValue())") }
    return try #require(key)
}

/// The public key of `key`.
func publicKey(of key: SecKey) throws -> SecKey { try #require(SecKeyCopyPublicKey(key)) }

/// The external representation of `key`.
func externalRepresentation(_ key: SecKey) throws -> Data {
    var error: Unmanaged<CFError>?
    return try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
}

/// Makes a key from its external representation.
func makeKey(_ data: Data, type: CFString, keyClass: CFString) -> (SecKey?, CFError?) {
    var error: Unmanaged<CFError>?
    let attributes = [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass]
    let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error)
    return (key, error?.takeRetainedValue())
}

/// Signs, returning the signature or the error.
func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> (Data?, CFError?) {
    var error: Unmanaged<CFError>?
    let signature = SecKeyCreateSignature(key, algorithm, data as CFData, &error) as Data?
    return (signature, error?.takeRetainedValue())
}

/// Verifies, returning the answer and the error.
func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data, _ signature: Data) -> (Bool, CFError?) {
    var error: Unmanaged<CFError>?
    let valid = SecKeyVerifySignature(key, algorithm, data as CFData, signature as CFData, &error)
    return (valid, error?.takeRetainedValue())
}

/// Encrypts, returning the ciphertext or the error.
func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> (Data?, CFError?) {
    var error: Unmanaged<CFError>?
    let result = SecKeyCreateEncryptedData(key, algorithm, data as CFData, &error) as Data?
    return (result, error?.takeRetainedValue())
}

/// Decrypts, returning the plaintext or the error.
func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> (Data?, CFError?) {
    var error: Unmanaged<CFError>?
    let result = SecKeyCreateDecryptedData(key, algorithm, data as CFData, &error) as Data?
    return (result, error?.takeRetainedValue())
}

/// Runs an inline Python 3 script with `arguments` and returns its output lines; records its errors when it fails.
func runPython(_ script: String, _ arguments: [String]) throws -> [String] {
    let output = try runProcess("/usr/bin/python3", ["-c", script] + arguments)
    if output.status != 0 { Issue.record("python3 failed: \(output.standardError)") }
    try #require(output.status == 0)
    return output.standardOutput.split(separator: "\n").map(String.init)
}

extension Data {
    /// Lower-case hexadecimal digits.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }

    /// Decodes hexadecimal digits (test input; traps on malformed text).
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}

/// The code of an error handed back through an out-parameter.
func code(_ error: CFError?) -> Int? { error.map { CFErrorGetCode($0) } }

/// True for Apple's error when a key cannot run an algorithm: errSecParam, described as
/// "<algorithm>: algorithm not supported by the key <key>".
func notSupported(_ error: CFError?) -> Bool {
    guard let error, CFErrorGetCode(error) == Int(errSecParam) else { return false }
    let reason = CFErrorCopyUserInfo(error).object(forKey: "reason") as? String ?? ""
    return reason.contains(": algorithm not supported by the key")
}
