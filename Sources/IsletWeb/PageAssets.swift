import IsletFrame

/// The web page's assets, served from the binary (docs/WEB.md "Delivery"). Nothing inline and
/// nothing from elsewhere, so the page runs under `Content-Security-Policy: default-src 'self'`
/// and works offline. They are the files in Assets/, joined as Assets/served.txt says and made at
/// build time by islet-page-gen (IsletPagePlugin): each address's bytes, its content hash, its
/// hashed name, its gzip. `make lint-web` checks them with real parsers.
///
/// The script (`/app.js`) is one classic script of several files, in served.txt's order (the
/// first one's "use strict" covers all):
/// - words.js: the page's words in the panel's seven languages, one key per line, its texts in
///   the order of `langs`, split at `|`.
/// - parts.js: the pure parts (`match`, `clock`, `shownAfter`, `untilChange`, `paint`, `verbs`,
///   `tabTitle`, `quickLengths`, `nightView`, `alertsOf`), no state and no network, so each reads
///   (and is tested by web/parts_check.js) on its own.
/// - behaviour.js: the session, the live stream, the pill drawn pixel for pixel, the controls.
/// - settings.js: the Settings card (the settings ops, backup and restore).
/// - alerts.js: the chime, the vibration and the notifications, served alone, asked when the
///   first alerts come.
/// - install.js: the service worker, registered only in a secure context.
package enum PageAssets {
    /// One address as islet-page-gen made it (the generated `embedded`).
    struct Embedded {
        let address: String
        let path: String
        let type: String
        let immutable: Bool
        let hash: String
        let text: String?
        let base64: String
        let gzip64: String?
    }

    /// Everything served, decoded once on the first request (a desk without `[web]` never does).
    package static let all: [PageAsset] = embedded.map { e in
        PageAsset(address: e.address, path: e.path, type: e.type, immutable: e.immutable, hash: e.hash,
                  // Ours (islet-page-gen's): bytes that do not decode are a build bug, served as nothing.
                  identity: e.text.map { Array($0.utf8) } ?? ((try? Base64.decode(e.base64)) ?? []),
                  gzip: e.gzip64.map { (try? Base64.decode($0)) ?? [] })
    }

    private static let byName: [String: (PageAsset, hashed: Bool)] = {
        var m: [String: (PageAsset, hashed: Bool)] = [:]
        for a in all {
            m[a.address] = (a, false)
            if a.immutable { m[a.path] = (a, true) }
        }
        if let page = m["/"] { m["/index.html"] = page }
        return m
    }()

    /// The asset at `path`, and whether it was asked for by its hashed (cached for good) name.
    package static func find(_ path: String) -> (asset: PageAsset, hashed: Bool)? {
        guard let hit = byName[path] else { return nil }
        return (hit.0, hit.hashed)
    }

    /// The page itself (`/`).
    package static var page: PageAsset? { byName["/"]?.0 }
}

/// One served address: its plain address, the name it is cached under, its bytes and gzip.
package struct PageAsset: Sendable, Equatable {
    /// As served.txt names it: `/app.js`.
    package let address: String
    /// The name cached for good (`/app.1a2b3c4d5e6f.js`); the address itself when revalidated.
    package let path: String
    package let type: String
    /// Served under `path` with `Cache-Control: max-age=31536000, immutable`.
    package let immutable: Bool
    /// FNV-1a 64 of `identity`, in hex: the ETag's value.
    package let hash: String
    package let identity: [UInt8]
    /// The same bytes gzipped at build time; nil when that would not be smaller (PNG).
    package let gzip: [UInt8]?

    package init(address: String, path: String, type: String, immutable: Bool, hash: String, identity: [UInt8], gzip: [UInt8]?) {
        self.address = address
        self.path = path
        self.type = type
        self.immutable = immutable
        self.hash = hash
        self.identity = identity
        self.gzip = gzip
    }
}

