import Foundation

/// A second Unix account for tests about ownership (the tests run as root), removed again by `remove()`.
public struct SecondUser {
    public let name: String
    public let uid: uid_t
    public let gid: gid_t

    /// Creates a system account without a home folder.
    public init() throws {
        name = "clavis-t\(UInt32.random(in: 0...UInt32.max) % 1_000_000)"
        let added = try runProcess(
            "/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/bin/false", name])
        guard added.status == 0 else { throw SetupFailure("useradd: \(added.standardError)") }
        guard let entry = getpwnam(name) else { throw CocoaError(.fileNoSuchFile) }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    /// Deletes the account.
    public func remove() {
        _ = try? runProcess("/usr/sbin/userdel", [name])
    }

    /// Writes `contents` to a new file at `path` owned by this user with `mode`.
    public func ownedFile(_ path: String, contents: String, mode: mode_t) throws {
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        guard chown(path, uid, gid) == 0, chmod(path, mode) == 0 else {
            throw SetupFailure("cannot give \(path) to \(name): \(String(cString: strerror(errno)))")
        }
    }
}

/// The contents and mode of a file, to show that it did not change.
public func fileState(_ path: String) -> (contents: String, mode: mode_t, owner: uid_t) {
    var status = stat()
    _ = lstat(path, &status)
    let contents = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return (contents, status.st_mode & 0o7777, status.st_uid)
}
