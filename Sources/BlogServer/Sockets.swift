#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Socket calls whose spelling or flags differ between Linux and Darwin, in one place.

/// A TCP socket of `family` that is not inherited by child processes, or -1 (errno set).
func makeStreamSocket(_ family: Int32) -> Int32 {
    #if os(Linux) && !BLOG_PORTABLE
    return socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
    // No SOCK_CLOEXEC on Darwin: set the flag right after (no child is started in between).
    #if canImport(Glibc)
    let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(family, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return fd }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    #if canImport(Darwin)
    // Darwin has no MSG_NOSIGNAL: a write to a closed peer must not raise SIGPIPE.
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    return fd
    #endif
}

/// The `send` flags that keep a closed peer from raising SIGPIPE (a socket option on Darwin).
var noSignalFlags: Int32 {
    #if canImport(Glibc)
    Int32(MSG_NOSIGNAL)
    #else
    0
    #endif
}

/// bind(2), under a name no method shadows.
func bindSocket(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
    Glibc.bind(fd, address, length)
    #else
    Darwin.bind(fd, address, length)
    #endif
}
