import XCTest
@testable import BlogMustache

final class BlogMustacheSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
