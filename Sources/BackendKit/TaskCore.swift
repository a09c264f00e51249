import ScheduleKit
import Synchronization
import TaskAPI

/// The state and logic of a kit task, free of its value type.
///
/// Generic code called through `any AsyncTask<T>` runs unspecialized and pays a runtime metadata
/// lookup for every generic type it touches; keeping the state, the lock and the hand-off in a
/// non-generic class keeps those lookups off the hot paths. The state is a few bytes under a
/// `Mutex` (plus a sanitizer edge, see ScheduleKit's `Locked`): where the task is (`KitState`), its
/// continuations in registration order, and a two-word slot that holds the value of a success
/// (written by `KitTask<T>`, under the same lock, by the completion that wins, before that
/// completion is published) or the error of a failure. A source's task keeps the body of its
/// first continuation, when that is a `whenComplete` on the inline executor, in a field of its
/// own (`SourceTask`): no node for it. So no value is ever boxed as `any Sendable` nor cast
/// back. Continuations are handed over after the lock is released, in registration order, from
/// a loop (C2.4, C2.7). Completing and registering never block on anything but that short lock.
public class TaskCore: KitContinuation, @unchecked Sendable {
    // @unchecked: the class is not final (KitTask<T> refines it), which the checker cannot
    // verify; `owner` is a `let` of a Sendable type, and the state (`continuations`, `slot`,
    // `state`) is touched only under `lock` (or in init and deinit, when no other reference is
    // there), except the value in the slot, which is read only after its completion was seen
    // (see `KitTask<T>`). A derived task is also the registration on its antecedent
    // (`KitContinuation`) and stores where it runs; any other task stores no executor.
    //
    // Stored in this order, the state three bytes and `published` one, so that they and the four-byte
    // lock share the last word: a `KitTask<Int>` takes 64 bytes (a malloc chunk of 80; a
    // source's, with its inline body, 80, a chunk of 96), a `map` node 80 (a chunk of 96: its
    // executor and its token's guard share one field, `Placement`; the continuations are one
    // word, `KitContinuations`; its transform waits in the slot until it starts, `DerivedTask`).
    let owner: any KitBackend
    // @exclusivity(unchecked) here and below: every access is under `lock`, or in init or deinit;
    // none overlaps another.
    @exclusivity(unchecked) private var continuations = KitContinuations.empty
    /// The value of a success (`KitTask<T>`'s), the error of a failure, or a derived task's body
    /// until it starts (`DerivedTask`): raw storage, touched only through its address (see "The
    /// slot's memory" below); never read or written as the tuple it is declared.
    @exclusivity(unchecked) final var slot: (UInt, UInt) = (0, 0)
    @exclusivity(unchecked) private var state = KitState()
    /// The task's ending (`KitState.Ending`'s raw value) as of the last critical section, or of
    /// the completion of a task no other thread could reach yet: 0 until the task completes, then
    /// its ending for good. Stored releasing at the end of every critical section and loaded
    /// acquiring at the start of each, it makes the lock's hand-offs visible to the thread
    /// sanitizer, as `Locked` does (`Locked` itself is not used here: wrapping the mutex in a
    /// generic struct of another module costs two runtime metadata lookups per critical section);
    /// and a reader who loads it (acquiring) and finds an ending sees the slot filled, with no
    /// lock (`outcome`).
    private let published = Atomic<UInt8>(0)
    private let lock = Mutex(())
    #if DEBUG
    /// Debug builds: the ending again, in an atomic, for the check of a reader of the slot, who
    /// has no lock (`assertHoldsValue`); reading `state` there would race with the transitions
    /// that later threads make (a delivery phase opening). Relaxed, so it orders nothing the
    /// thread sanitizer would otherwise see.
    private let debugEnding = Atomic<UInt8>(0)
    #endif

    /// A pending task.
    @inline(__always)
    init(owner: any KitBackend) {
        self.owner = owner
    }

    /// A completed task; the caller stores the value of a success before sharing it.
    init(owner: any KitBackend, completed outcome: KitCompletion) {
        self.owner = owner
        super.init()
        completeUnshared(outcome) {}
    }

    // Inlined into the subclasses' deinits, as theirs are (`KitTask`, `DerivedTask`): one
    // function per freed node instead of a chain of three, each with its own call, prologue and
    // epilogue; the rare paths stay out of line.
    @inline(__always)
    deinit {
        // No other reference is left: no lock needed. `KitTask<T>` destroys the value of a
        // success; the error of a failure is the core's.
        assert(state.phase != .delivering, "kit task: freed by its own delivery, \(state)")
        assert(
            state.ending == .success || state.ending == .failure || slotIsEmpty,
            "kit task: freed with a value in the slot of a task that holds none, \(state)")
        if state.ending == .failure { Self.destroyError(&slot) }
        // Freed while pending: let the continuations go one by one, not all at once (C8.2).
        if !continuations.isEmpty { releaseOrphans() }
    }

