import XCTest
@testable import BlogSearch

final class BlogSearchSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
