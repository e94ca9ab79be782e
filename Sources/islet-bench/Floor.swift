import IsletFrame
import IsletCore
import IsletRender
import IsletDisplay

/// The theoretical floor of a tick on the bus: the bytes of display RAM that changed, plus the
/// least addressing that can put them there. One data transaction's control byte is always
/// needed; a window command (7 bytes: control byte, 21h c0 c1, 22h p0 p1) is needed unless the
/// window already set wraps onto the changed span, so the floor counts 1 and the one-window
/// figure counts 8. No encoder can beat the first; ours is compared with both.
enum Floor {
    struct Figures {
        var changedBytesPerTick: Double
        var floorBytesPerTick: Double
        var oneWindowBytesPerTick: Double
    }

    static func figures(_ frames: [Bitmap]) -> Figures {
        var changed = 0, floor = 0, window = 0
        for (a, b) in zip(frames, frames.dropFirst()) {
            var n = 0
            for i in 0..<min(a.bytes.count, b.bytes.count) where a.bytes[i] != b.bytes[i] { n += 1 }
            changed += n
            if n > 0 {
                floor += n + 1
                window += n + 8
            }
        }
        let ticks = Double(max(1, frames.count - 1))
        return Figures(changedBytesPerTick: Double(changed) / ticks, floorBytesPerTick: Double(floor) / ticks,
                       oneWindowBytesPerTick: Double(window) / ticks)
    }

    static func describe(_ frames: [Bitmap]) -> String {
        let f = figures(frames)
        return "changed RAM bytes per tick \(Report.number(f.changedBytesPerTick)); floor (changed + 1 control byte) "
            + "\(Report.number(f.floorBytesPerTick)); with one 7-byte window command \(Report.number(f.oneWindowBytesPerTick))"
    }
}
