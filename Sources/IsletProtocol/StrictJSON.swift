import IsletFrame

/// A strict RFC 8259 reader for one request line: what a general decoder forgives (duplicate
/// keys, where the last one silently wins; trailing commas; nesting deep enough to exhaust the
/// stack) is an error here, with the byte offset, because a request that means two things must
/// not mean the one the daemon happened to pick.
public enum StrictJSON {
    public struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Objects and arrays nest at most this deep (a request is two levels).
    public static let maximumDepth = 32

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var p = Reader(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.fail("text after the JSON value") }
        return v
    }

    struct Reader {
        let bytes: [UInt8]
        var i = 0

        func fail(_ m: String) -> SyntaxError { SyntaxError(offset: i, message: m) }
        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
        }

        mutating func expect(_ word: String, _ v: JSONValue) throws(SyntaxError) -> JSONValue {
            for b in word.utf8 {
                guard peek == b else { throw fail("expected \(word)") }
                i += 1
            }
            return v
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard let b = peek else { throw fail("the value is missing") }
            switch b {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth <= StrictJSON.maximumDepth else { throw fail("nested deeper than \(StrictJSON.maximumDepth) levels") }
            i += 1
            var o: [String: JSONValue] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else {
                    throw fail(peek == UInt8(ascii: "}") ? "a trailing comma before }" : "expected a quoted key")
                }
                let at = i
                let key = try string()
                guard o[key] == nil else { throw SyntaxError(offset: at, message: "the key \"\(key)\" appears twice") }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw fail("expected : after a key") }
                i += 1
                skipSpace()
                o[key] = try value(depth: depth)
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: i += 1
                case UInt8(ascii: "}")?: i += 1; return .object(o)
                default: throw fail("expected , or }")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth <= StrictJSON.maximumDepth else { throw fail("nested deeper than \(StrictJSON.maximumDepth) levels") }
            i += 1
            var a: [JSONValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                skipSpace()
                if peek == UInt8(ascii: "]") { throw fail("a trailing comma before ]") }
                a.append(try value(depth: depth))
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: i += 1
                case UInt8(ascii: "]")?: i += 1; return .array(a)
                default: throw fail("expected , or ]")
                }
            }
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard let d = Hex.digit(bytes[i]) else { throw fail("a \\u escape needs four hex digits") }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        mutating func string() throws(SyntaxError) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard let b = peek else { throw fail("the string has no closing quote") }
                switch b {
                case UInt8(ascii: "\""):
                    i += 1
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("the string is not UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    i += 1
                    guard let e = peek else { throw fail("the string ends inside an escape") }
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            // A high surrogate must be followed by \u and a low one (RFC 8259 §7).
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                                throw fail("a lone surrogate in a \\u escape")
                            }
                            i += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate in a \\u escape") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw fail("a lone surrogate in a \\u escape")
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw fail("an invalid \\u escape") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: throw fail("an unknown escape")
                    }
                case 0x00..<0x20: throw fail("a control character inside a string (escape it)")
                default:
                    out.append(b)
                    i += 1
                }
            }
        }

        mutating func number() throws(SyntaxError) -> Double {
            let start = i
            if peek == UInt8(ascii: "-") { i += 1 }
            func digits(_ r: inout Reader) -> Int {
                var n = 0
                while let b = r.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { r.i += 1; n += 1 }
                return n
            }
            if peek == UInt8(ascii: "0") {
                i += 1
                if let b = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { throw fail("a number with a leading zero") }
            } else if digits(&self) == 0 { throw fail("a number needs digits") }
            if peek == UInt8(ascii: ".") {
                i += 1
                guard digits(&self) > 0 else { throw fail("a number needs digits after the point") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard digits(&self) > 0 else { throw fail("a number needs digits in its exponent") }
            }
            // The grammar above is Double's; a value too large for it becomes ±infinity, which
            // the request's own checks name as out of range.
            guard let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else { throw fail("an invalid number") }
            return d
        }
    }
}

extension StrictJSON {
    /// A number as people write it: whole numbers without ".0" (error messages, config echoes).
    package static func plain(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? "\(Int(d))" : "\(d)" }
}
