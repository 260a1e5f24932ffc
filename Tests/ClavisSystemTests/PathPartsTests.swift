import ClavisSystem
import Testing

@Suite struct PathPartsTests {
    @Test func pathPartsSplitAtTheLastSlash() {
        for (path, folder, name) in [
            ("/a/b/device.key", "/a/b", "device.key"), ("/device.key", "/", "device.key"),
            ("device.key", ".", "device.key"), ("rel/backup", "rel", "backup"),
        ] {
            let parts = PathParts(path)
            #expect(parts.folder == folder && parts.name == name, "\(path)")
        }
    }
}
