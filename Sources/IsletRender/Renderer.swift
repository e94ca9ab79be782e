import IsletIcons
import IsletSystem
import IsletFrame
@preconcurrency import CFreeType
import IsletCore
import Synchronization

/// Draws a scene (zero, one or two activities, a presentation, `now`) into a page-packed frame.
///
/// Created once with its fonts loaded; every glyph is rasterized once and cached, and each
/// label is shaped once per text, so a steady-state tick (same labels, new second) draws
/// from caches without touching the allocator. Thread-safe: the caches sit behind a mutex.
public final class Renderer: Sendable {
    private let state: Mutex<RenderState>

    /// Loads the fonts from `fontDirectory`, else `$ISLET_FONT_DIR`, else Debian's
    /// /usr/share/fonts/X11/misc (Terminus as OTB from fonts-terminus-otb also works).
    public init(fontDirectory: String? = nil) throws(FontError) {
        // The fonts load first (a copyable value), then the noncopyable state takes them without
        // throwing: Swift 6.0.3 (Debian trixie's swiftlang) crashes in its SIL verifier on a
        // noncopyable struct's typed-throws initializer.
        let faces = try LoadedFaces.load(directory: FontFiles.directory(override: fontDirectory))
        state = Mutex(RenderState(faces))
    }

    deinit { state.withLock { $0.close() } }

    /// The font files FreeType holds open (tests: fonts are opened when a drawing needs them).
    var openFontFiles: [String] { state.withLock { $0.openFontFiles } }

    /// Glyphs FreeType has rendered so far (tests: a running countdown renders none after its first frame).
    var glyphLoads: Int { state.withLock { $0.glyphLoads } }

    /// Renders the scene into `frame`, whose size is the panel's.
    /// - One activity: `presentation`. Two: both minimal, sharing the pill, the first on the
    ///   left. None, or only dismissed ones: a dark frame. A third and later are not shown.
    public func render(_ activities: [Activity], presentation: Presentation, now: Instant,
                       options: RenderOptions = RenderOptions(), into frame: inout Bitmap) {
        state.withLock { s in s.render(activities, presentation, now, options, &frame) }
    }

    /// Convenience: renders into a new frame of `size`.
    public func render(_ activities: [Activity], presentation: Presentation, now: Instant,
                       size: PanelSize, options: RenderOptions = RenderOptions()) -> Bitmap {
        var b = Bitmap(width: size.width, height: size.height)
        render(activities, presentation: presentation, now: now, options: options, into: &b)
        return b
    }

    /// Where the time digits of a single-activity frame are drawn (frame coordinates, pixel
    /// shift included); nil when the frame shows no time. Lets tests and the gallery
    /// look at the digits alone.
    public func timeRegion(_ activity: Activity, presentation: Presentation, now: Instant,
                           size: PanelSize, options: RenderOptions = RenderOptions()) -> (x: Int, y: Int, width: Int, height: Int)? {
        state.withLock { s in
            var scratch = Bitmap(width: size.width, height: size.height)
            s.lastTimeRect = nil
            s.render([activity], presentation, now, options, &scratch)
            return s.lastTimeRect.map { ($0.x, $0.y, $0.w, $0.h) }
        }
    }

    /// Draws `text` (shaped and reordered) in the label font a layout would pick, for
    /// galleries and previews. Returns the width drawn.
    @discardableResult
    public func drawLabel(_ text: String, x: Int, y: Int, into frame: inout Bitmap) -> Int {
        state.withLock { s in
            let line = s.prepare(.title(text, size: 12))
            s.drawLine(line, x: x, rowTop: y, rowHeight: line.height, into: &frame)
            return line.width
        }
    }
}

struct Rect {
    var x: Int, y: Int, w: Int, h: Int
    var maxX: Int { x + w }
    var maxY: Int { y + h }
}

/// A label ready to draw: visual order, its face and width.
struct PreparedLine {
    var scalars: [UInt32]
    var font: LabelFont
    var width: Int
    var height: Int
    var rtl: Bool
}

enum LabelFont: Hashable {
    case terminus(Int)
    case unifont
}

/// A label narrowed to `width` pixels. A plain struct (not an indirect enum case) so a cache
/// lookup builds no box on the heap.
struct FittedKey: Hashable {
    var key: LabelKey
    var width: Int
}

enum LabelKey: Hashable {
    case word(Localization.Key, language: String, size: Int)
    case cycle(Int, of: Int?, language: String, size: Int)
    case cycleShort(Int, of: Int?, language: String, size: Int)
    case title(String, size: Int)
}

/// The FreeType library and the checked faces, before the render state owns them.
struct LoadedFaces {
    let library: FT_Library
    let bold: [Face]
    let regular: [Face]
    let unifontPath: String

