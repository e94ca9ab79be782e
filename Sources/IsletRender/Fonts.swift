import IsletSystem
import IsletFrame
@preconcurrency import CFreeType

/// A font that could not be loaded; the text names the file and the Debian package to install.
public enum FontError: Error, Hashable, Sendable, CustomStringConvertible {
    case missing(path: String, debianPackage: String)
    case unreadable(path: String, freeTypeError: Int32)
    case freeTypeInit(Int32)

    public var description: String {
        switch self {
        case .missing(let p, let pkg):
            "font file \(p) not found: install the Debian package \(pkg) (apt-get install \(pkg)), or point ISLET_FONT_DIR at a directory holding it"
        case .unreadable(let p, let e):
            "font file \(p) could not be loaded by FreeType (error \(e)): reinstall its package"
        case .freeTypeInit(let e):
            "FreeType could not start (error \(e)): check libfreetype6"
        }
    }
}

/// One glyph as row bit masks (bit x is pixel x from the left), with its placement.
struct Glyph {
    var width: Int
    var height: Int
    /// From the pen position to the bitmap's left edge.
    var left: Int
    /// From the baseline up to the bitmap's top row.
    var top: Int
    var advance: Int
    /// Index of the first row mask in the face's pool.
    var rowStart: Int
}

/// A bitmap face with its glyph cache. The font file is opened by FreeType on first use, so a
/// session pays memory only for the sizes its presentations draw. Glyphs are rendered once, on
/// first use, into one pool of row masks, so drawing a cached glyph touches no allocator.
struct Face {
    let library: FT_Library
    let path: String
    let pixelHeight: Int?
    let package: String
    private var face: FT_Face? = nil
    /// Set when opening failed: a face that cannot load draws nothing and is not retried per glyph.
    private var unusable = false
    /// Baseline distance from the top of a line, and the line height, in pixels (once open).
    private(set) var ascent = 0
    private(set) var lineHeight = 1
    private var cache: [UInt32: Glyph?] = [:]
    private(set) var rows: [UInt32] = []
    /// Glyphs rendered by FreeType so far (each once; tests count them).
    private(set) var loads = 0

    /// Checks that the file is there; FreeType opens it on first use.
    init(library: FT_Library, path: String, pixelHeight: Int?, package: String) throws(FontError) {
        guard FileSystem.isReadable(path) else { throw .missing(path: path, debianPackage: package) }
        self.library = library
        self.path = path
        self.pixelHeight = pixelHeight
        self.package = package
    }

    /// Opens the file now (a start-up check, or a face about to be used); throws what FreeType says.
    mutating func open() throws(FontError) {
        if face != nil { return }
        var f: FT_Face?
        let err = FT_New_Face(library, path, 0, &f)
        guard err == 0, let f else {
            unusable = true
            throw .unreadable(path: path, freeTypeError: err)
        }
        // Bitmap-only faces (PCF, OTB) carry fixed strikes: select the one of the wanted height.
        let strikes = Int(f.pointee.num_fixed_sizes)
        if strikes > 0, let sizes = f.pointee.available_sizes {
            var pick = 0
            if let want = pixelHeight {
                for i in 0..<strikes where Int(sizes[i].height) == want { pick = i }
            }
            FT_Select_Size(f, Int32(pick))
        } else if let want = pixelHeight {
            FT_Set_Pixel_Sizes(f, 0, FT_UInt(want))
        }
        let m = f.pointee.size.pointee.metrics
        face = f
        ascent = Int(m.ascender >> 6)
        lineHeight = max(1, Int((m.ascender - m.descender) >> 6))
        rows.reserveCapacity(1024)
    }

    /// Opens and closes the file: FreeType can read it (a start-up check that keeps no memory).
    mutating func check() throws(FontError) {
        try open()
        done()
        face = nil
    }

    var isOpen: Bool { face != nil }

    /// The open face, opening it on first use; nil when it cannot be opened.
    private mutating func opened() -> FT_Face? {
        if let face { return face }
        if unusable { return nil }
        do { try open() } catch { return nil }
        return face
    }

    func done() { if let face { FT_Done_Face(face) } }

    // FT_LOAD_TARGET_MONO is a function-like macro (FT_LOAD_TARGET_(FT_RENDER_MODE_MONO)):
    // (mode & 15) << 16. FT_LOAD_RENDER is 1 << 2.
    private static let loadFlags = Int32(FT_LOAD_RENDER) | Int32((FT_RENDER_MODE_MONO.rawValue & 15) << 16)

    /// The glyph for a code point, or nil when the face has none.
    mutating func glyph(_ cp: UInt32) -> Glyph? {
        if let hit = cache[cp] { return hit }
        guard let face = opened() else { return nil }
        loads += 1
        let g = load(cp, face)
        cache[cp] = .some(g)
        return g
    }

    mutating func has(_ cp: UInt32) -> Bool {
        if let hit = cache[cp] { return hit != nil }
        guard let face = opened() else { return false }
        return FT_Get_Char_Index(face, FT_ULong(cp)) != 0
    }

    private mutating func load(_ cp: UInt32, _ face: FT_Face) -> Glyph? {
        let index = FT_Get_Char_Index(face, FT_ULong(cp))
        guard index != 0, FT_Load_Glyph(face, index, Self.loadFlags) == 0, let slot = face.pointee.glyph else { return nil }
        if slot.pointee.format != FT_GLYPH_FORMAT_BITMAP, FT_Render_Glyph(slot, FT_RENDER_MODE_MONO) != 0 { return nil }
        let bm = slot.pointee.bitmap
        let w = min(Int(bm.width), 32), h = Int(bm.rows)
        let g = Glyph(width: w, height: h, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
                      advance: Int(slot.pointee.advance.x >> 6), rowStart: rows.count)
        let pitch = Int(bm.pitch)
        for y in 0..<h {
            var mask: UInt32 = 0
            if let buf = bm.buffer {
                let row = buf + y * pitch
                for x in 0..<w {
                    let byte: UInt8
                    if bm.pixel_mode == UInt8(FT_PIXEL_MODE_MONO.rawValue) {
                        byte = row[x >> 3] & (0x80 >> UInt8(x & 7))
                    } else {
                        byte = row[x] >= 128 ? 1 : 0
                    }
                    if byte != 0 { mask |= 1 << UInt32(x) }
                }
            }
            rows.append(mask)
        }
        return g
    }
}

/// Where the fonts live, and which Debian package ships each.
public enum FontFiles {
    public static let defaultDirectory = "/usr/share/fonts/X11/misc"
    public static let otbDirectory = "/usr/share/fonts/opentype/terminus"
    /// The Terminus heights shipped by xfonts-terminus.
    public static let terminusSizes = [12, 14, 16, 18, 20, 22, 24, 28, 32]

    /// `ISLET_FONT_DIR` when set and not empty, else Debian's X11 misc font directory.
    public static func directory(override: String?) -> String {
        if let o = override, !o.isEmpty { return o }
        if let e = Posix.environment("ISLET_FONT_DIR"), !e.isEmpty { return e }
        return defaultDirectory
    }
}
