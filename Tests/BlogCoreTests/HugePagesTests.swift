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

    func testRestartsOnlyForWholeSiteCommandsWithoutTunablesInMadviseMode() {
        XCTAssertTrue(HugePages.shouldRestart(command: "build", environmentTunables: nil, thpMode: "madvise"))
        XCTAssertTrue(HugePages.shouldRestart(command: "serve", environmentTunables: nil, thpMode: "madvise"))
        // The user's tunables win (an empty value too: that is how to turn this off, e.g. under valgrind),
        // and they stop a second restart.
        XCTAssertFalse(HugePages.shouldRestart(command: "build", environmentTunables: "", thpMode: "madvise"))
        XCTAssertFalse(HugePages.shouldRestart(command: "build", environmentTunables: HugePages.tunable, thpMode: "madvise"))
        // In "always" mode huge pages come anyway; in "never" mode not at all; unknown: leave it.
        for mode in ["always", "never", nil] as [String?] {
            XCTAssertFalse(HugePages.shouldRestart(command: "build", environmentTunables: nil, thpMode: mode))
        }
        // Help is printed at once: starting again (~20 ms) would double its time.
        XCTAssertFalse(HugePages.shouldRestart(command: "build", environmentTunables: nil, thpMode: "madvise", arguments: ["blog", "build", "--help"]))
        XCTAssertFalse(HugePages.shouldRestart(command: "serve", environmentTunables: nil, thpMode: "madvise", arguments: ["blog", "serve", "-h"]))
        XCTAssertTrue(HugePages.shouldRestart(command: "build", environmentTunables: nil, thpMode: "madvise", arguments: ["blog", "build", "-s", "site"]))
        for command in ["new", "check", "import", "theme", "--help", "--version", nil] as [String?] {
            XCTAssertFalse(HugePages.shouldRestart(command: command, environmentTunables: nil, thpMode: "madvise"))
        }
    }
}
