import ClavisTestSupport
import Foundation
import Security
import Testing

/// Test certificates made once per test run by the `openssl` command line: a root CA (P-256), an intermediate
/// (RSA 2048), and leaves signed by the intermediate. Their keys stay in `folder` for `openssl dgst -sign`.
struct TestPKI: Sendable {
    /// The folder holding `<name>.pem`, `<name>.der` and `<name>.key`.
    let folder: String

    /// The shell script that makes them; every leaf is valid for a year from now unless said otherwise.
    static let script = #"""
        set -e
        printf '[req]\ndistinguished_name = dn\nstring_mask = default\n[dn]\n' > req.cnf
        printf '[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial.txt\n' > ca.cnf
        printf 'default_md = sha256\npolicy = any\nunique_subject = no\n[any]\ncommonName = supplied\n' >> ca.cnf
        : > index.txt; echo 01 > serial.txt
        printf 'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n' > ca.ext
        printf 'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature,keyEncipherment\n' > leaf.ext
        printf 'extendedKeyUsage=serverAuth,clientAuth\nsubjectKeyIdentifier=hash\n' >> leaf.ext
        printf 'subjectAltName=DNS:leaf.clavis.test,DNS:www.clavis.test,email:leaf@clavis.test,IP:192.0.2.7\n' >> leaf.ext
        printf 'basicConstraints=CA:false\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:other.example\n' > other.ext
        printf 'basicConstraints=CA:false\nextendedKeyUsage=clientAuth\nsubjectAltName=DNS:leaf.clavis.test\n' > client.ext
        printf 'basicConstraints=CA:false\n' > plain.ext
        ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:"$1" -out "$2"; }
        rsa() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1"; }
        ec P-256 root.key
        openssl req -new -x509 -key root.key -subj "/O=Clavis Tests/CN=Clavis Test Root" -days 3650 \
            -config req.cnf -addext basicConstraints=critical,CA:true \
            -addext keyUsage=critical,keyCertSign,cRLSign -out root.pem
        rsa int.key
        openssl req -new -key int.key -subj "/O=Clavis Tests/CN=Clavis Test Intermediate" -config req.cnf -out int.csr
        openssl x509 -req -in int.csr -CA root.pem -CAkey root.key -set_serial 2 -days 3000 -extfile ca.ext \
            -out int.pem
        sign() { # name, key, subject, extensions, serial, then options for req (the string types)
            openssl req -new -key "$2" -subj "$3" $6 -out "$1.csr"
            openssl x509 -req -in "$1.csr" -CA int.pem -CAkey int.key -set_serial "$5" -days 365 -extfile "$4" \
                -out "$1.pem"
        }
        ec P-256 leaf.key
        sign leaf leaf.key "/O=Clavis Tests/CN=leaf.clavis.test/emailAddress=owner@clavis.test" leaf.ext \
            0x8badf00d "-config req.cnf"
        rsa other.key
        sign other other.key "/CN=other.example" other.ext 3 "-config req.cnf"
        ec P-384 client.key
        sign client client.key "/CN=client.clavis.test" client.ext 4 "-config req.cnf"
        ec P-521 noname.key
        sign noname noname.key "/O=No Name Org" plain.ext 5 "-config req.cnf"
        openssl genpkey -algorithm ed25519 -out ed.key
        sign ed ed.key "/CN=ed25519.clavis.test" plain.ext 6 "-config req.cnf"
        ec secp256k1 k1.key
        sign k1 k1.key "/CN=secp256k1.clavis.test" plain.ext 7 "-config req.cnf"
        sign spaced leaf.key "/C=FR/O=  clavis    Tests  /CN=Mixed.Case test" plain.ext 8 "-config req.cnf"
        sign upper leaf.key "/C=FR/O=CLAVIS TESTS/CN=MIXED.CASE TEST" plain.ext 9 "-config req.cnf"
        sign utf8 leaf.key "/CN=utf8 lower  case" plain.ext 10 ""
        cp leaf.key expired.key
        openssl req -new -key expired.key -subj "/CN=leaf.clavis.test" -config req.cnf -out expired.csr
        openssl ca -batch -config ca.cnf -cert int.pem -keyfile int.key -in expired.csr -out expired.pem \
            -startdate 20200101000000Z -enddate 20210101000000Z -notext -extfile leaf.ext
        for name in root int leaf other client noname ed k1 spaced upper utf8 expired; do
            openssl x509 -in $name.pem -outform DER -out $name.der
        done
        """#

    /// Makes the certificates in a new temporary folder.
    static func make() throws -> TestPKI {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clavis-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The folder (test keys among its files) is removed when the test process exits.
        madePKIFolder = folder.path
        atexit { if let made = madePKIFolder { try? FileManager.default.removeItem(atPath: made) } }
        let output = try runProcess("/bin/sh", ["-c", script], currentDirectory: folder.path)
        guard output.status == 0 else {
            struct ScriptFailed: Error, CustomStringConvertible { var description: String }
            throw ScriptFailed(description: "openssl failed: \(output.standardError)")
        }
        return TestPKI(folder: folder.path)
    }

    /// The DER of certificate `name`.
    func der(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).der"))
    }

    /// The PEM text of certificate `name`.
    func pem(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).pem"))
    }

    /// Certificate `name` made by `SecCertificateCreateWithData`.
    func certificate(_ name: String) throws -> SecCertificate {
        try #require(SecCertificateCreateWithData(nil, try der(name) as CFData))
    }

    /// Signs `message` with the private key of certificate `name` through `openssl dgst -sha256 -sign`.
    func opensslSignature(of message: Data, by name: String) throws -> Data {
        let messagePath = "\(folder)/message-\(UUID().uuidString)"
        try message.write(to: URL(fileURLWithPath: messagePath))
        let output = try runOpenSSL(
            ["dgst", "-sha256", "-sign", "\(name).key", "-out", "\(messagePath).sig", messagePath], in: folder)
        try #require(output.status == 0, "openssl dgst: \(output.standardError)")
        return try Data(contentsOf: URL(fileURLWithPath: "\(messagePath).sig"))
    }
}

/// The folder `TestPKI.make()` made, removed at exit (it is made once, before any suite reads it).
nonisolated(unsafe) private var madePKIFolder: String?

/// The test certificates, made on first use and shared by every suite.
let sharedTestPKI = Result { try TestPKI.make() }

/// The test certificates (the test fails when openssl could not make them).
func testPKI() throws -> TestPKI { try sharedTestPKI.get() }

/// Python's `cryptography` reading of certificate DER given in hexadecimal: the subject and issuer Name DER,
/// the serial number and the SHA-256 of the public key's SubjectPublicKeyInfo, one per line in hexadecimal.
func pythonCertificateFacts(_ der: Data) throws -> [String] {
    let script = """
        import sys
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
        cert = x509.load_der_x509_certificate(bytes.fromhex(sys.argv[1]))
        print(cert.subject.public_bytes().hex())
        print(cert.issuer.public_bytes().hex())
        print(format(cert.serial_number, "x"))
        """
    return try runPython(script, [der.hexString])
}
