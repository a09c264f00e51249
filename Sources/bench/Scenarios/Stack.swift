import Dispatch
import Foundation
import TaskAPI

/// stack: the deepest chain (registered on a pending source, then fired) that completes on a
/// thread with a 512 KiB stack, per backend and executor, and the stack bytes each link costs on
/// the inline path. Every probe runs in a child process (`bench __stack-probe ...`), so an
/// overflow is a result, not a crash.
enum StackScenario: Scenario {
    static let name = "stack"
    static let summary = "deepest chain completing on a 512 KiB stack (child processes), stack bytes/link inline"

    static let stackKiB = 512
    /// In the note of a depth that was cut short by the time limit, not by a failure.
    static let timeoutMarker = "not finished within"
    static let target = 1_000_000
    static let ladder = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000]

    static func run(_ context: ScenarioContext) -> [Figure] {
        // --quick probes up to 100,000 links: 1,000,000 links take seconds per probe.
        let limit = context.plan.size(target, quick: 100_000)
        // A probe that has not finished by then is stopped and the chain probed at a tenth of
        // the size instead, so that slow backends cannot stretch the run past its 90 s.
        let timeout = Swift.max(30, 6 * context.plan.budget)
        var jobs: [@Sendable () -> Figure] = []
        func depth(_ executor: String, _ subject: String, _ kind: Figure.Kind, _ baseline: String?) {
            jobs.append {
                let (deepest, note) = deepestChain(subject: subject, executor: executor, limit: limit, timeout: timeout)
                Progress.note("stack: \(subject) \(executor): \(deepest) links")
                return Figure(
                    scenario: Self.name, caseName: "stack.deepest-\(executor)@\(stackKiB)KiB",
                    subject: subject, kind: kind, unit: "links", better: .higher,
                    values: [Double(deepest)], baseline: baseline, note: note)
            }
        }
        func bytes(_ subject: String, _ kind: Figure.Kind, _ baseline: String?) {
            jobs.append {
                let bytes = bytesPerLink(subject: subject)
                Progress.note("stack: \(subject) bytes per inline link: \(bytes.map { "\($0)" } ?? "failed")")
                return Figure(
                    scenario: Self.name, caseName: "stack.bytes-per-link-inline", subject: subject,
                    kind: kind, unit: "bytes/link", better: .lower, values: [bytes ?? .nan],
                    baseline: baseline, note: bytes == nil ? "probe failed" : nil)
            }
        }
        depth("inline", "closure", .baseline, nil)
        depth("default", "dispatch", .baseline, nil)
        depth("serial", "dispatch", .baseline, nil)
        bytes("closure", .baseline, nil)
        for backend in context.backends {
            depth("inline", backend.name, .backend, "closure")
            depth("default", backend.name, .backend, "dispatch")
            depth("serial", backend.name, .backend, "dispatch")
            bytes(backend.name, .backend, "closure")
        }
        // Probes time nothing, only pass or fail, so they run side by side, one per core.
        Progress.note("stack: \(jobs.count) probes up to \(limit) links, \(context.plan.cores) at a time")
        return runConcurrently(jobs, width: context.plan.cores)
    }

    /// Tries `limit` first; if that fails, climbs the ladder until a depth fails. If it only ran
    /// out of time, tries a tenth of `limit` and says so.
    static func deepestChain(subject: String, executor: String, limit: Int, timeout: Double) -> (Int, String?) {
        switch probe(subject, executor, depth: limit, kib: stackKiB, timeout: timeout) {
        case .ok: return (limit, nil)
        case .timedOut:
            let smaller = limit / 10
            if case .ok = probe(subject, executor, depth: smaller, kib: stackKiB, timeout: timeout) {
                return (smaller, "\(limit) links \(timeoutMarker) \(Int(timeout)) s (time limit); \(smaller) passed")
            }
            return (0, "\(limit) and \(smaller) links \(timeoutMarker) \(Int(timeout)) s (time limit)")
        case .failed(let why):
            var deepest = 0
            for depth in ladder where depth < limit {
                guard case .ok = probe(subject, executor, depth: depth, kib: stackKiB, timeout: timeout) else { break }
                deepest = depth
            }
            return (deepest, "\(limit) links: \(why)")
        }
    }

    /// Stack bytes per link: the growth of the deepest stack address between chains of 1,000 and
    /// 10,000 links, on a 64 MiB stack so that a recursive path does not overflow.
    static func bytesPerLink(subject: String) -> Double? {
        guard case .ok(let small) = probe(subject, "inline", depth: 1_000, kib: 65_536, timeout: 60),
            case .ok(let large) = probe(subject, "inline", depth: 10_000, kib: 65_536, timeout: 60)
        else {
            return nil
        }
        return Swift.max(0, Double(large) - Double(small)) / 9_000
    }

    enum ProbeResult {
        case ok(Int)
        case failed(String)
        case timedOut
    }

    /// Runs one probe in a child process: this very binary, with the hidden subcommand.
    static func probe(_ subject: String, _ executor: String, depth: Int, kib: Int, timeout: Double) -> ProbeResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: selfPath())
        process.arguments = [StackProbe.command, subject, executor, String(depth), String(kib)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do { try Children.launch(process) } catch { return .failed("could not start the probe: \(error)") }
        defer { Children.finished(process) }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()  // SIGTERM to this probe's own pid, a child this function started
            process.waitUntilExit()
            return .timedOut
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let output = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if process.terminationReason == .uncaughtSignal {
            return .failed("killed by signal \(process.terminationStatus) (stack overflow)")
        }
        guard process.terminationStatus == 0, output.hasPrefix("ok "), let used = Int(output.dropFirst(3)) else {
            return .failed("exit status \(process.terminationStatus), output \"\(output)\"")
        }
        return .ok(used)
    }

    /// The path of the running binary, for re-running it as a probe.
    static func selfPath() -> String {
        #if canImport(Darwin)
        // No /proc on Darwin; Foundation's executable path is the resolved binary.
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
        #else
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        #endif
    }
}
