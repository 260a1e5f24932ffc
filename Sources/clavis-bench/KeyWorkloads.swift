#if os(Linux)
    import Foundation
    import Security
    import ClavisSystem

    /// P-256 ECDSA through `SecKey` (`SecKeyCreateSignature`, `SecKeyVerifySignature` with
    /// `.ecdsaSignatureMessageX962SHA256` over a 32-byte message), beside `openssl speed ecdsap256` on the same
    /// machine: what Apple's API adds to OpenSSL's own signing and verifying.
    enum KeyWorkloads {
        /// The sign and verify rows, each after a warm-up of a tenth of `operations`.
        static func run(operations: Int) throws -> [Measurement] {
            var error: Unmanaged<CFError>?
            let parameters =
                [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
                as CFDictionary
            guard let key = SecKeyCreateRandomKey(parameters, &error), let publicKey = SecKeyCopyPublicKey(key) else {
                throw BenchError("SecKeyCreateRandomKey failed: \(String(describing: error?.takeRetainedValue()))")
            }
            let message = Data(repeating: 0x42, count: 32) as CFData
            let algorithm = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
            var signature: CFData?
            for _ in 0..<max(1, operations / 10) { signature = SecKeyCreateSignature(key, algorithm, message, nil) }
            var sign = Measurement(name: "SecKey P-256 sign", storeSize: 0)
            for _ in 0..<operations { sign.time { signature = SecKeyCreateSignature(key, algorithm, message, nil) } }
            guard let signature else { throw BenchError("SecKeyCreateSignature failed") }
            var verified = true
            for _ in 0..<max(1, operations / 10) {
                verified = verified && SecKeyVerifySignature(publicKey, algorithm, message, signature, nil)
            }
            var verify = Measurement(name: "SecKey P-256 verify", storeSize: 0)
            for _ in 0..<operations {
                verify.time {
                    verified = verified && SecKeyVerifySignature(publicKey, algorithm, message, signature, nil)
                }
            }
            guard verified else { throw BenchError("SecKeyVerifySignature refused a signature") }
            return [sign, verify]
        }

        /// `openssl speed -seconds 2 ecdsap256` as one line of signs and verifies per second, or why it did not run.
        static func openSSLSpeed() -> String {
            guard let openssl = ChildProcess.find("openssl") else { return "openssl speed: openssl is not on PATH" }
            let run = ChildProcess.runToEnd(openssl, ["speed", "-seconds", "2", "ecdsap256"], discardingErrors: true)
            let lines = String(decoding: run.output, as: UTF8.self).split(separator: "\n")
            guard run.status == 0, let line = lines.first(where: { $0.contains("(nistp256)") }) else {
                return "openssl speed ecdsap256 failed (status \(run.status))"
            }
            let numbers = line.split(separator: " ").compactMap { Double($0) }
            guard numbers.count >= 2 else { return "openssl speed ecdsap256: unexpected output: \(line)" }
            return String(
                format: "openssl speed ecdsap256 (same machine): %.0f sign/s, %.0f verify/s",
                numbers[numbers.count - 2], numbers[numbers.count - 1])
        }

        /// A benchmark that could not run.
        struct BenchError: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }
    }
#endif
