import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer

/// A parsed HTTP response from a raw socket exchange.
struct RawResponse {
    var status: Int
    var headers: [String: String] // lowercased names
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Connects a blocking TCP socket to 127.0.0.1:port with send/receive timeouts.
func connectLoopback(port: Int, timeout: Double = 5) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if result != 0 { close(fd); return -1 }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent <= 0 { return false }
        offset += sent
    }
    return true
}

/// Reads until the peer closes (or the receive timeout hits).
func readToEnd(_ fd: Int32) -> [UInt8] {
    var all: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        all.append(contentsOf: buffer[0..<count])
    }
    return all
}

func parseResponse(_ bytes: [UInt8]) -> RawResponse? {
    guard let end = findSubsequence(bytes, Array("\r\n\r\n".utf8)) else { return nil }
    let head = String(decoding: bytes[0..<end], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    var headers: [String: String] = [:]
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return RawResponse(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
}

func findSubsequence(_ haystack: [UInt8], _ needle: [UInt8], from start: Int = 0) -> Int? {
    guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
    outer: for index in start...(haystack.count - needle.count) {
        for offset in 0..<needle.count where haystack[index + offset] != needle[offset] { continue outer }
        return index
    }
    return nil
}

/// Sends raw request bytes (the caller writes the whole request) and reads the response to EOF.
func rawExchange(port: Int, _ request: [UInt8]) -> RawResponse? {
    let fd = connectLoopback(port: port)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard sendAll(fd, request) else { return nil }
    return parseResponse(readToEnd(fd))
}

/// A one-shot `Connection: close` request with a raw (unnormalised) target.
func httpRequest(port: Int, _ target: String, method: String = "GET", host: String? = nil,
                 headers: [String] = []) -> RawResponse? {
    var text = "\(method) \(target) HTTP/1.1\r\n"
    text += "Host: \(host ?? "127.0.0.1:\(port)")\r\n"
    for header in headers { text += header + "\r\n" }
    text += "Connection: close\r\n\r\n"
    return rawExchange(port: port, Array(text.utf8))
}

/// Reads server-sent events from `/__blog/events` (HTTP/1.1, chunked).
final class EventStreamClient {
    struct Event: Equatable { var name: String; var data: String }
    let fd: Int32
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private var headersDone = false
    private(set) var status = 0
    private(set) var contentType = ""

    init?(port: Int, host: String? = nil) {
        fd = connectLoopback(port: port, timeout: 0.2)
        guard fd >= 0 else { return nil }
        let request = "GET /__blog/events HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nAccept: text/event-stream\r\n\r\n"
        guard sendAll(fd, Array(request.utf8)) else { close(fd); return nil }
    }

    deinit { close(fd) }

    /// The next named event (comments and `retry:` skipped), or nil after `timeout` seconds.
    func next(timeout: Double = 5) -> Event? {
        let deadline = monotonic() + timeout
        while true {
            if let event = takeEvent() { return event }
            if monotonic() > deadline { return nil }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            if count > 0 {
                raw.append(contentsOf: buffer[0..<count])
                decode()
            }
        }
    }

    private func decode() {
        if !headersDone {
            guard let end = findSubsequence(raw, Array("\r\n\r\n".utf8)) else { return }
            let response = parseResponse(Array(raw[0..<(end + 4)]))
            status = response?.status ?? 0
            contentType = response?.header("content-type") ?? ""
            raw.removeFirst(end + 4)
            headersDone = true
        }
        // chunked: size CRLF data CRLF
        while let lineEnd = findSubsequence(raw, [13, 10]) {
            let sizeText = String(decoding: raw[0..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
            guard raw.count >= lineEnd + 2 + size + 2 else { return }
            body.append(contentsOf: raw[(lineEnd + 2)..<(lineEnd + 2 + size)])
            raw.removeFirst(lineEnd + 2 + size + 2)
        }
    }

    private func takeEvent() -> Event? {
        while let end = findSubsequence(body, [10, 10]) {
            let block = String(decoding: body[0..<end], as: UTF8.self)
            body.removeFirst(end + 2)
            var name = "message"
            var data: [String] = []
            var sawData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") {
                    sawData = true
                    data.append(String(line.dropFirst(5).drop(while: { $0 == " " })))
                }
            }
            if sawData { return Event(name: name, data: data.joined(separator: "\n")) }
        }
        return nil
    }
}

/// Polls `condition` until true or the timeout passes.
func waitUntil(_ timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = monotonic() + timeout
    while monotonic() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
