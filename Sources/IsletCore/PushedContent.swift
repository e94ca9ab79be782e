/// What a source pushes for an activity it owns (kind `until`: the washing machine's end, the
/// next train): the instant it ends at, how far along it is, a few words of status. Each field
/// is optional; the source sends what it knows (ActivityKit's content state, pushed).
public struct PushedContent: Hashable, Sendable {
    /// The instant the source says it ends; nil: the source gives progress only.
    public var endsAt: Instant?
    /// 0 to 1.
    public var progress: Double?
    /// A few words ("Rinsing").
    public var text: String?

    public init(endsAt: Instant? = nil, progress: Double? = nil, text: String? = nil) {
        self.endsAt = endsAt
        self.progress = progress
        self.text = text
    }

    /// A status text's bound: a few words fit one row of a 128 px panel.
    public static let maximumTextLength = 32
    /// And in UTF-8 (`TextRule`): 128 bytes.
    public static let maximumTextBytes = TextRule.maximumBytes(characters: maximumTextLength)

    /// The first rule broken, with the request's key, or nil.
    public func violation() -> InvariantViolation? {
        if let t = endsAt, !Instant.validRange.contains(t) {
            return InvariantViolation(field: "ends_at", "\(t) is outside the instants a timer can hold (\(Instant.validRangeRule))")
        }
        if let p = progress, !(p.isFinite && (0...1).contains(p)) {
            return InvariantViolation(field: "progress", "progress must be a number from 0 to 1 (got \(p))")
        }
        if let s = text {
            if s.isEmpty { return InvariantViolation(field: "text", "text must not be empty (send null to clear it)") }
            if let v = TextRule.violation(s, field: "text", maximum: Self.maximumTextLength) { return v }
        }
        return nil
    }
}

/// A change a source pushes to its activity (`update`): each field is kept, set or cleared.
public struct ContentUpdate: Hashable, Sendable {
    public enum Field<Value: Hashable & Sendable>: Hashable, Sendable {
        case keep
        case set(Value)
        case clear

        func applied(to old: Value?) -> Value? {
            switch self {
            case .keep: old
            case .set(let v): v
            case .clear: nil
            }
        }
    }

    public var endsAt: Field<Instant>
    public var progress: Field<Double>
    public var text: Field<String>
    /// Shows the expanded presentation for a while and sounds the chime once (ActivityKit's
    /// alert configuration).
    public var alert: Bool

    public init(endsAt: Field<Instant> = .keep, progress: Field<Double> = .keep, text: Field<String> = .keep, alert: Bool = false) {
        self.endsAt = endsAt
        self.progress = progress
        self.text = text
        self.alert = alert
    }

    /// The content after this update.
    public func applied(to c: PushedContent) -> PushedContent {
        PushedContent(endsAt: endsAt.applied(to: c.endsAt), progress: progress.applied(to: c.progress),
                      text: text.applied(to: c.text))
    }

    /// Whether the update changes no field (an alert alone is still a change).
    public var changesNothing: Bool { endsAt == .keep && progress == .keep && text == .keep && !alert }
}

/// The icon an activity shows: one of the built-in set by name, or a small 1-bit image the
/// request carries (base64 of a PBM or PNG). The core checks only the form; the daemon checks
/// the name and decodes the image with the renderer before a start is taken.
public enum ActivityIcon: Hashable, Sendable {
    case named(String)
    case custom(base64: String)

    /// Bounds of the form, checked before anything decodes it.
    public static let maximumNameLength = 32
    public static let maximumCustomBase64Length = 2816

    public func violation() -> InvariantViolation? {
        switch self {
        case .named(let n):
            guard !n.isEmpty, n.utf8.count <= Self.maximumNameLength,
                  n.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") }) else {
                return InvariantViolation(field: "icon", "an icon name is 1 to \(Self.maximumNameLength) characters of a-z, 0-9 and _ (got \"\(TextRule.excerpt(n, bytes: 40))\")")
            }
        case .custom(let b):
            guard !b.isEmpty, b.utf8.count <= Self.maximumCustomBase64Length else {
                return InvariantViolation(field: "icon_data", "a custom icon is 1 to \(Self.maximumCustomBase64Length) characters of base64 (got \(b.utf8.count))")
            }
            guard b.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }) else {
                return InvariantViolation(field: "icon_data", "a custom icon is base64 (A-Z, a-z, 0-9, +, /, =)")
            }
        }
        return nil
    }
}

