#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, listening TCP socket made by us (not by libmicrohttpd) so that a taken port or a bad
/// address becomes a clear message, and port 0 can be read back.
struct ListenSocket {
    let fd: Int32
    let port: Int
    let isIPv6: Bool
    let isLoopback: Bool
    let isWildcard: Bool
    /// The bind address as written in URLs (`127.0.0.1`, `[::1]`).
    let hostForURL: String

    static func open(bind: String, port: Int, backlog: Int32 = 1024) throws -> ListenSocket {
        guard (0...65535).contains(port) else { throw ServerError("invalid port \(port) (use 0–65535)") }
        var address = bind.trimmingCharacters(in: " ")
        if address.lowercased() == "localhost" { address = "127.0.0.1" }
        if address.hasPrefix("[") && address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }

        var v4 = in_addr()
        var v6 = in6_addr()
        let fd: Int32
        let isIPv6: Bool
        let isLoopback: Bool
        let isWildcard: Bool
        var bindResult: Int32
        if inet_pton(AF_INET, address, &v4) == 1 {
            isIPv6 = false
            let hostOrder = UInt32(bigEndian: v4.s_addr)
            isLoopback = hostOrder >> 24 == 127
            isWildcard = hostOrder == 0
            fd = makeStreamSocket(AF_INET)
            guard fd >= 0 else { throw ServerError("cannot create a socket: \(errnoText())") }
            setReuseAddress(fd)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            sin.sin_addr = v4
            bindResult = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bindSocket(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else if inet_pton(AF_INET6, address, &v6) == 1 {
            isIPv6 = true
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            isLoopback = bytes == [UInt8](repeating: 0, count: 15) + [1]
            isWildcard = bytes.allSatisfy { $0 == 0 }
            fd = makeStreamSocket(AF_INET6)
            guard fd >= 0 else { throw ServerError("cannot create an IPv6 socket: \(errnoText())") }
            setReuseAddress(fd)
            var only: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &only, socklen_t(MemoryLayout<Int32>.size))
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            sin6.sin6_addr = v6
            bindResult = withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bindSocket(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            throw ServerError("invalid bind address '\(bind)' (use an IP address such as 127.0.0.1 or ::1)")
        }

        if bindResult != 0 {
            let code = errno
            close(fd)
            switch code {
            case EADDRINUSE: throw ServerError("port \(port) is already in use (try --port N)", isPortInUse: true)
            case EACCES: throw ServerError("permission denied to use port \(port) (ports below 1024 need privileges; try --port N)")
            case EADDRNOTAVAIL: throw ServerError("address \(bind) is not available on this machine")
            default: throw ServerError("cannot bind \(bind):\(port): \(String(cString: strerror(code)))")
            }
        }
        if listen(fd, backlog) != 0 {
            let message = errnoText()
            close(fd)
            throw ServerError("cannot listen on \(bind):\(port): \(message)")
        }

        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actualPort: Int = withUnsafePointer(to: &storage) { pointer in
            if isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return ListenSocket(fd: fd, port: actualPort, isIPv6: isIPv6, isLoopback: isLoopback,
                            isWildcard: isWildcard, hostForURL: isIPv6 ? "[\(address)]" : address)
    }

    private static func setReuseAddress(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}

func errnoText() -> String { String(cString: strerror(errno)) }

extension String {
    func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}

/// Addresses of this machine's interfaces (for the Host allowlist when bound to a wildcard address).
func localInterfaceAddresses() -> [String] {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return [] }
    defer { freeifaddrs(list) }
    var result: [String] = []
    var cursor: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = cursor {
        defer { cursor = entry.pointee.ifa_next }
        guard let addr = entry.pointee.ifa_addr else { continue }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(addr.pointee.sa_family) {
        case AF_INET:
            addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var a = sin.pointee.sin_addr
                if inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count)) != nil {
                    result.append(String(cString: buffer))
                }
            }
        case AF_INET6:
            addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                var a = sin6.pointee.sin6_addr
                if inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count)) != nil {
                    result.append(String(cString: buffer))
                }
            }
        default:
            break
        }
    }
    return result
}