    /// The continuations of a task freed while pending, released through the thread's
    /// graveyard (C8.2). For deinit only.
    @inline(never)
    private final func releaseOrphans() {
        assert(!state.isCompleted, "kit task: freed holding continuations after completing, \(state)")
        var orphans = KitContinuations.empty
        swap(&orphans, &continuations)
        ThreadRuntime.current.release(&orphans)
    }

    /// Runs `body` under the lock.
    ///
    /// Not a controlled lock (ScheduleKit's `Locked` is one): no critical section here reaches a
    /// schedule point, so a seat of a controlled run never finds it held by a parked seat, and
    /// going through the seats would only add points, at a flag check per critical section
    /// (+29 instructions per pending inline link, 1.7 %). The task's points are plain ones
    /// (`SchedulePoint.reach()`), placed where a race matters: at the entry of `complete` and of
    /// every registration, and between winning a completion and handing its continuations over.
    @inline(__always)
    private func locked<R: Sendable>(_ body: () -> R) -> R {
        lock.withLock { _ in
            _ = published.load(ordering: .acquiring)
            defer { published.store(state.ending.rawValue, ordering: .releasing) }
            return body()
        }
    }

    // MARK: The slot's memory
    //
    // Two words that hold, one at a time, nothing, a derived task's body (`DerivedTask`), the
    // value of a success (`KitTask<T>`) or the error of a failure. Swift binds the memory of a
    // stored property or a local to its declared type, and memory bound to one type must not be
    // accessed as another: the optimizer trusts declared types and bindings (type-based alias
    // analysis on typed accesses), and may drop an access it believes reads another object. A
    // helper's attempt to keep a `run`'s body here read a `(UInt, UInt)` local as the body's
    // type, and the drop, specialized, compiled to nothing (see DESIGN.md). So the slot follows
    // the binding rules (SE-0107, SE-0333, SE-0349) to the letter:
    //
    // - It is raw storage, reached only through its address (`&slot`: for a final stored
    //   property, the property's own storage, valid for the call). After the initializer's zeros,
    //   no code reads or writes `slot` as the tuple it is declared.
    // - As words, only through raw loads and stores of `UInt` (`load(as:)`,
    //   `storeBytes(of:as:)`): untyped accesses of a trivial type, over memory that holds zeros
    //   or a body's words (never a value: a value just moved out or destroyed leaves none). An
    //   empty slot is its two zero words: a trivial value, which a binding may replace.
    // - A derived task's body is its two words and nothing else: put there by value
    //   (`unsafeBitCast` of the closure, its context retained for the words), moved out raw under
    //   the lock, and made a value again by value (`unsafeBitCast`, the words' reference then
    //   released: `DerivedTask.body(from:)`) or in fresh memory bound to the body's type before
    //   they are stored there (`DerivedTask.dropKeptBody`). The slot is never bound to it.
    // - A value of type `X` (`T`, `any Error`), only through a typed pointer, between the binding
    //   that puts it there (`initializeMemory(as:to:)`, or `bindMemory` then `initialize(to:)`,
    //   over the zeros) and the destruction that empties it, with the task. Each value is read
    //   through the type its put bound.
    // - Never typed memory read as another type: a `(UInt, UInt)` local read as a `Body?` (the
    //   reverted `run` body's drop), nor such a local rebound with `bindMemory`, nor a `Body?`
    //   local with words stored into it raw: each compiled, in some form, to a drop that releases
    //   nothing (DESIGN.md, docs/results/2026-11-28-slot-binding.md).

    /// The slot's two words, read raw (see above).
    @inline(__always)
    private static func loadWords(from words: UnsafeMutableRawPointer) -> (UInt, UInt) {
        (words.load(as: UInt.self), words.load(fromByteOffset: MemoryLayout<UInt>.stride, as: UInt.self))
    }

    /// Stores two words at `words`, raw (see above), over memory that holds no value: zeros to
    /// empty the slot (its value just moved out or released, or none); or the words of a body
    /// moved out of it, into fresh memory bound to the body's type (`DerivedTask.dropKeptBody`).
    @inline(__always)
    static func storeWords(_ value: (UInt, UInt), at words: UnsafeMutableRawPointer) {
        words.storeBytes(of: value.0, as: UInt.self)
        words.storeBytes(of: value.1, toByteOffset: MemoryLayout<UInt>.stride, as: UInt.self)
    }

