import XCTest
@testable import BlogContent

final class BlogContentSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
