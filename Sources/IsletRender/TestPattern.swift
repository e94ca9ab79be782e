import IsletFrame

/// A frame that shows at a glance whether a real module's size, offset and orientation are set
/// right (`isletctl test-pattern`, `isletd --test-pattern`): what each wrong setting looks like
/// on it is in docs/DISPLAY.md.
///
/// - a one-pixel border on the frame's edges: a missing side or noise beyond one means a
///   column offset, display offset or size that is wrong;
/// - corner marks of four sizes, largest at the top left: a mirrored or upside-down picture puts
///   the largest elsewhere;
/// - a column ruler along the top (a tick every 8 columns, a long one every 32) and a row ruler
///   down the left (a tick every 8 rows, one page): count the ticks to see how many are lost;
/// - a checkerboard of 2×2 squares in the middle: interleaved or doubled rows (COM pins,
///   multiplex) break it into stripes.
public enum TestPattern {
    public static func frame(width: Int, height: Int) -> Bitmap {
        var b = Bitmap(width: width, height: height)
        guard width > 0, height > 0 else { return b }
        func set(_ x: Int, _ y: Int) { if b.contains(x: x, y: y) { b[x, y] = true } }
        func block(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { set(x, y) } }
        }
        for x in 0..<width { set(x, 0); set(x, height - 1) }
        for y in 0..<height { set(0, y); set(width - 1, y) }

        // Corner marks inside the border: 6, 4, 3 and 2 pixels square, clockwise from the top left.
        let unit = max(1, min(width, height) / 16)
        let sizes = [3 * unit, 2 * unit, unit + unit / 2, unit]
        block(2, 2, sizes[0], sizes[0])
        block(width - 2 - sizes[1], 2, sizes[1], sizes[1])
        block(width - 2 - sizes[2], height - 2 - sizes[2], sizes[2], sizes[2])
        block(2, height - 2 - sizes[3], sizes[3], sizes[3])

        // Rulers: ticks hang from the top border and stand out from the left one.
        let tick = max(1, height / 16)
        for x in stride(from: 8, to: width - 1, by: 8) {
            let len = x % 32 == 0 ? 2 * tick + 1 : tick
            for y in 1...len { set(x, y) }
        }
        let rowTick = max(1, width / 32)
        for y in stride(from: 8, to: height - 1, by: 8) {
            let len = y % 32 == 0 ? 2 * rowTick + 1 : rowTick
            for x in 1...len { set(x, y) }
        }

        // Checkerboard in the middle half of the frame, squares aligned to the frame's even pixels.
        let cx0 = (width / 4) & ~1, cx1 = (3 * width / 4) & ~1
        let cy0 = (height / 4) & ~1, cy1 = (3 * height / 4) & ~1
        if cx1 > cx0, cy1 > cy0 {
            for y in cy0..<cy1 { for x in cx0..<cx1 where ((x / 2) + (y / 2)) % 2 == 0 { set(x, y) } }
        }
        return b
    }
}