    /// Whether the slot holds its two zero words, read raw: only while it holds no value and no
    /// error (or to assert that it holds none), so it holds its zeros or a body.
    @inline(__always)
    final var slotIsEmpty: Bool {
        let words = Self.loadWords(from: &slot)
        return words.0 | words.1 == 0
    }

    // The error in the slot: `storeError` binds the words to `any Error` and initializes them (over
    // the zero words of an empty slot: a trivial value, which `initializeMemory(as:to:)` may
    // replace); only while `state` says the task failed do the others read or destroy it, through
    // that binding.

    @inline(__always)
    private static func storeError(_ error: any Error, at words: UnsafeMutableRawPointer) {
        words.initializeMemory(as: (any Error).self, to: error)
    }

    @inline(__always)
    private static func loadError(from words: UnsafeMutableRawPointer) -> any Error {
        words.assumingMemoryBound(to: (any Error).self).pointee
    }

    private static func destroyError(_ words: UnsafeMutableRawPointer) {
        words.assumingMemoryBound(to: (any Error).self).deinitialize(count: 1)
    }

    /// Fills the slot for `outcome`, which the transition just recorded: a success's value
    /// through `store`, a failure's error. Under the lock, or before the task is shared; once.
    @inline(__always)
    private func fill(_ outcome: KitCompletion, storing store: () -> Void) {
        #if DEBUG
        debugEnding.store(KitState.Ending(outcome).rawValue, ordering: .relaxed)
        #endif
        switch outcome {
        case .success:
            store()
        case .failure(let error):
            assertSlotEmpty()
            Self.storeError(error, at: &slot)
        case .cancelled:
            break
        }
    }

    /// Debug builds: the slot is written once, by the completion that won (or in init).
    @inline(__always)
    final func assertSlotEmpty() {
        assert(slotIsEmpty, "kit task: the slot is written twice, \(state)")
    }

    /// The outcome once completed, else `nil`. Under the lock.
    @inline(__always)
    private var recorded: KitCompletion? {
        switch state.phase {
        case .pending, .running: return nil
        case .completed, .delivering: break
        }
        switch state.ending {
        case .success: return .success(())
        case .failure: return .failure(Self.loadError(from: &slot))
        case .cancelled: return .cancelled
        case .none: preconditionFailure("kit task: completed without an ending, reading the outcome, \(state)")
        }
    }

    /// Whether the task completed with a success, read without the lock: for deinit only, when no
    /// other reference is left. A `KitTask<T>`'s slot then holds the value.
    final var holdsValue: Bool { state.ending == .success }

    /// Debug builds: the slot holds a success's value, for a reader who has seen the completion
    /// (a reader who has not might see no ending yet, and stops here).
    @inline(__always)
    final func assertHoldsValue() {
        #if DEBUG
        assert(
            debugEnding.load(ordering: .relaxed) == KitState.Ending.success.rawValue,
            "kit task: the value of a task that holds none was read")
        #endif
    }

    /// Where the task is (C1.5).
    public final var status: TaskStatus {
        locked {
            switch state.phase {
            case .pending: return .pending
            case .running: return .running
            case .completed, .delivering: return .completed
            }
        }
    }

    /// The outcome without its value, once completed: read from `published`, without the lock.
    /// The ending never changes once there, and the slot is filled before it is published (in
    /// the completion's critical section, or before the task is shared), so a reader who sees it
    /// reads the error, or the value (`KitTask<T>`), as the lock's next holder would. A reader
    /// who has not seen the completion yet gets `nil`, as it would from a critical section taken
    /// before the completion's. The lock's acquisition and release cost about 40 instructions
    /// per `await` (callgrind, docs/BENCHMARKS.md, "The pending `await`, ninth session").
    final var outcome: KitCompletion? {
        let ending = published.load(ordering: .acquiring)
        if ending == KitState.Ending.none.rawValue { return nil }
        if ending == KitState.Ending.success.rawValue { return .success(()) }
        return completedOutcome(KitState.Ending(rawValue: ending) ?? .none)
    }

    /// Pending to running (C1.5); `false` if the task is no longer pending.
    @discardableResult @inline(__always)
    public final func tryStart() -> Bool {
        tryStart(taking: {})
    }

    /// `tryStart()`, running `take` under the lock if it wins: a subclass moves its body out
    /// there, so that of two racing starts only the winner sees it.
    @inline(__always)
    final func tryStart(taking take: () -> Void) -> Bool {
        locked {
            guard state.on(.start) == .proceed else { return false }
            take()
            return true
        }
    }

