#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way a file only its owner may read is written whole: to a new temporary file beside it (mode 0600,
/// created exclusively, never through a link), synced, then put in place at once, so that no reader ever sees it
/// half written. Backups and the keychain's own key files are written so.
package enum PrivateFile {
    /// How the finished file takes its place.
    package enum Placement: Sendable {
        /// A hard link: fails (`EEXIST`) when anything is at the name already, so that two writers agree on one.
        case new
        /// A rename: replaces whatever is at the name (a link itself, never its target).
        case replacing
    }

    /// Where a write failed, and the system's `errno`.
    package struct Failure: Error, Sendable {
        /// What failed.
        package enum Step: Sendable {
            /// Creating the temporary file (`temporary` names it).
            case create
            /// Writing or syncing it (`ENOSPC` when a write came up short).
            case write
            /// Putting it in place (`EEXIST` for a `.new` file that exists).
            case place
        }

        /// What failed.
        package var step: Step
        /// The `errno`.
        package var code: Int32
        /// The temporary file's name.
        package var temporary: String
    }

    /// Writes `bytes` as the file `name` of the folder `folder` (a descriptor open on it, or `AT_FDCWD` with `name`
    /// a path) in the way `placement` says.
    package static func save(
        _ bytes: UnsafeRawBufferPointer, as name: String, in folder: Int32, placement: Placement
    ) throws(Failure) {
        let parts = PathParts(name)
        let directory = name.contains("/") ? parts.folder + "/" : ""
        let temporary = directory + ".\(parts.name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file: FileDescriptor
        do throws(SystemError) {
            file = try FileDescriptor(
                opening: temporary, in: folder, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        } catch {
            throw Failure(step: .create, code: error.code, temporary: temporary)
        }
        defer { unlinkat(folder, temporary, 0) }
        let descriptor = file.rawValue
        // A write that takes nothing sets no errno: the disk is full.
        errno = 0
        guard DescriptorOutput.writeAll(bytes, to: descriptor) else {
            throw Failure(step: .write, code: errno == 0 ? ENOSPC : errno, temporary: temporary)
        }
        guard SystemCall.retrying({ fsync(descriptor) }) == 0 else {
            throw Failure(step: .write, code: errno, temporary: temporary)
        }
        let placed =
            switch placement {
            case .new: linkat(folder, temporary, folder, name, 0)
            case .replacing: renameat(folder, temporary, folder, name)
            }
        guard placed == 0 else { throw Failure(step: .place, code: errno, temporary: temporary) }
    }
}
