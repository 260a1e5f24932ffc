import ClavisTestSupport
import Foundation
import Security
import Testing

/// PKCS#12 archives made by `openssl pkcs12 -export`, each around a new leaf (RSA 2048 or EC P-256, its own key and
/// serial number) issued by an intermediate (RSA) under a root (P-256) made once per test run.
struct TestArchives: Sendable {
    /// The folder holding the root and intermediate, and each archive's files.
    let folder: String

    /// One archive and what went into it.
    struct Archive {
        /// The DER PKCS#12 bytes.
        var data: Data
        /// The leaf certificate's DER.
        var leaf: Data
        /// The intermediate's and the root's DER.
        var intermediate: Data
        var root: Data
        /// The friendly name given to `-name`.
        var name: String
    }

    /// The kind of leaf key.
    enum LeafKey: String { case rsa, ec }

    static let setUp = #"""
        set -e
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out root.key
        openssl req -new -x509 -key root.key -subj "/O=Clavis Tests/CN=Clavis PKCS12 Root" -days 3650 \
            -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign -out root.pem
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out int.key
        openssl req -new -key int.key -subj "/O=Clavis Tests/CN=Clavis PKCS12 Intermediate" -out int.csr
        printf 'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n' > ca.ext
        printf 'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature\n' > leaf.ext
        openssl x509 -req -in int.csr -CA root.pem -CAkey root.key -set_serial 2 -days 3000 -extfile ca.ext -out int.pem
        cat int.pem root.pem > chain.pem
        openssl x509 -in root.pem -outform DER -out root.der
        openssl x509 -in int.pem -outform DER -out int.der
        """#

    /// Makes the root and intermediate in a new temporary folder.
    static func make() throws -> TestArchives {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clavis-p12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        madeArchiveFolder = folder.path
        atexit { if let made = madeArchiveFolder { try? FileManager.default.removeItem(atPath: made) } }
        let output = try runProcess("/bin/sh", ["-c", setUp], currentDirectory: folder.path)
        try #require(output.status == 0, "openssl: \(output.standardError)")
        return TestArchives(folder: folder.path)
    }

    /// A new leaf of `key` in an archive under `passphrase` with the intermediate and root, named `name`.
    func archive(_ key: LeafKey, passphrase: String = "secret", name: String = "Clavis Leaf") throws -> Archive {
        let leaf = UUID().uuidString
        let generate =
            key == .rsa
            ? "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out \(leaf).key"
            : "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \(leaf).key"
        let script = """
            set -e
            \(generate)
            openssl req -new -key \(leaf).key -subj "/O=Clavis Tests/CN=\(leaf).clavis.test" -out \(leaf).csr
            openssl x509 -req -in \(leaf).csr -CA int.pem -CAkey int.key -set_serial 0x\(leaf.prefix(8)) -days 365 \
                -extfile leaf.ext -out \(leaf).pem
            openssl x509 -in \(leaf).pem -outform DER -out \(leaf).der
            openssl pkcs12 -export -inkey \(leaf).key -in \(leaf).pem -certfile chain.pem -name "$NAME" \
                -passout env:PASSPHRASE -out \(leaf).p12
            """
        let output = try runProcess(
            "/bin/sh", ["-c", script], environment: ["NAME": name, "PASSPHRASE": passphrase],
            currentDirectory: folder)
        try #require(output.status == 0, "openssl: \(output.standardError)")
        func read(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(file)")) }
        return Archive(
            data: try read("\(leaf).p12"), leaf: try read("\(leaf).der"), intermediate: try read("int.der"),
            root: try read("root.der"), name: name)
    }

    /// True when `openssl dgst -sha256 -verify` accepts `signature` of `message` under the public key of the
    /// certificate `leaf` (DER), as PSS with a digest-long salt when `pss` is set.
    func opensslVerifies(_ signature: Data, of message: Data, leaf: Data, pss: Bool) throws -> Bool {
        let name = UUID().uuidString
        try leaf.write(to: URL(fileURLWithPath: "\(folder)/\(name).der"))
        try message.write(to: URL(fileURLWithPath: "\(folder)/\(name).msg"))
        try signature.write(to: URL(fileURLWithPath: "\(folder)/\(name).sig"))
        let key = try runOpenSSL(
            ["x509", "-inform", "DER", "-in", "\(name).der", "-pubkey", "-noout", "-out", "\(name).pub"], in: folder)
        try #require(key.status == 0, "openssl x509: \(key.standardError)")
        let options = pss ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:-1"] : []
        let output = try runOpenSSL(
            ["dgst", "-sha256", "-verify", "\(name).pub", "-signature", "\(name).sig"] + options + ["\(name).msg"],
            in: folder)
        return output.status == 0
    }
}

/// The folder `TestArchives.make()` made, removed at exit.
nonisolated(unsafe) private var madeArchiveFolder: String?

/// The archives' root and intermediate, made on first use and shared by every suite.
let sharedTestArchives = Result { try TestArchives.make() }

/// The archive maker (the test fails when openssl could not make the root and intermediate).
func testArchives() throws -> TestArchives { try sharedTestArchives.get() }

/// `SecPKCS12Import` with `passphrase`, returning the status and the items.
func importArchive(_ data: Data, passphrase: String?) -> (status: OSStatus, items: [[String: Any]]?) {
    var options: [String: Any] = [:]
    options[kSecImportExportPassphrase as String] = passphrase
    var items: CFArray?
    let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
    return (status, items.map { ($0 as NSArray).compactMap { $0 as? [String: Any] } })
}

/// The identity of an archive that imports.
func importedIdentity(_ archive: TestArchives.Archive, passphrase: String = "secret") throws -> SecIdentity {
    let (status, items) = importArchive(archive.data, passphrase: passphrase)
    try #require(status == errSecSuccess)
    let item = try #require(items?.first)
    return try #require(item[kSecImportItemIdentity as String].map { $0 as! SecIdentity })
}