    /// Runs `body` under the task's lock: for a subclass's own fields that racing threads touch.
    @inline(__always)
    final func withLock(_ body: () -> Void) {
        locked(body)
    }

    /// Claims the start of this task's body (C4.3): `false` if the token's handler won the gate,
    /// if the token is cancelled by now (then the task is cancelled), or if the task is no longer
    /// pending. `StartGate.start` without its generic calls, for the hot path. A `nil` guard is a
    /// token that can never be cancelled: then only the status decides. `take` runs under the
    /// lock if this call wins (see `tryStart(taking:)`).
    @inline(__always)
    final func startBody(_ startGuard: StartGuard?, taking take: () -> Void = {}) -> Bool {
        if let startGuard, !startGuard.allowsStart(of: self) { return false }
        return tryStart(taking: take)
    }

    /// Moves out the body that a derived task keeps in the slot until it starts (`DerivedTask`),
    /// leaving the slot empty: its bytes, as raw words (read raw, then zeros stored raw: see
    /// "The slot's memory"), which own the body and which only the derived task turns into its
    /// body again (`DerivedTask.body(from:)`, `DerivedTask.dropKeptBody`). Under the lock (the
    /// start's or the completion's critical section), or without it for a task no other thread
    /// can reach yet.
    @inline(__always)
    final func takeKeptBody() -> (UInt, UInt) {
        let words = Self.loadWords(from: &slot)
        Self.storeWords((0, 0), at: &slot)
        return words
    }

    /// Whether the slot still keeps a derived task's body: for deinit only, when no other
    /// reference is left. Until the task completes, the slot holds no value and no error, and a
    /// task that keeps no body leaves it empty, so any word in it is that body (a closure's
    /// first word is its function, never zero; `DerivedTask` asserts it).
    @inline(__always)
    final var keepsBody: Bool { state.ending == .none && !slotIsEmpty }

    /// Lets go of a body that the completion moved out of the slot (`complete`): `words` own it
    /// (`takeKeptBody`). `DerivedTask` overrides it; no other task keeps a body there. The words
    /// by value: a caller that passed the address of a local paid a stack protector on the hot
    /// path.
    func dropKeptBody(_ words: (UInt, UInt)) {
        preconditionFailure("kit task: completed with a body in the slot of a task that keeps none, \(state)")
    }

    /// Runs the body of a `run` task (`RunTask`), from its job; nothing for any other task.
    func runBody() {}

    /// The task itself as the waker of an `await` of its value (`KitTask.value`), if it has one
    /// of its own and no `await` has claimed it yet (`RunTask`, its first `await`); `nil` for any
    /// other task, whose `await` makes a `ValueResumer`.
    func ownAwaiter() -> (any KitAwaiter)? { nil }

    /// `KitAwaiter.armAwaiter`, for a task that is its own awaiter (`ownAwaiter()`).
    func armAwaiter(_ continuation: UnsafeContinuation<KitCompletion, any Error>) {
        preconditionFailure("kit task: armed as its own awaiter, which it has none of, \(state)")
    }

    /// `KitAwaiter.cancelAwait`, for a task that is its own awaiter (`ownAwaiter()`).
    func cancelAwait() {
        preconditionFailure("kit task: cancelled as its own awaiter, which it has none of, \(state)")
    }

    /// Lets the body of a `run` task go, its job released without running (C8.1, C8.3); nothing
    /// for any other task.
    func dropBody() {}

    /// Whether the task has fields of its own for a kit `whenAll`'s join (`RunTask`): then
    /// `join(_:at:on:)` keeps a join there, with no node, when it is the first continuation.
    var keepsJoin: Bool { false }

    /// Stores `join` and the input's `index` in the task's own fields (`keepsJoin`). Under the
    /// lock, by `join(_:at:on:)` only, once the state recorded the kept body (`KitState.holdsBody`).
    func storeJoin(_ join: KitJoinBase, at index: Int) {
        preconditionFailure("kit task: a join stored in a task that keeps none, \(state)")
    }

