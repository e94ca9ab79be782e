#if canImport(Glibc)
import Glibc
#endif
import IsletSystem
import IsletProtocol
import IsletFrame
import IsletRender

/// The terminal as the demo's screen and keyboard: raw mode while the daemon runs, restored
/// on exit; the picture is redrawn in place only when the panel's image changes.
final class TerminalScreen {
    private var saved = termios()
    private var raw = false
    private var last = ""
    let legend: String

    init(legend: String) {
        self.legend = legend
        if isatty(0) == 1, tcgetattr(0, &saved) == 0 {
            var t = saved
            t.c_lflag &= ~tcflag_t(ICANON | ECHO)
            t.c_cc.6 = 1   // VMIN
            t.c_cc.5 = 0   // VTIME
            raw = tcsetattr(0, TCSANOW, &t) == 0
        }
        write("\u{1B}[2J\u{1B}[?25l")
    }

    var readsKeys: Bool { raw }

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
        var ws = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    func restore() {
        write("\u{1B}[?25h\n")
        if raw { tcsetattr(0, TCSANOW, &saved) }
    }

    private func write(_ s: String) {
        try? Posix.writeAll(1, Array(s.utf8))
    }
}
