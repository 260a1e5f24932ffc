// swift-format-ignore-file
// Copied unchanged from shared/seeds/000_2d204f4181ffd985.txt, lines 63-65 (saveWithBiometry throws it).
import ClavisTestSupport
import Security

enum KeychainError: Error {
    case unexpectedStatus(OSStatus)
}
