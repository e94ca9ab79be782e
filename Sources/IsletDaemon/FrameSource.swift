import IsletParts
import IsletFrame
import IsletCore
import IsletRender

/// The seam to the renderer: the daemon draws through this protocol only.
public protocol FrameRenderer {
    func render(_ scene: Scene, options: RenderOptions, into frame: inout Bitmap)
}

/// IsletRender's renderer (fonts, bidi, localized labels) draws scenes itself.
extension Renderer: FrameRenderer {}

/// The burn-in pixel shift on the daemon's timeline: the offset now, and when it next moves.
public struct PixelShiftSchedule: Sendable, Hashable {
    public var periodMinutes: Int
    public init(periodMinutes: Int) { self.periodMinutes = periodMinutes }

    var period: Duration { .seconds(periodMinutes * 60) }

    public func offset(at now: Instant) -> (dx: Int, dy: Int) {
        guard periodMinutes > 0 else { return (0, 0) }
        return PixelShift.offset(at: now, every: period, amplitude: 1)
    }

    public func nextChange(after now: Instant) -> Instant? {
        guard periodMinutes > 0 else { return nil }
        let p = period.wholeMilliseconds
        return Instant(milliseconds: (now.milliseconds / p + 1) * p)
    }
}
