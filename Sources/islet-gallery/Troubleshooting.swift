// docs/gallery/troubleshooting.png: what a wrong setting looks like on the glass, next to the
// right one. Every picture is the emulated module (ModuleWiring, written from the datasheets and
// peers) fed the real init and frame bytes of the driver with that setting: nothing is drawn by
// hand, so the gallery shows what the emulator the tests trust would show.
import IsletFrame
import IsletDisplay
import IsletRender
import Synchronization

/// One way of driving one module: the settings and what the person looking at it sees.
struct Setup {
    var label: String
    var model: PanelModel
    var settings = DisplaySettings()
    /// The module is mounted upside down: the viewer sees the glass turned by 180°.
    var mountedUpsideDown = false
}

struct Symptom {
    var title: String
    var module: ModuleWiring
    var wrong: Setup
    var right: Setup
}

enum Troubleshooting {
    enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case driver(String)
        var description: String {
            switch self {
            case .missing(let what): "no table row or module for \(what)"
            case .driver(let why): why
            }
        }
    }

    static func symptoms() throws(Failure) -> [Symptom] {
        func row(_ k: ControllerKind, _ w: Int, _ h: Int) throws(Failure) -> PanelModel {
            guard let m = PanelModel.find(k, width: w, height: h) else { throw .missing("\(k) \(w)x\(h)") }
            return m
        }
        func module(_ name: String) throws(Failure) -> ModuleWiring {
            guard let m = ModuleWiring.all.first(where: { $0.name == name }) else { throw .missing(name) }
            return m
        }
        let sh1106 = try row(.sh1106, 128, 64)
        var sh1106At0 = sh1106; sh1106At0.columnOffset = 0
        let s128x64 = try row(.ssd1306, 128, 64)
        let s128x32 = try row(.ssd1306, 128, 32)
        let sh1107 = try row(.sh1107, 64, 128)
        var sh1107At0 = sh1107; sh1107At0.displayOffset = 0
        return [
            Symptom(title: "Shifted 2 columns left, noise at the right edge (SH1106)",
                    module: try module("SH1106 1.3\" 128x64"),
                    wrong: Setup(label: "column_offset = 0", model: sh1106At0),
                    right: Setup(label: "no column_offset (2)", model: sh1106)),
            Symptom(title: "Shifted 2 columns right, noise at the left edge (SH1106 wired at SEG0)",
                    module: try module("SH1106 1.3\" 128x64 wired at SEG0"),
                    wrong: Setup(label: "no column_offset (2)", model: sh1106),
                    right: Setup(label: "column_offset = 0", model: sh1106At0)),
            Symptom(title: "Every other line dark, picture twice as tall (a 128x64 panel)",
                    module: try module("SSD1306 0.96\" 128x64"),
                    wrong: Setup(label: "size = 128x32", model: s128x32),
                    right: Setup(label: "size = 128x64", model: s128x64)),
            Symptom(title: "Picture moved, noise in a band (SH1107 64x128)",
                    module: try module("SH1107 64x128"),
                    wrong: Setup(label: "display_offset = 0", model: sh1107At0),
                    right: Setup(label: "no display_offset (96)", model: sh1107)),
            Symptom(title: "Upside down (the module is mounted turned over)",
                    module: try module("SSD1306 0.96\" 128x64"),
                    wrong: Setup(label: "rotation = 0", model: s128x64, mountedUpsideDown: true),
                    right: Setup(label: "rotation = 180", model: s128x64,
                                 settings: DisplaySettings(rotation: .deg180), mountedUpsideDown: true)),
            Symptom(title: "Too dim",
                    module: try module("SSD1306 0.96\" 128x64"),
                    wrong: Setup(label: "contrast = 16", model: s128x64, settings: DisplaySettings(contrast: 16)),
                    right: Setup(label: "no contrast (CFh)", model: s128x64)),
        ]
    }

    /// The glass after the driver's init and one test-pattern frame, and the contrast it ended with.
    static func glass(_ setup: Setup, on module: ModuleWiring) throws(Failure) -> (Bitmap, UInt8) {
        let bus = CollectingBus()
        var driver = PanelDriver(bus: bus, panel: setup.model, settings: setup.settings)
        do {
            _ = try driver.initialize()
            _ = try driver.flush(TestPattern.frame(width: setup.model.width, height: setup.model.height))
        } catch {
            throw .driver("\(setup.model) \(setup.label): \(error)")
        }
        var panel = EmulatedPanel(model: setup.model, module: module)
        for t in bus.take() { panel.receive(t) }
        var image = panel.image
        if setup.mountedUpsideDown {
            var turned = Bitmap(width: image.width, height: image.height)
            for y in 0..<image.height { for x in 0..<image.width where image[x, y] {
                turned[image.width - 1 - x, image.height - 1 - y] = true
            } }
            image = turned
        }
        return (image, panel.contrast)
    }

    static let scale = 3
    static let background: (UInt8, UInt8, UInt8) = (28, 28, 32)

    /// Writes the sheet; returns its path.
    static func write(to directory: String, renderer: Renderer) throws -> String {
        let list = try symptoms()
        let gap = 16, titleH = 22, captionH = 18
        let tiles = try list.map { s throws(Failure) in
            (try glass(s.wrong, on: s.module), try glass(s.right, on: s.module))
        }
        let widest = list.map { $0.module.width }.max() ?? 128
        let cellW = widest * scale + 8
        let width = gap + 2 * (cellW + gap)
        var heights: [Int] = []
        for s in list { heights.append(titleH + captionH + s.module.height * scale + 8 + gap) }
        let height = 40 + heights.reduce(0, +)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: rgb.count, by: 3) { (rgb[i], rgb[i + 1], rgb[i + 2]) = background }
        var text = Bitmap(width: width, height: height)
        _ = renderer.drawLabel("What you see -> which setting (docs/DISPLAY.md). Left: the wrong setting; right: the fix.",
                               x: gap, y: 10, into: &text)
        var y = 40
        for (i, s) in list.enumerated() {
            _ = renderer.drawLabel("\(i + 1). \(s.title)", x: gap, y: y, into: &text)
            for (c, (setup, tile)) in [(s.wrong, tiles[i].0), (s.right, tiles[i].1)].enumerated() {
                let x0 = gap + c * (cellW + gap)
                _ = renderer.drawLabel((c == 0 ? "wrong: " : "right: ") + setup.label, x: x0, y: y + titleH, into: &text)
                paint(tile.0, contrast: tile.1, into: &rgb, width: width, x: x0 + 4, y: y + titleH + captionH + 4)
            }
            y += heights[i]
        }
        // Labels in light grey over the background.
        for py in 0..<height { for px in 0..<width where text[px, py] {
            let o = (py * width + px) * 3
            (rgb[o], rgb[o + 1], rgb[o + 2]) = (220, 220, 220)
        } }
        let path = directory + "/troubleshooting.png"
        try ImageFile.writeRGBPNG(rgb, width: width, height: height, to: path)
        return path
    }

    /// A photo-like panel: each pixel a 2×2 dot with a dark gap, lit dots as bright as the
    /// contrast makes them (segment current is proportional to the 81h value, SSD1306 §10.1.7),
    /// unlit ones the faint grey of an OLED that is on.
    static func paint(_ glass: Bitmap, contrast: UInt8, into rgb: inout [UInt8], width: Int, x: Int, y: Int) {
        let level = 40 + Int(contrast) * 215 / 255
        let lit = (UInt8(level * 88 / 100), UInt8(level * 96 / 100), UInt8(level))
        let dark: (UInt8, UInt8, UInt8) = (14, 14, 18)
        // The glass's black frame, one pixel pitch wide.
        for py in (y - scale)..<(y + (glass.height + 1) * scale) {
            for px in (x - scale)..<(x + (glass.width + 1) * scale) {
                let o = (py * width + px) * 3
                (rgb[o], rgb[o + 1], rgb[o + 2]) = (6, 6, 8)
            }
        }
        for gy in 0..<glass.height {
            for gx in 0..<glass.width {
                let colour = glass[gx, gy] ? lit : dark
                for dy in 0..<(scale - 1) { for dx in 0..<(scale - 1) {
                    let o = ((y + gy * scale + dy) * width + x + gx * scale + dx) * 3
                    (rgb[o], rgb[o + 1], rgb[o + 2]) = colour
                } }
            }
        }
    }
}

/// Keeps every transaction the driver sends, for the emulated panel.
final class CollectingBus: I2CBus, Sendable {
    private let transactions = Mutex<[[UInt8]]>([])
    let capabilities = I2CCapabilities.plainI2C
    func write(address: UInt8, bytes: [UInt8]) throws(I2CError) { transactions.withLock { $0.append(bytes) } }
    func take() -> [[UInt8]] { transactions.withLock { t in defer { t = [] }; return t } }
}
