import BlogCore
import XCTest

final class HugePagesTests: XCTestCase {
    func testKernelModeIsTheBracketedWord() {
        XCTAssertEqual(HugePages.kernelMode("always [madvise] never\n"), "madvise")
        XCTAssertEqual(HugePages.kernelMode("[always] madvise never\n"), "always")
        XCTAssertEqual(HugePages.kernelMode("always madvise [never]"), "never")
        XCTAssertNil(HugePages.kernelMode("always madvise never"))
        XCTAssertNil(HugePages.kernelMode(""))
        XCTAssertNil(HugePages.kernelMode("[unterminated"))
    }

    func testAsksOnlyForWholeSiteCommandsTheUserLeftAloneInMadviseMode() {
        XCTAssertTrue(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: "madvise"))
        XCTAssertTrue(HugePages.shouldAsk(command: "serve", userSetting: nil, thpMode: "madvise"))
        // The user's MIMALLOC_LARGE_OS_PAGES wins, whatever it says (an empty value too).
        for value in ["", "0", "1"] {
            XCTAssertFalse(HugePages.shouldAsk(command: "build", userSetting: value, thpMode: "madvise"))
        }
        // In "always" mode huge pages come anyway; in "never" mode not at all; unknown: leave it.
        for mode in ["always", "never", nil] as [String?] {
            XCTAssertFalse(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: mode))
        }
        // Help is printed at once: nothing to ask for.
        XCTAssertFalse(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: "madvise", arguments: ["blog", "build", "--help"]))
        XCTAssertFalse(HugePages.shouldAsk(command: "serve", userSetting: nil, thpMode: "madvise", arguments: ["blog", "serve", "-h"]))
        XCTAssertTrue(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: "madvise", arguments: ["blog", "build", "-s", "site"]))
        for command in ["new", "check", "import", "theme", "--help", "--version", nil] as [String?] {
            XCTAssertFalse(HugePages.shouldAsk(command: command, userSetting: nil, thpMode: "madvise"))
        }
    }
}