/// The rule every short text a person sees follows (titles, status texts). A character (an
/// extended grapheme cluster) can carry any number of scalars, so a bound in characters alone
/// lets one letter with thousands of combining marks through: the text is bounded in UTF-8
/// bytes too, and each character in scalars.
public enum TextRule {
    /// The longest UTF-8 scalar: a text of `n` characters may take `n` × 4 bytes, so any text
    /// of one scalar per character fits in full; one of clusters fits in fewer characters.
    public static let bytesPerCharacter = 4
    /// Scalars in one character: the longest emoji sequences (a kiss with two skin tones: 10;
    /// a family of four: 7; a subdivision flag: 7), Indic conjuncts and stacked Vietnamese
    /// marks fit; the panel's fonts draw no more marks over one letter than that.
    public static let maximumScalarsPerCharacter = 16

    public static func maximumBytes(characters: Int) -> Int { characters * bytesPerCharacter }

    /// At most `bytes` of `s` (whole scalars) for an error message: a refused text's echo is
    /// no longer than the bound, however many marks its characters carry.
    public static func excerpt(_ s: String, bytes: Int) -> String {
        guard s.utf8.count > bytes else { return s }
        var out = String.UnicodeScalarView()
        var n = 0
        for c in s.unicodeScalars {
            n += UTF8.width(c)
            if n > bytes { break }
            out.append(c)
        }
        return String(out) + "…"
    }

    public static func violation(_ s: String, field: String, maximum: Int) -> InvariantViolation? {
        // Bytes first: counting characters walks the whole text, and the byte count is at hand.
        let bytes = s.utf8.count, maximumBytes = maximumBytes(characters: maximum)
        if bytes > maximumBytes {
            return InvariantViolation(field: field, "\(field) is longer than \(maximumBytes) bytes of UTF-8 (got \(bytes)); at most \(maximum) characters and \(maximumBytes) bytes")
        }
        if s.count > maximum { return InvariantViolation(field: field, "\(field) is longer than \(maximum) characters (got \(s.count))") }
        if let c = s.first(where: { $0.unicodeScalars.count > maximumScalarsPerCharacter }) {
            return InvariantViolation(field: field, "\(field) has a character of \(c.unicodeScalars.count) Unicode scalars (a letter and its combining marks); at most \(maximumScalarsPerCharacter) in one character")
        }
        if let c = s.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(c.value, radix: 16, uppercase: true)
            return InvariantViolation(field: field, "\(field) must not contain control characters (got U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))")
        }
        return nil
    }
}

extension PushedContent {
    /// Reads the three fields from a keyed container (the attributes' and the content's JSON
    /// spell them alike).
    static func decode<K: CodingKey>(from c: KeyedDecodingContainer<K>, endsAt: K, progress: K, text: K) throws -> PushedContent {
        var p = PushedContent()
        if let s = try c.decodeIfPresent(String.self, forKey: endsAt) {
            guard let t = ISO8601.parse(s) else {
                throw DecodingError.dataCorruptedError(forKey: endsAt, in: c, debugDescription: "\"\(s)\" is not an RFC 3339 instant")
            }
            p.endsAt = t
        }
        p.progress = try c.decodeIfPresent(Double.self, forKey: progress)
        p.text = try c.decodeIfPresent(String.self, forKey: text)
        return p
    }

    func encode<K: CodingKey>(into c: inout KeyedEncodingContainer<K>, endsAt: K, progress: K, text: K) throws {
        try c.encodeIfPresent(self.endsAt.map(ISO8601.format), forKey: endsAt)
        try c.encodeIfPresent(self.progress, forKey: progress)
        try c.encodeIfPresent(self.text, forKey: text)
    }
}
