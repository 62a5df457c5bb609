import BlogServer
import Foundation

/// What `blog serve --poll` costs on SITE_DIR: the share of one core its polling watcher takes
/// while nothing changes (process CPU time over a few idle seconds), and how long an edit to a
/// post takes to be reported (the pause between scans grows with what a scan costs).
func benchWatch(_ args: Arguments) {
    let site = args.site.path
    let roots = ["content", "static", "themes", "layouts", "blog.yml"].map { site + "/" + $0 }
    guard let post = FileManager.default.enumerator(atPath: site + "/content")?
        .compactMap({ $0 as? String }).sorted().first(where: { $0.hasSuffix(".md") }) else { fail("no post in \(site)/content") }
    let edited = site + "/content/" + post
    let reported = DispatchSemaphore(value: 0)
    let watcher = FileWatcher(paths: roots, debounce: 0.02, method: .polling) { changed in
        if changed.contains(edited) { reported.signal() }
    }
    let startCPU = processCPUSeconds(), startWall = monotonicSeconds()
    do { try watcher.start() } catch { fail("watch: \(error)") }
    let firstScan = monotonicSeconds() - startWall, firstScanCPU = processCPUSeconds() - startCPU
    let idle = 5.0
    let idleCPU = processCPUSeconds()
    usleep(UInt32(idle * 1e6))
    let share = (processCPUSeconds() - idleCPU) / idle
    let original = FileManager.default.contents(atPath: edited) ?? Data()
    var latencies: [Double] = []
    for pass in 0..<args.passes {
        var changed = original
        changed.append(contentsOf: Array("\n<!-- \(pass) -->\n".utf8))
        let written = monotonicSeconds()
        _ = FileManager.default.createFile(atPath: edited, contents: changed)
        guard reported.wait(timeout: .now() + 10) == .success else { fail("watch: the edit was not reported within 10 s") }
        latencies.append(monotonicSeconds() - written)
        usleep(300_000)
    }
    _ = FileManager.default.createFile(atPath: edited, contents: original)
    watcher.stop()
    let median = latencies.sorted()[latencies.count / 2]
    say(String(format: "    watch --poll %@: first scan %.0f ms (%.0f ms CPU), idle %.1f %% of a core, an edit reported in %.0f ms (median of %d)",
               site, firstScan * 1000, firstScanCPU * 1000, share * 100, median * 1000, latencies.count))
    emit(.object([("bench", .string("watch")), ("first_scan_s", .number(firstScan)), ("idle_core_share", .number(share)),
                  ("edit_reported_s", .number(median))]))
}
