/// A probe of what only the backend's own threads and timers do: a step that takes no ids and
/// makes work a controlled run cannot give it (a nest of bodies blocked in `wait()`, a timer, a
/// partner thread racing the driver, inputs completed while a combinator is held), then judges
/// what it logged. Such a step is drawn only in programs that use outside work, and rarely: the
/// answers below follow from that, and every probe shares them (`NestedWait`, `Schedule`,
/// `RaceRounds`, `CombineProbed`).
protocol OutsideWorkProbe: TasklessOperation {}

extension OutsideWorkProbe {
    static func weight(in program: ProgramBuilder) -> Int { program.usesOutsideWork ? 1 : 0 }

    var uses: [Use] { [] }
    func renumbered(_ ids: Renumbering) -> Self { self }
}
