/// The command line: `bench [run] [options]`, `bench compare OLD.json NEW.json`, `bench --help`.
enum Command: Equatable {
    case run(Options)
    case compare(old: String, new: String)
    case gate(baseline: String, new: String, maxGrowth: Double)
    case show(path: String, format: OutputFormat, svg: String?)
    case help
    case stackProbe([String])
    case allocProbe([String])
    case chainProbe([String])
    case scalingProbe([String])
    case repetition([String])
}

enum OutputFormat: String, CaseIterable {
    case table, json, csv, markdown
}

struct Options: Equatable {
    /// `--rounds`' range: 5, what `bench compare`'s test needs, to 99.
    static let minimumRounds = 5
    static let maximumRounds = 99

    var backends: [String]
    var scenarios: [String]
    var quick = false
    var format = OutputFormat.table
    var output: String?
    var svg: String?
    /// Also count instructions per chain link (and per fanned-out task, with the fan-out
    /// scenario) under valgrind's callgrind.
    var instructions = false
    /// Rounds of every timed case (`--rounds N`, at least 5); `nil`: 5.
    var rounds: Int?
}

/// A command line the benchmark does not understand: printed with the usage, exit status 2.
struct UsageError: Error, Equatable {
    let message: String
}

/// Parses arguments (without the program name) against the known backend and scenario names.
func parseCommand(_ arguments: [String], backends: [String], scenarios: [String]) throws(UsageError) -> Command {
    var args = arguments[...]
    if args.first == StackProbe.command { return .stackProbe(Array(args.dropFirst())) }
    if args.first == AllocProbe.command { return .allocProbe(Array(args.dropFirst())) }
    if args.first == ChainProbe.command { return .chainProbe(Array(args.dropFirst())) }
    if args.first == ScalingProbe.command { return .scalingProbe(Array(args.dropFirst())) }
    if args.first == Isolated.command { return .repetition(Array(args.dropFirst())) }
    if args.first == "compare" {
        args = args.dropFirst()
        if args.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        guard args.count == 2 else {
            throw UsageError(message: "compare takes exactly two files: OLD.json NEW.json")
        }
        return .compare(old: args[args.startIndex], new: args[args.startIndex + 1])
    }
    if args.first == "gate" { return try parseGate(args.dropFirst()) }
    if args.first == "show" {
        args = args.dropFirst()
        var path: String?
        var format = OutputFormat.table
        var svg: String?
        while let arg = args.popFirst() {
            switch arg {
            case "-h", "--help": return .help
            case "--svg":
                guard let file = args.popFirst() else { throw UsageError(message: "--svg needs a value") }
                svg = file
            case "--format":
                guard let text = args.popFirst(), let chosen = OutputFormat(rawValue: text) else {
                    throw UsageError(message: "--format needs one of: table, json, csv, markdown")
                }
                format = chosen
            default:
                guard path == nil, !arg.hasPrefix("-") else { throw UsageError(message: "unknown argument '\(arg)'") }
                path = arg
            }
        }
        guard let path else { throw UsageError(message: "show takes a JSON report: show REPORT.json") }
        return .show(path: path, format: format, svg: svg)
    }
    if args.first == "run" { args = args.dropFirst() }

    var options = Options(backends: backends, scenarios: scenarios)
    func value(for flag: String) throws(UsageError) -> String {
        guard let next = args.popFirst(), !next.hasPrefix("--") else {
            throw UsageError(message: "\(flag) needs a value")
        }
        return next
    }
    func list(_ text: String, of known: [String], what: String) throws(UsageError) -> [String] {
        if text == "all" { return known }
        let names = text.split(separator: ",").map { String($0).trimmingCharacters(in: " ") }
        guard !names.isEmpty, !names.contains("") else { throw UsageError(message: "empty \(what) list") }
        for name in names where !known.contains(name) {
            throw UsageError(message: "unknown \(what) '\(name)' (known: \(known.joined(separator: ", ")))")
        }
        var seen: [String] = []
        for name in names where !seen.contains(name) { seen.append(name) }
        return seen
    }
    while let arg = args.popFirst() {
        var flag = arg
        if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
            flag = String(arg[..<eq])
            args.insert(String(arg[arg.index(after: eq)...]), at: args.startIndex)
        }
        switch flag {
        case "-h", "--help": return .help
        case "--quick": options.quick = true
        case "--instructions": options.instructions = true
        case "--backends": options.backends = try list(try value(for: flag), of: backends, what: "backend")
        case "--scenarios": options.scenarios = try list(try value(for: flag), of: scenarios, what: "scenario")
        case "--format":
            let text = try value(for: flag)
            guard let format = OutputFormat(rawValue: text) else {
                throw UsageError(message: "unknown format '\(text)' (known: table, json, csv, markdown)")
            }
            options.format = format
        case "--output": options.output = try value(for: flag)
        case "--svg": options.svg = try value(for: flag)
        case "--rounds":
            let text = try value(for: flag)
            guard let rounds = Int(text), (Options.minimumRounds...Options.maximumRounds).contains(rounds) else {
                throw UsageError(
                    message: "--rounds needs a whole number from \(Options.minimumRounds) to \(Options.maximumRounds), not '\(text)'")
            }
            options.rounds = rounds
        default: throw UsageError(message: "unknown argument '\(arg)'")
        }
    }
    return .run(options)
}

