/// The request target, checked and decoded exactly once.
struct RequestPath: Equatable {
    /// Decoded segments, none empty, none starting with `.`.
    var segments: [String]
    /// The path ended with `/` (or was `/`).
    var trailingSlash: Bool

    enum Rejection: Error, Equatable {
        /// Malformed or dangerous: bad escapes, encoded separators/dots, NUL, backslash, `..`.
        case badRequest
        /// Well-formed but never served (dotfiles, empty segments).
        case notFound
    }

    /// Decodes a raw (still percent-encoded) request path.
    /// Rejects anything that could step outside the site or that only an attacker would send:
    /// `%2f`, `%5c`, `%2e`, `%00`, `%25` (double encoding), literal `\`, control bytes, invalid UTF-8,
    /// `.`/`..` segments, dotfiles and `//`.
    static func parse(_ raw: [UInt8]) throws -> RequestPath {
        guard raw.first == UInt8(ascii: "/") else { throw Rejection.badRequest }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.count,
                      let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else {
                    throw Rejection.badRequest
                }
                let value = high << 4 | low
                switch value {
                case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "."), UInt8(ascii: "%"), 0:
                    throw Rejection.badRequest
                default:
                    if value < 0x20 || value == 0x7F { throw Rejection.badRequest }
                }
                decoded.append(value)
                index += 3
                continue
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte == 0x7F { throw Rejection.badRequest }
            decoded.append(byte)
            index += 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw Rejection.badRequest }
        let trailingSlash = text.hasSuffix("/")
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if trailingSlash { parts.removeLast() }
        var segments: [String] = []
        var sawHidden = false
        for part in parts {
            if part == "." || part == ".." { throw Rejection.badRequest }
            if part.isEmpty || part.hasPrefix(".") { sawHidden = true }
            segments.append(part)
        }
        if sawHidden { throw Rejection.notFound }
        return RequestPath(segments: segments, trailingSlash: trailingSlash || segments.isEmpty)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// The `Host` header allowlist that protects the preview against DNS rebinding.
struct HostAllowlist {
    private var exact: Set<String>

    /// `names` are host names or addresses without port; IPv6 literals with or without brackets.
    init(extra names: [String]) {
        exact = ["localhost", "127.0.0.1", "[::1]"]
        for name in names {
            let lower = name.lowercased()
            if lower.isEmpty { continue }
            if lower.contains(":") && !lower.hasPrefix("[") {
                exact.insert("[" + lower + "]")
            } else {
                exact.insert(lower)
            }
        }
    }

    func allows(_ header: String?) -> Bool {
        guard let header, !header.isEmpty, header.utf8.count <= 255 else { return false }
        let host = header.lowercased()
        var name: Substring
        var port: Substring = ""
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[...close]
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = host.firstIndex(of: ":") {
            name = host[..<colon]
            port = host[host.index(after: colon)...]
        } else {
            name = host[...]
        }
        if host.contains(":") && !host.hasPrefix("[") && port.isEmpty { return false }
        if !port.isEmpty && (port.count > 5 || !port.allSatisfy { $0.isASCII && $0.isNumber }) { return false }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { return false }
        let allowedCharacters = name.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x2E || byte == 0x3A || byte == 0x5B || byte == 0x5D
        }
        guard allowedCharacters else { return false }
        let text = String(name)
        if exact.contains(text) { return true }
        return text.hasSuffix(".localhost")
    }
}
