import XCTest
@testable import BlogImport

final class BlogImportSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
