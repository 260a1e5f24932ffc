#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file's device (major and minor) and inode, comparable between `stat` and /proc/PID/maps.
struct FileIdentity: Hashable {
    var major: UInt64
    var minor: UInt64
    var inode: UInt64

    /// The identity of device number `device` (glibc's encoding of `st_dev`) and `inode`.
    init(device: UInt64, inode: UInt64) {
        major = (device >> 32) & 0xffff_f000 | (device >> 8) & 0xfff
        minor = (device >> 12) & 0xffff_ff00 | device & 0xff
        self.inode = inode
    }

    /// The identity `stat` gives.
    init(_ info: stat) {
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The identity a /proc/PID/maps line gives: `major:minor` in hexadecimal, then the inode in decimal.
    init?(mapsDevice device: ArraySlice<UInt8>, inode: ArraySlice<UInt8>) {
        let parts = device.split(separator: UInt8(ascii: ":"))
        guard parts.count == 2, let major = UInt64(String(decoding: parts[0], as: UTF8.self), radix: 16),
            let minor = UInt64(String(decoding: parts[1], as: UTF8.self), radix: 16),
            let inode = UInt64(String(decoding: inode, as: UTF8.self))
        else { return nil }
        (self.major, self.minor, self.inode) = (major, minor, inode)
    }
}
