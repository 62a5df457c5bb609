import XCTest
@testable import BlogMarkdown

final class BlogMarkdownSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
