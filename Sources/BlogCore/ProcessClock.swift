#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time of the whole process (every thread, user and system), for reporting how many
/// cores a phase kept busy.
public enum ProcessClock {
    public static func cpuSeconds() -> Double {
        var now = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return 0 }
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
