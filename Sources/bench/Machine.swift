import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the figures were measured on, printed with every report.
struct MachineInfo: Codable, Sendable {
    var cores: Int
    var toolchain: String
    var os: String
    var cpu: String
    /// 1-minute load average at the start of the run: above `cores` means a shared, busy machine.
    var loadAverage: Double

    static func current() -> MachineInfo {
        MachineInfo(
            cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            toolchain: swiftVersion(),
            os: osName(),
            cpu: cpuModel(),
            loadAverage: loadAverage()
        )
    }

    /// `swift --version`'s first line, or the compiler the binary was built with.
    private static func swiftVersion() -> String {
        if let line = runCommand("/usr/bin/env", ["swift", "--version"])?
            .split(separator: "\n").first(where: { $0.contains("Swift version") })
        {
            return String(line).trimmingCharacters(in: .whitespaces)
        }
        #if compiler(>=6.3)
        return "built with Swift 6.3 or later"
        #elseif compiler(>=6.2)
        return "built with Swift 6.2"
        #elseif compiler(>=6.1)
        return "built with Swift 6.1"
        #else
        return "built with Swift 6.0"
        #endif
    }

    private static func osName() -> String {
        var name = utsname()
        uname(&name)
        // utsname's fields are fixed-size C char arrays, imported as tuples: read their bytes up to
        // the NUL; the pointer never outlives the closure.
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
    }

    private static func cpuModel() -> String {
        #if canImport(Darwin)
        // macOS has no /proc: the brand string is a sysctl (absent on Apple silicon before
        // macOS 12; then "unknown").
        var size = 0
        guard sysctlbyname("machdep.cpu.brand_string", nil, &size, nil, 0) == 0, size > 0 else { return "unknown" }
        var bytes = [CChar](repeating: 0, count: size)
        guard sysctlbyname("machdep.cpu.brand_string", &bytes, &size, nil, 0) == 0 else { return "unknown" }
        return String(decoding: bytes.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
        #endif
    }

    /// The 1-minute load average now, or -1 where it cannot be read.
    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : -1
    }

    var summary: String {
        "\(cores) cores, \(cpu), \(os), \(toolchain), load average \(String(format: "%.2f", loadAverage))"
    }
}

/// Runs a command and returns its standard output, or `nil` if it could not run or failed.
func runCommand(_ path: String, _ arguments: [String]) -> String? {
    guard let exit = Children.run(path, arguments), exit.status == 0 else { return nil }
    return exit.output
}
