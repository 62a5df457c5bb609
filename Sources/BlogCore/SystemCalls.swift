#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The few POSIX calls whose Swift spelling differs between Glibc and Darwin, named once so that
// the rest of the code reads the same on Linux and macOS.

/// read(2), under a name no method shadows.
@inline(__always)
public func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(fd, buffer, count)
    #else
    Darwin.read(fd, buffer, count)
    #endif
}

/// write(2), under a name no method shadows.
@inline(__always)
public func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}

extension stat {
    /// The last modification time (`st_mtim` on Linux, `st_mtimespec` on Darwin).
    @inline(__always)
    public var modificationTime: timespec {
        #if canImport(Darwin)
        st_mtimespec
        #else
        st_mtim
        #endif
    }
}