    /// Completes the task, then hands over its continuations, and any registered meanwhile, in
    /// registration order (C1.1, C1.2, C2.4). `store` runs under the lock only if this call wins,
    /// before the outcome is published: `KitTask<T>` stores a success's value with it. The inline
    /// body and the continuations stored by then are taken in the same critical section; with
    /// none, there is nothing more to do. Otherwise the hand-over runs on the thread's
    /// trampoline: at once, or, inside other trampoline work, queued behind it (C2.7); the task
    /// stays in its delivery phase until then, so no registration made meanwhile on another
    /// thread can overtake it. The task keeps none of them (C8.1). A derived task completed
    /// before its body started (its token, or a caller completing it as a `CompletionSource`)
    /// still keeps that body in the slot: the same critical section moves it out before the slot
    /// is filled, and it is let go after the lock (`dropKeptBody`), so that no deinit of its
    /// captures runs under the lock. `runtime`: the calling thread's, if the caller has it at hand
    /// (a delivery passes it down, `KitContinuation.run(_:from:on:)`); otherwise it is looked up.
    @inline(__always)
    final func complete(_ outcome: KitCompletion, storing store: () -> Void, on runtime: ThreadRuntime? = nil) -> Bool {
        SchedulePoint.reach("kit task: complete")  // Points (no lock held): see `locked`.
        var batch = KitContinuations.empty
        var kept: (UInt, UInt) = (0, 0)
        var wakes = false
        let action = locked { () -> KitState.Action in
            // A lone waker is taken without a delivery phase (`KitContinuations.isLoneWaker`).
            let lone = continuations.isLoneWaker(of: self)
            let action = state.on(.complete(KitState.Ending(outcome), stored: !continuations.isEmpty && !lone))
            // Refused: a completion won before, and whatever is stored is its delivery's.
            if action == .refuse { return action }
            // Not completed until now, so the slot holds neither a value nor an error: a word in
            // it is a kept body (see `keepsBody`).
            if !slotIsEmpty { kept = takeKeptBody() }
            fill(outcome, storing: store)
            // Handing over: the kept inline body goes first, and a lone waker is delivered
            // behind it. Proceeding with a lone waker: this call wakes it.
            if case .handOver = action {
                swap(&batch, &continuations)
            } else if lone {
                wakes = true
                swap(&batch, &continuations)
            }
            return action
        }
        if kept != (0, 0) { dropKeptBody(kept) }
        // Refused: another completion won (C1.2). Proceeding: nothing to hand over, or a lone
        // waker to wake.
        guard case .handOver(let inline) = action else {
            if wakes { wake(batch, outcome) }
            return action == .proceed
        }
        // Between winning and handing over: a registration made meanwhile queues behind this
        // delivery phase (C2.4).
        SchedulePoint.reach("kit task: won a completion")
        if runtime != nil {
            // `unsafelyUnwrapped`, tested just above: bound by `if let`, the runtime was retained
            // and released around the outermost trampoline's call (+40 instructions per
            // default-executor link, callgrind).
            assert(runtime === ThreadRuntime.current, "kit task: completed onto another thread's runtime")
            runtime.unsafelyUnwrapped.trampolineHandOver(self, outcome, inline, consume batch)
        } else {
            var work = ThreadRuntime.Work.handOver(self, outcome, inline, consume batch)
            ThreadRuntime.trampolineHere(&work)
        }
        return true
    }

    /// Wakes the lone waker that a completion took (`batch`) with `outcome`: on this thread, now,
    /// with no delivery phase, no trampoline and no lock to end the phase, as a waker registered
    /// on a completed task reads the outcome itself (`registerWaker`). A waker only signals a
    /// thread or resumes a Swift continuation: it runs no code of the caller's here and
    /// completes nothing, so nothing nests (C2.7), and it is nothing that C2.4's order among
    /// continuations could see. The task keeps none of it (C8.1).
    @inline(__always)
    private func wake(_ batch: consuming KitContinuations, _ outcome: KitCompletion) {
        guard case .one(let waker) = consume batch else {
            preconditionFailure("kit task: a completion took no lone waker to wake")
        }
        SchedulePoint.reach("kit task: won a completion")
        waker.run(outcome, from: self)
    }

    /// Completes the task with a failure or a cancellation; see `complete(_:storing:)`.
    final func complete(_ outcome: KitCompletion) -> Bool {
        complete(outcome, storing: {})
    }

    /// Completes the task with a failure or a cancellation: through `complete(_:)`, or, `fresh`,
    /// through `completeUnshared` for a task no other thread can reach yet; `runtime` as for
    /// `complete(_:storing:on:)`.
    @inline(__always)
    final func finish(_ outcome: KitCompletion, fresh: Bool, on runtime: ThreadRuntime? = nil) {
        if fresh {
            completeUnshared(outcome) {}
        } else {
            _ = complete(outcome, storing: {}, on: runtime)
        }
    }

    /// `finish` with what a body threw (C3.1, C3.2, as `Completion(thrown:)` says). Out of line:
    /// inlined, its test for a `CancellationError` had every body's caller look up that type's
    /// metadata and size a stack buffer for it on entry, thrown or not.
    @inline(never)
    final func fail(thrown error: any Error, fresh: Bool, on runtime: ThreadRuntime?) {
        finish(KitCompletion(thrown: error), fresh: fresh, on: runtime)
    }

