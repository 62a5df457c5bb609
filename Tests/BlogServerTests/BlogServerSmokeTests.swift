import XCTest
@testable import BlogServer

final class BlogServerSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