    static func load(directory: String) throws(FontError) -> LoadedFaces {
        var lib: FT_Library?
        let e = FT_Init_FreeType(&lib)
        guard e == 0, let lib else { throw .freeTypeInit(e) }
        let unifontPath = directory + "/unifont.pcf.gz"
        var b: [Face] = [], r: [Face] = []
        do throws(FontError) {
            // Checked now, loaded when needed: a missing font is a start-up error, not a blank label later.
            guard FileSystem.isReadable(unifontPath) else { throw .missing(path: unifontPath, debianPackage: "xfonts-unifont") }
            // Every face is checked now (FreeType reads it, then lets it go) and opened for good
            // on first use: a Latin session on a 128x32 pill draws with two or three of the eighteen.
            for size in FontFiles.terminusSizes {
                var bf = try RenderState.terminus(lib, directory, size, bold: true)
                try bf.check()
                b.append(bf)
                var rf = try RenderState.terminus(lib, directory, size, bold: false)
                try rf.check()
                r.append(rf)
            }
        } catch {
            for f in b + r { f.done() }
            FT_Done_FreeType(lib)
            throw error
        }
        return LoadedFaces(library: lib, bold: b, regular: r, unifontPath: unifontPath)
    }
}

struct RenderState: ~Copyable {
    let library: FT_Library
    var bold: [Face]
    var regular: [Face]
    /// Unifont (the whole BMP, a few MB once loaded) is loaded the first time a label needs a
    /// script Terminus lacks: a Latin-language session never pays for it.
    var unifontFace: Face?
    let unifontPath: String
    var labels: [LabelKey: PreparedLine] = [:]
    /// Lines narrowed to a width (smaller face, then shortened with an ellipsis), by key and width.
    var fitted: [FittedKey: PreparedLine] = [:]
    var lastTimeRect: Rect? = nil
    /// Time faces (bit 2·index, +1 when dimmed) whose digits are already rendered.
    var warmedTimeFaces: UInt32 = 0
    /// Custom icons sent with activities, decoded once (`customIcon(_:)`).
    var customIcons: [String: IconImage?] = [:]

    init(_ faces: LoadedFaces) {
        library = faces.library
        unifontPath = faces.unifontPath
        unifontFace = nil
        bold = faces.bold
        regular = faces.regular
        labels.reserveCapacity(64)
    }

    /// Terminus as PCF (xfonts-terminus), else as OTB (fonts-terminus-otb) in the same
    /// directory or in Debian's OpenType directory.
    static func terminus(_ lib: FT_Library, _ dir: String, _ size: Int, bold: Bool) throws(FontError) -> Face {
        let pcf = dir + "/ter-u\(size)\(bold ? "b" : "n")_unicode.pcf.gz"
        if FileSystem.isReadable(pcf) {
            return try Face(library: lib, path: pcf, pixelHeight: size, package: "xfonts-terminus")
        }
        let otbName = bold ? "/terminus-bold.otb" : "/terminus-normal.otb"
        for d in [dir, FontFiles.otbDirectory] where FileSystem.isReadable(d + otbName) {
            return try Face(library: lib, path: d + otbName, pixelHeight: size, package: "fonts-terminus-otb")
        }
        throw .missing(path: pcf, debianPackage: "xfonts-terminus")
    }

    /// Runs `body` with Unifont, loading it the first time; nil when it cannot be loaded.
    mutating func withUnifont<T>(_ body: (inout Face) -> T) -> T? {
        if unifontFace == nil {
            var u = try? Face(library: library, path: unifontPath, pixelHeight: 16, package: "xfonts-unifont")
            do { try u?.open() } catch { u = nil }
            unifontFace = u
        }
        guard var face = unifontFace else { return nil }
        unifontFace = nil   // no second reference while the glyph cache grows
        let result = body(&face)
        unifontFace = face
        return result
    }

    /// Glyphs FreeType has rendered, over every face.
    var glyphLoads: Int { (bold + regular).reduce(0) { $0 + $1.loads } + (unifontFace?.loads ?? 0) }

    /// The font files FreeType holds open: what this session's drawing has paid for.
    var openFontFiles: [String] {
        (bold + regular).filter(\.isOpen).map(\.path) + (unifontFace.map { [$0.path] } ?? [])
    }

    mutating func close() {
        for f in bold { f.done() }
        for f in regular { f.done() }
        unifontFace?.done()
        unifontFace = nil
        bold = []
        regular = []
        FT_Done_FreeType(library)
    }

    // MARK: scene

    mutating func render(_ activities: [Activity], _ presentation: Presentation, _ now: Instant,
                         _ options: RenderOptions, _ frame: inout Bitmap) {
        frame.clear()
        lastTimeRect = nil
        // The first two activities not yet dismissed, found without building an array.
        var first = -1, second = -1
        for i in activities.indices {
            if let e = activities[i].ending, e.dismissAt <= now { continue }
            if activities[i].content.phase == .idle { continue }
            if first < 0 { first = i } else if second < 0 { second = i; break }
        }
        guard first >= 0 else { return }
        let panel = Rect(x: options.shiftX, y: options.shiftY, w: frame.width, h: frame.height)
        if second >= 0 {
            let half = panel.w / 2
            minimal(activities[first], now, options, Rect(x: panel.x, y: panel.y, w: half, h: panel.h), align: -1, &frame)
            minimal(activities[second], now, options, Rect(x: panel.x + half, y: panel.y, w: panel.w - half, h: panel.h), align: 1, &frame)
            return
        }
        let a = activities[first]
        switch presentation {
        case .minimal: minimal(a, now, options, panel, align: 0, &frame)
        case .compact: compact(a, now, options, panel, &frame)
        case .expanded: expanded(a, now, options, panel, &frame)
        case .lockscreen: lockscreen(a, now, options, panel, &frame)
        }
    }

}
