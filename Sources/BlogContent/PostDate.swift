import Foundation

/// A moment in time as written in front matter: seconds since 1970 (UTC) plus the UTC offset
/// it should be shown in.
public struct PostDate: Sendable, Hashable, Comparable {
    public var epochSeconds: Int64
    /// Offset from UTC in seconds used for display (the written offset, else the site's time zone).
    public var offsetSeconds: Int

    public init(epochSeconds: Int64, offsetSeconds: Int) {
        self.epochSeconds = epochSeconds
        self.offsetSeconds = offsetSeconds
    }

    public static func < (lhs: PostDate, rhs: PostDate) -> Bool {
        lhs.epochSeconds < rhs.epochSeconds
    }

    /// The civil date and time at `offsetSeconds`.
    public var civil: CivilDateTime {
        CivilDateTime(epochSeconds: epochSeconds + Int64(offsetSeconds))
    }

    /// The same moment shown in another zone.
    public func inZone(_ zone: TimeZone) -> PostDate {
        PostDate(epochSeconds: epochSeconds, offsetSeconds: zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(epochSeconds))))
    }

    /// ISO 8601 with offset: `2020-02-06T10:00:00+09:00`.
    public var iso8601: String {
        let c = civil
        let absolute = abs(offsetSeconds)
        guard c.year >= 0 && c.year <= 9999 && absolute < 360_000 else { return iso8601Padded(c) }
        // Fixed-width fields written straight into the String's storage: this runs several times
        // per post per build, and an array of digits turned into a String is far dearer.
        return String(unsafeUninitializedCapacity: 25) { out in
            @inline(__always) func two(_ value: Int, at index: Int) {
                out[index] = 0x30 &+ UInt8(truncatingIfNeeded: value / 10)
                out[index &+ 1] = 0x30 &+ UInt8(truncatingIfNeeded: value % 10)
            }
            two(c.year / 100, at: 0); two(c.year % 100, at: 2); out[4] = UInt8(ascii: "-")
            two(c.month, at: 5); out[7] = UInt8(ascii: "-")
            two(c.day, at: 8); out[10] = UInt8(ascii: "T")
            two(c.hour, at: 11); out[13] = UInt8(ascii: ":")
            two(c.minute, at: 14); out[16] = UInt8(ascii: ":")
            two(c.second, at: 17)
            if offsetSeconds == 0 {
                out[19] = UInt8(ascii: "Z")
                return 20
            }
            out[19] = UInt8(ascii: offsetSeconds < 0 ? "-" : "+")
            two(absolute / 3600, at: 20); out[22] = UInt8(ascii: ":")
            two((absolute % 3600) / 60, at: 23)
            return 25
        }
    }

    /// `iso8601` for years outside 0–9999 and offsets of 100 hours or more: each field padded
    /// to its width, longer when it does not fit.
    private func iso8601Padded(_ c: CivilDateTime) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        func digits(_ value: Int, _ width: Int) {
            if value < 0 || value >= 10_000 || width > 4 {
                let text = String(value)
                for _ in 0..<max(0, width - text.utf8.count) { bytes.append(UInt8(ascii: "0")) }
                bytes.append(contentsOf: text.utf8)
                return
            }
            var divisor = 1
            var length = 1
            while divisor * 10 <= value { divisor *= 10; length += 1 }
            for _ in 0..<max(0, width - length) { bytes.append(UInt8(ascii: "0")) }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(c.year, 4); bytes.append(UInt8(ascii: "-"))
        digits(c.month, 2); bytes.append(UInt8(ascii: "-"))
        digits(c.day, 2); bytes.append(UInt8(ascii: "T"))
        digits(c.hour, 2); bytes.append(UInt8(ascii: ":"))
        digits(c.minute, 2); bytes.append(UInt8(ascii: ":"))
        digits(c.second, 2)
        if offsetSeconds == 0 {
            bytes.append(UInt8(ascii: "Z"))
        } else {
            let absolute = abs(offsetSeconds)
            bytes.append(UInt8(ascii: offsetSeconds < 0 ? "-" : "+"))
            digits(absolute / 3600, 2); bytes.append(UInt8(ascii: ":"))
            digits((absolute % 3600) / 60, 2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `value` (0–9999, no padding) and the three bytes of its unit at `index`; the end.
    @inline(__always)
    private static func writeField(_ value: Int, _ u0: UInt8, _ u1: UInt8, _ u2: UInt8, into out: UnsafeMutableBufferPointer<UInt8>, at index: Int) -> Int {
        var length = index
        if value >= 1000 { out[length] = 0x30 &+ UInt8(truncatingIfNeeded: value / 1000); length &+= 1 }
        if value >= 100 { out[length] = 0x30 &+ UInt8(truncatingIfNeeded: value / 100 % 10); length &+= 1 }
        if value >= 10 { out[length] = 0x30 &+ UInt8(truncatingIfNeeded: value / 10 % 10); length &+= 1 }
        out[length] = 0x30 &+ UInt8(truncatingIfNeeded: value % 10)
        out[length &+ 1] = u0
        out[length &+ 2] = u1
        out[length &+ 3] = u2
        return length &+ 4
    }

    /// `2020年2月6日` for Japanese, `February 6, 2020` otherwise.
    public func display(language: String) -> String {
        let c = civil
        if language.hasPrefix("ja") || language.hasPrefix("zh") {
            guard c.year >= 0 && c.year <= 9999 else { return "\(c.year)年\(c.month)月\(c.day)日" }
            // Written into the String's storage, since interpolation is far dearer and every post
            // page shows a date.
            return String(unsafeUninitializedCapacity: 19) { out in
                var length = PostDate.writeField(c.year, 0xE5, 0xB9, 0xB4, into: out, at: 0)  // 年
                length = PostDate.writeField(c.month, 0xE6, 0x9C, 0x88, into: out, at: length)  // 月
                length = PostDate.writeField(c.day, 0xE6, 0x97, 0xA5, into: out, at: length)  // 日
                return length
            }
        }
        if language.hasPrefix("ko") {
            return "\(c.year)년 \(c.month)월 \(c.day)일"
        }
        return "\(CivilDateTime.monthNames[c.month - 1]) \(c.day), \(c.year)"
    }
}


/// A proleptic Gregorian date and time without a zone.
public struct CivilDateTime: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"]

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// From seconds since 1970 (already shifted to local time).
    public init(epochSeconds: Int64) {
        var days = epochSeconds / 86_400
        var rest = epochSeconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        // Days to civil (Howard Hinnant's algorithm, public domain description).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.init(year: Int(y), month: Int(m), day: Int(d), hour: Int(rest / 3600), minute: Int(rest % 3600 / 60), second: Int(rest % 60))
    }

    /// Seconds since 1970 for this civil time read as UTC.
    public var epochSeconds: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// Parses ISO 8601 dates as people write them in front matter.
public enum DateParser {
    public struct Failure: Error, Equatable {
        public var message: String
    }

    /// Accepts `2020-02-06`, `2020-02-06T10:00`, `2020-02-06 10:00:00`, fractional seconds,
    /// and `Z`, `+09:00`, `+0900`, `+09` offsets. Without an offset, `zone` gives it.
    public static func parse(_ text: String, zone: TimeZone) throws -> PostDate {
        let bytes = Array(text.trimmingBlanks.utf8)
        var index = 0
        func digits(_ count: Int, _ what: String) throws -> Int {
            guard index + count <= bytes.count else { throw Failure(message: "expected \(what) in '\(text)'") }
            var value = 0
            for i in index..<(index + count) {
                let b = bytes[i]
                guard b >= 0x30 && b <= 0x39 else { throw Failure(message: "expected \(what) in '\(text)'") }
                value = value * 10 + Int(b - 0x30)
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8, _ what: String) throws {
            guard index < bytes.count, bytes[index] == byte else { throw Failure(message: "expected \(what) in '\(text)'") }
            index += 1
        }
        guard !bytes.isEmpty else { throw Failure(message: "the date is empty") }
        let year = try digits(4, "a four-digit year")
        try expect(UInt8(ascii: "-"), "'-' after the year")
        let month = try digits(2, "a two-digit month")
        try expect(UInt8(ascii: "-"), "'-' after the month")
        let day = try digits(2, "a two-digit day")
        guard (1...12).contains(month) else { throw Failure(message: "month \(month) is out of range in '\(text)'") }
        guard day >= 1 && day <= CivilDateTime.daysInMonth(year, month) else {
            throw Failure(message: "day \(day) is out of range in '\(text)'")
        }
        var hour = 0, minute = 0, second = 0
        var offset: Int?
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "t") else {
                throw Failure(message: "unexpected text after the date in '\(text)'")
            }
            index += 1
            hour = try digits(2, "a two-digit hour")
            try expect(UInt8(ascii: ":"), "':' after the hour")
            minute = try digits(2, "two-digit minutes")
            if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
                index += 1
                second = try digits(2, "two-digit seconds")
                if index < bytes.count && (bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",")) {
                    index += 1
                    let start = index
                    while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
                    if index == start { throw Failure(message: "expected fractional seconds in '\(text)'") }
                }
            }
            guard hour <= 23, minute <= 59, second <= 60 else {
                throw Failure(message: "time of day is out of range in '\(text)'")
            }
            while index < bytes.count && bytes[index] == UInt8(ascii: " ") { index += 1 }
            if index < bytes.count {
                let sign = bytes[index]
                if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                    index += 1
                    offset = 0
                } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                    index += 1
                    let oh = try digits(2, "a two-digit offset hour")
                    var om = 0
                    if index < bytes.count {
                        if bytes[index] == UInt8(ascii: ":") { index += 1 }
                        om = try digits(2, "two-digit offset minutes")
                    }
                    guard oh <= 18, om <= 59 else { throw Failure(message: "offset is out of range in '\(text)'") }
                    offset = (oh * 3600 + om * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
                } else {
                    throw Failure(message: "unexpected text after the time in '\(text)'")
                }
            }
        }
        guard index == bytes.count else { throw Failure(message: "unexpected text at the end of '\(text)'") }
        let civil = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let local = civil.epochSeconds
        if let offset {
            return PostDate(epochSeconds: local - Int64(offset), offsetSeconds: offset)
        }
        // No offset written: the site's zone at that moment.
        var zoneOffset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local)))
        zoneOffset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - Int64(zoneOffset))))
        return PostDate(epochSeconds: local - Int64(zoneOffset), offsetSeconds: zoneOffset)
    }
}
