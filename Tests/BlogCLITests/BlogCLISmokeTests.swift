import XCTest
@testable import BlogCLI

final class BlogCLISmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
