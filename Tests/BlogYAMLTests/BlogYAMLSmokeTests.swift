import XCTest
@testable import BlogYAML

final class BlogYAMLSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
