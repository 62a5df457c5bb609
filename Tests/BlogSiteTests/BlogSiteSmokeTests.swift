import XCTest
@testable import BlogSite

final class BlogSiteSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
