import XCTest
@testable import BlogCore

final class BlogCoreSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
