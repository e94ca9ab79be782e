import CGnuTLS
import IsletSettings
import IsletSystem

/// `[web]`'s certificate and key, checked as libmicrohttpd will use them (GnuTLS, the same
/// call), so a pair it cannot serve with is a config error at its lines (exit 78) rather than
/// a start that fails with "Failed to initialize TLS support".
enum TLSPair {
    /// A PEM file is far smaller; the page's server reads the same bound.
    static let maximumBytes = 64 * 1024

    static func check(cert: String, key: String, origin: (String) -> String) throws(ConfigError) {
        let certText = try read(cert, key: "web.cert_file", origin: origin("web.cert_file"))
        let keyText = try read(key, key: "web.key_file", origin: origin("web.key_file"))
        func has(_ text: [UInt8], _ word: String) -> Bool { text.firstRange(of: Array(word.utf8)) != nil }
        // Legacy PEM ("Proc-Type: 4,ENCRYPTED") and PKCS#8 ("BEGIN ENCRYPTED PRIVATE KEY") both say so.
        if has(keyText, "ENCRYPTED") {
            throw ConfigError(origin("web.key_file"), "web.key_file = \(key) is encrypted (islet cannot ask for a passphrase); write it without one: openssl pkey -in \(key) -out key.pem, mode 0600")
        }
        var detail = [CChar](repeating: 0, count: 256)
        let verdict = certText.withUnsafeBufferPointer { c in
            keyText.withUnsafeBufferPointer { k in
                c.withMemoryRebound(to: CChar.self) { c in
                    k.withMemoryRebound(to: CChar.self) { k in
                        islet_tls_check_pair(c.baseAddress, c.count, k.baseAddress, k.count, &detail, detail.count)
                    }
                }
            }
        }
        let why = String(decoding: detail.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch verdict {
        case Int32(ISLET_TLS_OK.rawValue): return
        case Int32(ISLET_TLS_NO_LIBRARY.rawValue):
            throw ConfigError(origin("web.cert_file"), "web.cert_file: cannot load GnuTLS to check the certificate: \(why)")
        case Int32(ISLET_TLS_NOT_A_CERTIFICATE.rawValue):
            let swapped = has(certText, "PRIVATE KEY") ? " (it holds a private key: are cert_file and key_file swapped?)" : ""
            throw ConfigError(origin("web.cert_file"), "web.cert_file = \(cert) is not a certificate\(swapped): GnuTLS says \(why)")
        case Int32(ISLET_TLS_KEY_ENCRYPTED.rawValue):
            throw ConfigError(origin("web.key_file"), "web.key_file = \(key) is encrypted (islet cannot ask for a passphrase): GnuTLS says \(why)")
        case Int32(ISLET_TLS_NOT_A_KEY.rawValue):
            let hint = has(keyText, "BEGIN CERTIFICATE") ? " (is it the certificate?)" : ""
            throw ConfigError(origin("web.key_file"), "web.key_file = \(key) is not a private key\(hint): GnuTLS says \(why)")
        case Int32(ISLET_TLS_MISMATCH.rawValue):
            throw ConfigError(origin("web.key_file"), "web.key_file = \(key) does not match the certificate in web.cert_file = \(cert) (another key pair's?)")
        default:
            throw ConfigError(origin("web.cert_file"), "web.cert_file = \(cert) and web.key_file = \(key): GnuTLS refuses the pair: \(why)")
        }
    }

    private static func read(_ path: String, key: String, origin: String) throws(ConfigError) -> [UInt8] {
        switch FileSystem.readFile(path, limit: maximumBytes) {
        case .failure(let e): throw ConfigError(origin, "\(key) = \(path): \(e.errno)")
        case .success(let b):
            guard b.firstRange(of: Array("-----BEGIN ".utf8)) != nil else {
                throw ConfigError(origin, "\(key) = \(path): not a PEM file (no -----BEGIN line)")
            }
            return b
        }
    }
}
