import ClavisTestSupport
import Foundation
import Testing

/// A Python script using the `cryptography` package (python3-cryptography) as an implementation independent of
/// Clavis: it signs, verifies, loads keys, and reproduces Apple's ECIES and RSA-OAEP+AES-GCM from their published
/// description, each subcommand printing hexadecimal lines.
enum IndependentCrypto {
    static let script = #"""
        import os, sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

        H = {"SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384,
             "SHA512": hashes.SHA512}
        CURVES = {32: ec.SECP256R1, 48: ec.SECP384R1, 66: ec.SECP521R1}
        NAMES = {"P-256": ec.SECP256R1, "P-384": ec.SECP384R1, "P-521": ec.SECP521R1}

        def coordinate(data, private):
            return (len(data) - 1) // (3 if private else 2)

        def ec_public(data):
            return ec.EllipticCurvePublicKey.from_encoded_point(CURVES[coordinate(data, False)](), data)

        def ec_private(data):
            n = coordinate(data, True)
            key = ec.derive_private_key(int.from_bytes(data[1 + 2 * n:], "big"), CURVES[n]())
            assert x963(key.public_key()) == data[:1 + 2 * n], "scalar does not match point"
            return key

        def x963(public):
            return public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)

        def x963_private(key):
            n = (key.curve.key_size + 7) // 8
            return x963(key.public_key()) + key.private_numbers().private_value.to_bytes(n, "big")

        def pss(name):
            return padding.PSS(mgf=padding.MGF1(H[name]()), salt_length=H[name]().digest_size)

        def oaep(name):
            return padding.OAEP(mgf=padding.MGF1(H[name]()), algorithm=H[name](), label=None)

        def rsa_public_der(key):
            return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)

        def ecies_key(secret, ephemeral, name, variable, n):
            size = 16 if n <= 32 else 32
            material = X963KDF(algorithm=H[name](), length=size + (16 if variable else 0),
                               sharedinfo=ephemeral).derive(secret)
            return material[:size], (material[size:] if variable else bytes(16))

        # Every command takes two words (a hash, a padding, a curve, "variable", or "-") and then hexadecimal bytes.
        command, args = sys.argv[1], [bytes.fromhex(a) if i >= 2 else a for i, a in enumerate(sys.argv[2:])]
        out = []
        if command == "verify-ec":        # hash, point, message, DER signature
            try:
                ec_public(args[2]).verify(args[4], args[3], ec.ECDSA(H[args[0]]())); out.append("valid")
            except Exception:
                out.append("invalid")
        elif command == "verify-ec-raw":  # hash, -, point, message, r ‖ s (RFC 4754)
            half = len(args[4]) // 2
            signature = utils.encode_dss_signature(int.from_bytes(args[4][:half], "big"),
                                                   int.from_bytes(args[4][half:], "big"))
            try:
                ec_public(args[2]).verify(signature, args[3], ec.ECDSA(H[args[0]]())); out.append("valid")
            except Exception:
                out.append("invalid")
        elif command == "sign-ec":        # curve, hash, message
            key = ec.generate_private_key(NAMES[args[0]]())
            out += [x963(key.public_key()).hex(), key.sign(args[2], ec.ECDSA(H[args[1]]())).hex()]
        elif command == "verify-rsa":     # padding, hash, PKCS#1 public key, message, signature
            key = serialization.load_der_public_key(args[2])
            try:
                key.verify(args[4], args[3], pss(args[1]) if args[0] == "pss" else padding.PKCS1v15(), H[args[1]]())
                out.append("valid")
            except Exception:
                out.append("invalid")
        elif command == "sign-rsa":       # padding, hash, message
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            chosen = pss(args[1]) if args[0] == "pss" else padding.PKCS1v15()
            out += [rsa_public_der(key.public_key()).hex(), key.sign(args[2], chosen, H[args[1]]()).hex()]
        elif command == "load-ec":        # -, -, private X9.63
            key = ec_private(args[2])
            out += [x963_private(key).hex(), x963(key.public_key()).hex()]
        elif command == "load-rsa":       # -, -, private PKCS#1, public PKCS#1
            key = serialization.load_der_private_key(args[2], password=None)
            public = serialization.load_der_public_key(args[3])
            out += [key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
                                      serialization.NoEncryption()).hex(), rsa_public_der(public).hex()]
        elif command == "ecies-open":     # hash, variable, private X9.63, ciphertext
            key = ec_private(args[2])
            n = (key.curve.key_size + 7) // 8
            ephemeral, sealed = args[3][:1 + 2 * n], args[3][1 + 2 * n:]
            secret = key.exchange(ec.ECDH(), ec_public(ephemeral))
            aes, iv = ecies_key(secret, ephemeral, args[0], args[1] == "variable", n)
            out.append(AESGCM(aes).decrypt(iv, sealed, None).hex())
        elif command == "ecies-seal":     # hash, variable, public X9.63, message
            recipient = ec_public(args[2])
            n = (recipient.curve.key_size + 7) // 8
            ephemeral_key = ec.generate_private_key(recipient.curve)
            ephemeral = x963(ephemeral_key.public_key())
            aes, iv = ecies_key(ephemeral_key.exchange(ec.ECDH(), recipient), ephemeral, args[0],
                                args[1] == "variable", n)
            out.append((ephemeral + AESGCM(aes).encrypt(iv, args[3], None)).hex())
        elif command == "oaep-seal":      # hash, -, PKCS#1 public key, message
            out.append(serialization.load_der_public_key(args[2]).encrypt(args[3], oaep(args[0])).hex())
        elif command == "oaep-aesgcm-seal":  # hash, -, PKCS#1 public key, message
            public = serialization.load_der_public_key(args[2])
            session = os.urandom(32 if public.key_size >= 4096 else 16)
            wrapped = public.encrypt(session, oaep(args[0]))
            out.append((wrapped + AESGCM(session).encrypt(bytes(16), args[3], args[2])).hex())
        elif command == "oaep-aesgcm-open":  # hash, -, PKCS#1 private key, ciphertext
            key = serialization.load_der_private_key(args[2], password=None)
            block = key.key_size // 8
            session = key.decrypt(args[3][:block], oaep(args[0]))
            aad = rsa_public_der(key.public_key())
            out.append(AESGCM(session).decrypt(bytes(16), args[3][block:], aad).hex())
        print("\n".join(out))
        """#

    /// Runs `command` with two words and then hexadecimal byte strings.
    static func run(_ command: String, _ arguments: [String]) throws -> [String] {
        try runPython(script, [command] + arguments)
    }
}