    /// Stores `continuation`, to be handed over when the task completes; on a task completed and
    /// delivered, hands it over at once instead, through a delivery phase of its own, exactly as
    /// `complete` does (C2.1, C2.4): the phase and the outcome are taken in the one critical
    /// section, so nothing is stored only to be taken back. While a delivery runs, it is stored
    /// behind the continuations being handed over, and that delivery takes it.
    final func register(_ continuation: KitContinuation) {
        registerFresh(continuation, inPlace: false)
    }

    /// Registers `node`, a derived task just made that no one else holds yet; `inPlace` if it
    /// would run right where it is handed over (the inline executor) and nothing but its
    /// antecedent can start it (a token that can never be cancelled). Then, if this task is
    /// completed and delivered and the calling thread runs no trampoline work, the node runs
    /// here and now, inside a delivery phase of this task, as `register`'s hand-over would run
    /// it (C2.3, C2.4, C2.7), without the steps that only a shared node needs: no store and take
    /// of the continuation, no lock to start it or to complete it (`KitContinuation.runFresh`).
    /// Otherwise, as `register`.
    @inline(__always)
    final func registerFresh(_ node: KitContinuation, inPlace: Bool) {
        SchedulePoint.reach("kit task: register")
        let ending = storeOrOpenDelivery(node)
        switch ending {
        case .none:
            return  // stored
        case .success:
            // Built here, a success is seen to hold nothing to release: no outlined destroy of
            // the outcome after the node ran (13 instructions per completed link, callgrind).
            handOverFresh(node, inPlace: inPlace, .success(()))
        case .failure, .cancelled:
            handOverFresh(node, inPlace: inPlace, completedOutcome(ending))
        }
    }

    /// `registerFresh`'s hand-over of `node`, in the delivery phase it opened, with `outcome`.
    @inline(__always)
    private func handOverFresh(_ node: KitContinuation, inPlace: Bool, _ outcome: KitCompletion) {
        ThreadRuntime.unmanagedCurrent._withUnsafeGuaranteedRef { runtime in
            if inPlace, !runtime.isDraining {
                deliverInPlace(outcome, on: runtime) { node.runFresh($0, from: self) }
                return
            }
            let batch = KitContinuations.one(node)
            #if PlantedBugs
            // The planted bug: handed over in place, inside the inline work this thread runs,
            // not queued behind it.
            if runtime.isDraining, plantedBugs.isOn(KitPlantedBug.inPlaceInsideInlineWork) {
                return handOver(false, batch, outcome, on: runtime)
            }
            #endif
            runtime.trampolineHandOver(self, outcome, false, consume batch)
        }
    }

    /// Registers `join`, a kit `whenAll`'s, for input `index`, in one critical section and
    /// without a node when it can: on a task completed and delivered, it reports at once inside
    /// a delivery phase of its own, as `registerFresh` runs a node in place (inside trampoline
    /// work, queued on the trampoline as a `JoinSlot`, as `register` would queue it); on a task
    /// not completed that keeps joins (`keepsJoin`), the join becomes its first continuation,
    /// handed over first by the completion (`runInline`, C2.4). `false`, doing nothing,
    /// otherwise (a delivery is running, or the join would not be the first continuation): the
    /// caller registers a node. `runtime` is the calling thread's (`whenAll` looks it up once for
    /// all its inputs).
    final func join(_ join: KitJoinBase, at index: Int, on runtime: ThreadRuntime) -> Bool {
        SchedulePoint.reach("kit task: register")
        let ending = locked { () -> KitState.Ending? in
            // Completed and delivered: a delivery phase opens for the report.
            if state.on(.deliverInPlace) != .refuse { return state.ending }
            guard keepsJoin, state.on(.keepBody(first: continuations.isEmpty)) == .proceed else { return nil }
            storeJoin(join, at: index)
            return KitState.Ending.none
        }
        guard let ending else { return false }
        if ending == .none { return true }  // kept
        let outcome = ending == .success ? .success(()) : completedOutcome(ending)
        assert(runtime === ThreadRuntime.current, "kit task: a join reported onto another thread's runtime")
        if runtime.isDraining {
            queueJoin(join, at: index, outcome)
        } else {
            deliverInPlace(outcome, on: runtime) { join.receive($0, from: self, at: index) }
        }
        return true
    }

    /// `join(_:at:on:)`'s report inside trampoline work: a `JoinSlot` queued behind that work, as
    /// `register` queues a node. Out of line: the in-place path stays small.
    @inline(never)
    private func queueJoin(_ join: KitJoinBase, at index: Int, _ outcome: KitCompletion) {
        handOverFresh(JoinSlot(join, index), inPlace: false, outcome)
    }

