import XCTest
@testable import BlogMustache

/// `OutputBuffer.append` copies short runs itself (`copyShort`): every length and offset must
/// give the bytes a plain copy gives, and no byte outside the run may be written.
final class OutputBufferTests: XCTestCase {
    func testShortCopiesMatchAPlainCopyAndStayInside() {
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let guardByte: UInt8 = 0xA5
        for n in 0...40 {
            for sourceOffset in 0..<(64 - n) where sourceOffset < 8 || sourceOffset > 64 - n - 8 {
                for already in 0..<9 {
                    // Lent storage of exactly `already + n` bytes, between guard bytes.
                    let room = already + n
                    let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: room + 64)
                    defer { memory.deallocate() }
                    memory.initialize(repeating: guardByte)
                    let lent = UnsafeMutableBufferPointer(rebasing: memory[32..<(32 + room)])
                    var out = OutputBuffer(lending: lent)
                    for k in 0..<already { out.append(UInt8(k)) }
                    source.withUnsafeBufferPointer { bytes in
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sourceOffset..<(sourceOffset + n)]))
                    }
                    XCTAssertFalse(out.ownsMemory)
                    let expected = (0..<already).map { UInt8($0) } + source[sourceOffset..<(sourceOffset + n)]
                    XCTAssertEqual(Array(out.bytes), expected, "n \(n), offset \(sourceOffset), after \(already)")
                    XCTAssertEqual(Array(memory[0..<32]), [UInt8](repeating: guardByte, count: 32))
                    XCTAssertEqual(Array(memory[(32 + room)...]), [UInt8](repeating: guardByte, count: 32))
                }
            }
        }
    }
}
