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

    // /proc/buddyinfo of the development VM on 2026-12-03: ~4.7 GB free in blocks under 2 MB.
    private let fragmented = """
        Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
        Node 0, zone    DMA32      4      1      2      2      2      2      1      4      4      2    752
        Node 0, zone   Normal   6454  10251   6839   7999  10250   6520   3849   1824    984    735   1748

        """
    // Most free memory in 4 MB blocks, ~145 MB under 2 MB (as after a reboot).
    private let compact = """
        Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
        Node 0, zone    DMA32      4      1      2      2      2      2      1      4      4      2    752
        Node 0, zone   Normal    900    700    500    400    300    200    100     40     20     10   5000

        """
    // The balloon's features: bits 1, 2, 5 (free page reporting), 7 and 32.
    private let reporting = "0110010100000000000000000000000010000000000000000000000000000000"

    func testFreeBytesSumsTheBlocksUnderTheOrderInEveryZone() {
        let info = "Node 0, zone      DMA      1      0      0\nNode 0, zone   Normal      2      1      1      5\n"
        XCTAssertEqual(HugePages.freeBytes(buddyInfo: info, below: 3, pageSize: 4096), 4096 + 2 * 4096 + 8192 + 16384)
        XCTAssertEqual(HugePages.freeBytes(buddyInfo: info, below: 2, pageSize: 4096), 4096 + 2 * 4096 + 8192)
        XCTAssertEqual(HugePages.freeBytes(buddyInfo: info, below: 0, pageSize: 4096), 0)
        XCTAssertEqual(HugePages.freeBytes(buddyInfo: "", below: 9, pageSize: 4096), 0)
        // 6454 × 4 KB + 10251 × 8 KB + … + 984 × 1 MB, and DMA32's few: ~4.7 GB.
        let bytes = HugePages.freeBytes(buddyInfo: fragmented, below: 9, pageSize: 4096)
        XCTAssertEqual(bytes >> 20, 4783)
        XCTAssertEqual(HugePages.freeBytes(buddyInfo: compact, below: 9, pageSize: 4096) >> 20, 145)
    }

    func testSmallPagesAreCheaperOnlyWhereFreeBlocksOfHugePageSizeAreReportedAndSmallerOnesAbound() {
        func cheaper(features: [String] = [reporting], order: Int? = 9, huge: Int? = 2 << 20, info: String? = nil) -> Bool {
            HugePages.smallPagesAreCheaper(balloonFeatures: features, reportingOrder: order, hugePageSize: huge,
                                           buddyInfo: info ?? fragmented, pageSize: 4096)
        }
        XCTAssertTrue(cheaper())
        // Reported at 8 MB and up: 2 MB blocks stay with the guest, huge pages can come from them.
        XCTAssertFalse(cheaper(order: 11))
        XCTAssertTrue(cheaper(order: 8))
        // Little free memory in small blocks: 4 KB pages would come from reported blocks too.
        XCTAssertFalse(cheaper(info: compact))
        // No balloon, or one that does not report free pages (bit 5 clear): no memory goes back.
        XCTAssertFalse(cheaper(features: []))
        XCTAssertFalse(cheaper(features: ["0110000100000000"]))
        XCTAssertFalse(cheaper(features: ["01100"]))
        XCTAssertTrue(cheaper(features: ["0000000000", reporting]))
        // Anything unknown keeps the huge pages.
        XCTAssertFalse(cheaper(order: nil))
        XCTAssertFalse(cheaper(huge: nil))
        XCTAssertFalse(HugePages.smallPagesAreCheaper(balloonFeatures: [reporting], reportingOrder: 9, hugePageSize: 2 << 20,
                                                      buddyInfo: nil, pageSize: 4096))
    }

    func testDoesNotAskWhereSmallPagesAreCheaper() {
        XCTAssertFalse(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: "madvise", smallPagesCheaper: true))
        XCTAssertTrue(HugePages.shouldAsk(command: "build", userSetting: nil, thpMode: "madvise", smallPagesCheaper: false))
    }

    func testReadsTheReportingOrderAsANumber() {
        XCTAssertEqual(HugePages.number("9\n"), 9)
        XCTAssertEqual(HugePages.number("2097152\n"), 2_097_152)
        XCTAssertNil(HugePages.number(""))
        XCTAssertNil(HugePages.number("x\n"))
    }
}
