import IsletParts
import IsletProtocol

/// The panel as the page shows it: the picture from the last turn, its `frame` event (made once
/// per version, sent to every stream and to each new one), and `frame.png` encoded once per
/// version and scale (at most 16 kept, dropped whole when the version moves on), so a client
/// asking in a loop costs a copy, not an encode.
struct WebFrames {
    private(set) var picture: (any PanelPicture)?
    private var eventVersion = -1
    private(set) var event: [UInt8]?
    private var pngVersion = -1
    private var pngs: [Int: [UInt8]] = [:]

    /// Takes the turn's picture; the new `frame` event when its version moved on.
    mutating func take(_ p: any PanelPicture) -> [UInt8]? {
        picture = p
        guard p.version != eventVersion else { return nil }
        eventVersion = p.version
        event = p.image.map { WebPage.event("frame", JSONLines.encode($0)) }
        return event
    }

    /// The picture as PNG at `scale` (1…16), from the cache when this version was encoded at it.
    mutating func png(scale: Int) -> [UInt8]? {
        guard let picture else { return nil }
        if pngVersion != picture.version {
            pngVersion = picture.version
            pngs = [:]
        }
        if let kept = pngs[scale] { return kept }
        guard let made = picture.png(scale: scale) else { return nil }
        pngs[scale] = made
        return made
    }
}
