import IsletFrame

/// The three sizes every icon is drawn for. Each is its own pixel art, not a scaled copy:
/// a 1-pixel line doubled reads heavier than one drawn for the size, and halved it vanishes.
public enum IconSize: Int, Sendable, CaseIterable, Comparable {
    /// Short panels (96×16, where 16 px would touch both edges) and icons squeezed beside the time.
    case small = 12
    /// The compact and minimal presentations on pill-sized panels (128×32, 64×32, 72×40, …).
    case medium = 16
    /// Panels 48 px and taller (128×64 compact, minimal) and the tall lock screen.
    case large = 32

    /// Width and height in pixels.
    public var pixels: Int { rawValue }

    public static func < (a: IconSize, b: IconSize) -> Bool { a.rawValue < b.rawValue }

    /// "12×12, 16×16 or 32×32", for messages.
    public static var listed: String { "12×12, 16×16 or 32×32" }
}

/// The built-in icons. The raw value is the name on the wire (Home Assistant's `icon` field).
public enum Icon: String, Sendable, CaseIterable {
    // The timer's states.
    case meditation, stopwatch, pause, cycleEnd = "cycle_end", complete
    // Home: appliances, arrivals, calls.
    case laundry, dishwasher, oven, kettle
    case package, car, train, bus
    case bell, phone, door, music

    /// The icon with this wire name: snake_case, lower case, exactly as listed in `names`.
    public init(name: String) throws(IconNameError) {
        guard let icon = Icon(rawValue: name) else { throw IconNameError(name: name) }
        self = icon
    }

    /// Every wire name, in the order of `allCases`.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// The art at `size`, `#` lit: kept as text so a reviewer sees the picture in the source.
    public func art(_ size: IconSize) -> [String] {
        let a = drawing
        switch size {
        case .small: return a.small
        case .medium: return a.medium
        case .large: return a.large
        }
    }

    /// The icon's masks at every size, computed once for all icons.
    public var image: IconImage { Self.images[Self.allCases.firstIndex(of: self) ?? 0] }

    private static let images: [IconImage] = allCases.map { icon in
        let a = icon.drawing
        return IconImage(small: IconImage.masks(a.small), medium: IconImage.masks(a.medium), large: IconImage.masks(a.large))
    }

    private var drawing: IconArt {
        switch self {
        case .meditation: Self.meditationArt
        case .stopwatch: Self.stopwatchArt
        case .pause: Self.pauseArt
        case .cycleEnd: Self.cycleEndArt
        case .complete: Self.completeArt
        case .laundry: Self.laundryArt
        case .dishwasher: Self.dishwasherArt
        case .oven: Self.ovenArt
        case .kettle: Self.kettleArt
        case .package: Self.packageArt
        case .car: Self.carArt
        case .train: Self.trainArt
        case .bus: Self.busArt
        case .bell: Self.bellArt
        case .phone: Self.phoneArt
        case .door: Self.doorArt
        case .music: Self.musicArt
        }
    }
}

/// An icon name that is not one of the built-in icons. Its message lists the valid names, so the
/// person who wrote the automation sees the fix in the rejection.
public struct IconNameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name as received (hostile: shown escaped and cut to 40 characters).
    public let name: String

    public var description: String {
        let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
        return "unknown icon \(Quoted.literal(shown, .json)): the icons are \(Icon.names.joined(separator: ", "))"
    }
}

/// One icon's art as text rows, per size.
struct IconArt {
    let small: [String]
    let medium: [String]
    let large: [String]
}
