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

    /// `appendShort` stores sixteen bytes where there is room: the first `n` must be the words'
    /// bytes, and nothing may be written past the capacity (lent storage between guard bytes,
    /// filled to every distance from its end).
    func testShortWordAppendsMatchAPlainCopyAndStayInside() {
        let source = (0..<16).map { UInt8(0x41 + $0) }
        let words = source.withUnsafeBufferPointer { (UnsafeRawPointer($0.baseAddress!).loadUnaligned(as: UInt64.self),
                                                       UnsafeRawPointer($0.baseAddress!).loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        let guardByte: UInt8 = 0xA5
        for n in 0..<16 {
            var masked = (UInt64(littleEndian: words.0), UInt64(littleEndian: words.1))
            if n < 8 { masked = (n == 0 ? 0 : masked.0 & (UInt64.max >> UInt64(64 - 8 * n)), 0) } else if n == 8 { masked.1 = 0 } else { masked.1 &= UInt64.max >> UInt64(128 - 8 * n) }
            for (already, spare) in (0..<5).flatMap({ a in (0...20).map { (a, $0) } }) {
                // `spare` bytes of room left after the append: the 16-byte store fits from 16 - n.
                let room = already + n + spare
                let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: room + 64)
                defer { memory.deallocate() }
                memory.initialize(repeating: guardByte)
                var out = OutputBuffer(lending: UnsafeMutableBufferPointer(rebasing: memory[32..<(32 + room)]))
                for k in 0..<already { out.append(UInt8(k)) }
                out.appendShort(masked, count: n)
                XCTAssertFalse(out.ownsMemory)
                XCTAssertEqual(Array(out.bytes), (0..<already).map { UInt8($0) } + source[..<n], "n \(n), spare \(spare)")
                XCTAssertEqual(Array(memory[0..<32]), [UInt8](repeating: guardByte, count: 32))
                XCTAssertEqual(Array(memory[(32 + room)...]), [UInt8](repeating: guardByte, count: 32))
                // Past the room left (for spare < 15): the buffer grows.
                let more = min(spare + 1, 15)
                out.appendShort((UInt64(littleEndian: words.0), UInt64(littleEndian: words.1)), count: more)
                XCTAssertEqual(Array(out.bytes.suffix(more)), Array(source[..<more]), "n \(n), spare \(spare)")
                XCTAssertEqual(out.count, room - spare + more)
                out.deallocate()
            }
        }
    }

    /// `{{n}}` writes an integer's digits itself (`appendDecimal`): the same text as `String(n)`.
    func testIntegersInterpolateAsTheirDescription() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "{{n}}|{{{n}}}", path: "t.mustache")])
        var values: [Int] = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.max - 1, Int.min + 1]
        var power = 1
        while power <= Int.max / 10 {
            power *= 10
            values += [power - 1, power, power + 1, -power + 1, -power, -power - 1]
        }
        var state: UInt64 = 11
        for _ in 0..<500 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Int(truncatingIfNeeded: state) >> Int(state % 64))
        }
        for value in values {
            XCTAssertEqual(try library.render("t", ["n": .int(value)]), "\(value)|\(value)")
            var out = OutputBuffer(capacity: 8)
            defer { out.deallocate() }
            appendDecimal(value, to: &out)
            XCTAssertEqual(Array(out.bytes), Array(String(value).utf8))
        }
    }
}