    /// Runs `body` with the outcome as the hand-over of a delivery phase this thread just opened,
    /// as trampoline work on `runtime` (which runs none), then ends the phase, handing over
    /// whatever was registered meanwhile.
    @inline(__always)
    private func deliverInPlace(_ outcome: KitCompletion, on runtime: ThreadRuntime, _ body: (KitCompletion) -> Void) {
        runtime.runAsWork {
            body(outcome)
            endDelivery(outcome, on: runtime)
        }
    }

    /// Ends the delivery phase that `deliverInPlace` opened, handing over whatever was registered
    /// meanwhile: `handOver` without a batch of its own to build, loop over and release.
    @inline(__always)
    private func endDelivery(_ outcome: KitCompletion, on runtime: ThreadRuntime) {
        guard let next = locked({ nextDelivery() }) else { return }
        handOver(false, next, outcome, on: runtime)
    }

    /// Stores `continuation` unless the task is completed and delivered; then opens a delivery
    /// phase for it instead and returns the ending, `.none` once stored. One critical section.
    /// The ending, not the outcome: a caller that builds a success itself destroys nothing.
    @inline(__always)
    private func storeOrOpenDelivery(_ continuation: KitContinuation) -> KitState.Ending {
        locked { () -> KitState.Ending in
            guard state.on(.register) == .store else {  // a delivery opened
                assert(state.ending != .none, "kit task: a delivery opened without an ending, \(state)")
                return state.ending
            }
            continuations.append(continuation)
            return .none
        }
    }

    /// Starts the body of a task no other thread can reach yet (see `registerFresh`): no lock.
    @inline(__always)
    final func startUnshared() {
        _ = state.on(.startUnshared)
    }

    /// Completes a task no other thread can reach yet and on which nothing is registered (see
    /// `registerFresh`): no lock, nothing to hand over.
    @inline(__always)
    final func completeUnshared(_ outcome: KitCompletion, storing store: () -> Void) {
        _ = state.on(.completeUnshared(KitState.Ending(outcome)))
        fill(outcome, storing: store)
        // Relaxed: whatever shares the task from here on publishes it, the slot and this.
        published.store(state.ending.rawValue, ordering: .relaxed)
    }

    /// Registers the body of an inline `whenComplete` that a subclass keeps in a field of its own
    /// (`SourceTask`), when it is the first continuation of a task not completed yet: `store`
    /// then writes the field under the lock, and the completion hands it over first, as the
    /// first registered (`runInline`, C2.4). `false`, storing nothing, otherwise.
    final func registerInline(storing store: () -> Void) -> Bool {
        SchedulePoint.reach("kit task: register an inline body")
        return locked {
            guard state.on(.keepBody(first: continuations.isEmpty)) == .proceed else { return false }
            store()
            return true
        }
    }

    /// Runs and drops the inline body that `registerInline` stored, with the outcome. Called
    /// once, by the delivery the completion started: after the completion's critical section,
    /// which no registration of an inline body follows.
    func runInline(_ outcome: KitCompletion) {}

    /// The continuations registered since the last batch was taken, or `nil`, which ends the
    /// delivery phase: from then on a registration opens one of its own. Under the lock, during a
    /// delivery phase.
    @inline(__always)
    private func nextDelivery() -> KitContinuations? {
        guard state.on(.endRound(stored: !continuations.isEmpty)) != .proceed else { return nil }
        // Moved out, not copied: no retain and release of each stored continuation.
        var taken = KitContinuations.empty
        swap(&taken, &continuations)
        return taken
    }

    /// Runs the inline body if the completion found one (`inline`); then hands over `first`, a
    /// batch taken from the state, then the batches registered meanwhile, until none is left,
    /// which ends the delivery phase. Runs only from the trampoline of `runtime`, the calling
    /// thread's, which it passes to each hand-off.
    final func handOver(
        _ inline: Bool, _ first: consuming KitContinuations, _ outcome: KitCompletion, on runtime: ThreadRuntime
    ) {
        #if PlantedBugs
        if inline, !first.isEmpty, plantedBugs.isOn(KitPlantedBug.inlineBodyHandedLast) {
            return handOverInlineBodyLast(first, outcome, on: runtime)
        }
        #endif
        if inline { runInline(outcome) }
        var batch = first
        while true {
            // A single continuation is moved out of the batch for its hand-off: no retain of it.
            switch consume batch {
            case .empty:
                break
            case .one(let continuation):
                continuation.handOff(outcome, from: self, on: runtime)
            case .many(let list):
                list[0].handOff(outcome, from: self, on: runtime)
                #if PlantedBugs
                if plantedBugs.isOn(KitPlantedBug.nestedRegistrationOvertakes) {
                    handOverRegisteredMeanwhile(outcome, on: runtime)
                }
                #endif
                for continuation in list.dropFirst() { continuation.handOff(outcome, from: self, on: runtime) }
            }
            guard let next = locked({ nextDelivery() }) else { return }
            batch = next
        }
    }

