import IsletParts
import IsletSystem
import IsletProtocol
import IsletFrame
import IsletRender

/// The terminal as the demo's screen and keyboard: raw mode while the daemon runs, restored
/// on exit; the picture is redrawn in place only when the panel's image changes.
final class TerminalScreen {
    private let rawMode: TerminalRawMode?
    private var last = ""
    let legend: String

    init(legend: String) {
        self.legend = legend
        rawMode = TerminalRawMode(0)
        write("\u{1B}[2J\u{1B}[?25l")
    }

    var readsKeys: Bool { rawMode != nil }

    func show(_ image: PanelImage?, status: String) {
        var text = "\u{1B}[H"
        if let image, let bytes = image.bytes, let b = Bitmap(width: image.width, height: image.height, bytes: bytes) {
            let needs = (columns: b.width + 2, rows: (b.height + 1) / 2 + 4)
            if let size = Self.terminalSize(), size.columns < needs.columns || size.rows < needs.rows {
                // A picture wider than the terminal wraps into noise: say what is needed instead.
                text += "\u{1B}[2J\u{1B}[Hthe \(b.width)x\(b.height) preview needs a terminal of "
                    + "\(needs.columns)x\(needs.rows); this one is \(size.columns)x\(size.rows)\u{1B}[K\n"
            } else {
                text += TerminalPreview.framed(image.on ? b : Bitmap(width: b.width, height: b.height))
            }
        }
        text += legend + "\u{1B}[K\n" + status + "\u{1B}[K\n"
        guard text != last else { return }
        last = text
        write(text)
    }

    /// The terminal's size, when standard output is one.
    static func terminalSize() -> (columns: Int, rows: Int)? {
        Terminal.size(of: 1)
    }

    func restore() {
        write("\u{1B}[?25h\n")
        rawMode?.restore()
    }

    private func write(_ s: String) {
        StandardStream.output.write(s)
    }
}
