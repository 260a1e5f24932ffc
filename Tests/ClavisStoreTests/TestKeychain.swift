import ClavisCore
import ClavisCrypto
import ClavisStore
import FoundationEssentials
import Glibc

/// A keychain in a fresh temporary folder, removed when released.
final class TemporaryHome {
    let home: KeychainHome

    init() {
        var template = Array("/tmp/clavis-test-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        home = KeychainHome(path: path + "/home")
    }

    deinit {
        _ = try? FileManager.default.removeItem(atPath: String(home.path.dropLast("/home".count)))
    }

    func open() throws -> Keychain { try Keychain(home: home) }

    /// The bytes of a file in the home, or empty when it does not exist.
    func contents(of name: String) -> [UInt8] {
        (FileManager.default.contents(atPath: home.path + "/" + name)).map(Array.init) ?? []
    }
}

extension String {
    var secret: SecureBytes { SecureBytes(Array(utf8)) }
}

extension [UInt8] {
    /// True when `needle` appears somewhere in these bytes (a file's, to show a marker is not stored in clear).
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        for start in 0...(count - needle.count) where self[start] == needle[0] {
            if self[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}

extension SecureBytes {
    var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}

func password(
    account: String, service: String = "svc", secret: String = "s3cret",
    _ extra: [AttributeKey: AttributeValue] = [:]
) -> NewItem {
    NewItem(
        itemClass: .genericPassword,
        attributes: [.account: .string(account), .service: .string(service)].merging(extra) { _, new in new },
        secret: secret.secret)
}

func query(account: String, service: String = "svc", returnsSecret: Bool = true) -> ItemQuery {
    ItemQuery(
        itemClass: .genericPassword, attributes: [.account: .string(account), .service: .string(service)],
        limit: .one, returnsSecret: returnsSecret)
}

/// The error a throwing call raised, as a keychain status, or nil when it succeeded.
func status<T>(_ body: () throws -> T) -> KeychainError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as KeychainError {
        return error.code
    } catch {
        return KeychainError.Code(rawValue: -1)
    }
}