/// `gate BASELINE.json NEW.json [--max-growth PERCENT]` (after the word `gate`).
private func parseGate(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var args = arguments
    var files: [String] = []
    var maxGrowth = InstructionGate.defaultMaxGrowth
    while let arg = args.popFirst() {
        switch arg {
        case "-h", "--help": return .help
        case "--max-growth":
            guard let text = args.popFirst(), let value = Double(text), value.isFinite, value >= 0 else {
                throw UsageError(message: "--max-growth needs a percentage of 0 or more, e.g. 2")
            }
            maxGrowth = value
        default:
            guard !arg.hasPrefix("-") else { throw UsageError(message: "unknown argument '\(arg)'") }
            files.append(arg)
        }
    }
    guard files.count == 2 else {
        throw UsageError(message: "gate takes exactly two files: BASELINE.json NEW.json")
    }
    return .gate(baseline: files[0], new: files[1], maxGrowth: maxGrowth)
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}

/// The usage text, with the names this build knows.
func usage(backends: [String], scenarios: [(String, String)]) -> String {
    let width = scenarios.map(\.0.count).max() ?? 0
    let list = scenarios.map { "  \($0.0.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1)" }
    return """
        usage: bench [run] [--backends LIST] [--scenarios LIST] [--quick] [--instructions]
                     [--rounds N] [--format table|json|csv|markdown] [--output FILE] [--svg FILE]
               bench compare OLD.json NEW.json
               bench gate BASELINE.json NEW.json [--max-growth PERCENT]
               bench show REPORT.json [--format table|json|csv|markdown] [--svg FILE]
               bench --help

        Measures what each task backend costs, next to raw baselines measured in the same run
        (Dispatch, Swift concurrency, pthreads, a plain closure loop). Every figure is a median over
        repetitions with its min and max; backend figures carry a cost ratio to their baseline
        (above 1: costlier than the baseline). Progress goes to standard error.

        options:
          --backends LIST    comma-separated, or 'all' (default: all): \(backends.joined(separator: ", "))
          --scenarios LIST   comma-separated, or 'all' (default: all)
          --quick            smaller sizes and time budget (about 20-30 s instead of 2-2.5 min)
          --instructions     also count instructions per chain link with valgrind's callgrind,
                             per fanned-out task when fanout is measured and per await when
                             await is (every backend and baseline, two sizes differenced);
                             needs valgrind
          --rounds N         rounds of every timed case, 5 to 99 (default 5; the time budget
                             grows with them): more rounds narrow each ratio's interval
          --format F         table (default), json, csv or markdown, on standard output
          --output FILE      write the report to FILE instead of standard output
          --svg FILE         also write an SVG chart of the ratios to FILE
                             (output files are checked before measuring: a bad path exits 2 at once)
          -h, --help         this text

        scenarios:
        \(list.joined(separator: "\n"))

        gate: fails (exit status 1) when a backend's per-link instruction count in NEW.json grew by
        more than PERCENT (default 2) over BASELINE.json, or is missing from NEW.json; names each
        figure and its growth. Both files are JSON reports of a run with --instructions. CI gates
        against docs/results/instructions-baseline.json; to refresh it:
          \(InstructionGate.refreshCommand)

        show: prints a saved JSON report again, in any format, and can draw its chart (--svg).

        compare: matches the figures of two JSON reports by case and subject and prints what
        changed beyond the noise: a timed figure's cost ratios to its same-run baseline, one per
        repetition, differ by a Mann-Whitney U test (two-sided p < 0.05) and by at least 10% and
        more than either run's spread and its baseline's, and so does the figure itself, in the
        same direction; exact figures (instruction, allocation
        and byte counts, stack depths, verdicts) differ beyond their stated tolerance. It prints
        both machines and load averages and warns when a run was on a busy machine.

        exit status: 0 done, 1 a file could not be read or written, or the gate failed, 2 bad
        command line, an unwritable output path, or --instructions without valgrind.
        """
}
