import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The CPU time of the whole process (every thread, user and system), for reporting how many
/// cores a phase kept busy.
public enum ProcessClock {
    public static func cpuSeconds() -> Double {
        #if canImport(Glibc)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #else
        return 0
        #endif
    }
}