    #if PlantedBugs
    /// The planted bug `inlineBodyHandedLast`: the kept inline body handed over after the first
    /// batch, then the delivery goes on as `handOver` does.
    private final func handOverInlineBodyLast(
        _ first: consuming KitContinuations, _ outcome: KitCompletion, on runtime: ThreadRuntime
    ) {
        for continuation in first.all { continuation.handOff(outcome, from: self, on: runtime) }
        runInline(outcome)
        guard let next = locked({ nextDelivery() }) else { return }
        handOver(false, next, outcome, on: runtime)
    }

    /// The planted bug `nestedRegistrationOvertakes`: the continuations registered during this
    /// delivery so far, handed over at once, before the rest of the batch being delivered.
    private final func handOverRegisteredMeanwhile(_ outcome: KitCompletion, on runtime: ThreadRuntime) {
        var early = KitContinuations.empty
        locked { swap(&early, &continuations) }
        for continuation in early.all { continuation.handOff(outcome, from: self, on: runtime) }
    }

    /// The planted bug the task's backend carries: a requirement of `KitBackend`, read through
    /// its witness table (no cast).
    private var plantedBugs: PlantedBugSwitch { owner.plantedBugs }
    #endif

    /// Registers `waker` unless the task is completed and delivered; then returns the outcome and
    /// registers nothing. For wakers, which need no hand-off.
    final func registerWaker(_ waker: KitContinuation) -> KitCompletion? {
        locked {
            guard state.on(.registerWaker) == .store else { return recorded }
            continuations.append(waker)
            return nil
        }
    }

    /// Removes `waiter`'s waker if it has not run: a timed-out wait, or an abandoned `await`,
    /// leaves nothing behind (C6.2, C4.7). `false` if it was no longer stored: the task completed
    /// and the waker ran or is running.
    final func remove(_ waker: KitContinuation) -> Bool {
        locked { continuations.remove { $0 === waker } != nil }
    }

    /// A waiter for a wait on this task, carrying the planted bug of the task's backend, if any.
    @inline(__always)
    private func makeWaiter() -> Waiter {
        #if PlantedBugs
        Waiter(plantedBugs: plantedBugs)
        #else
        Waiter()
        #endif
    }

    /// Blocks until the task completes (C6.1); the value of a success is then in the slot.
    final func waitOutcome() -> KitCompletion {
        if let outcome { return outcome }
        let waiter = makeWaiter()
        if let outcome = registerWaker(waiter) { return outcome }
        // Without a deadline the waiter returns only once woken, when the outcome is there.
        _ = waiter.wait(until: nil)
        return outcome(after: "a wait was woken")
    }

    /// Blocks until the task completes or `timeout` elapses (C6.2); `nil` if it timed out.
    final func waitOutcome(timeout: Duration) -> KitCompletion? {
        if let outcome { return outcome }
        let deadline = MonotonicClock.deadline(after: timeout)
        let waiter = makeWaiter()
        if let outcome = registerWaker(waiter) { return outcome }
        if waiter.wait(until: deadline) { return outcome(after: "a timed wait was woken") }
        if remove(waiter) { return nil }
        // Completed between the timeout and the removal: the outcome is there after all.
        return outcome(after: "a timed-out wait found its waker taken")
    }

    /// The outcome `ending` records, for a caller whose critical section saw the task completed
    /// with it: the slot is filled before that completion is published and never changes after,
    /// so a failure's error is read without the lock, as a success's value is (`loadValue`).
    @inline(never)
    private func completedOutcome(_ ending: KitState.Ending) -> KitCompletion {
        switch ending {
        case .success: return .success(())
        case .failure: return .failure(Self.loadError(from: &slot))
        case .cancelled: return .cancelled
        case .none: preconditionFailure("kit task: the outcome of a task not completed, \(ending)")
        }
    }

    /// The outcome of a task that `what` shows completed: a waker runs, or is taken, only once
    /// the completion recorded it.
    private func outcome(after what: String) -> KitCompletion {
        locked { () -> KitCompletion in
            guard let outcome = recorded else { preconditionFailure("kit task: \(what), but \(state)") }
            return outcome
        }
    }
}
