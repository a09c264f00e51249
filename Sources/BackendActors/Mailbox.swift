import BackendKit
import ScheduleKit
import Synchronization
import TaskAPI

/// One message in a `Mailbox`: a unit of work run with the mailbox's isolation.
class MailboxMessage: @unchecked Sendable {
    // @unchecked Sendable: `next` is written by the pushing thread before the compare-exchange
    // that publishes the message (releasing), and read by the draining thread after the exchange
    // that takes it (acquiring); no two threads ever touch it at once.
    final var next: Unmanaged<MailboxMessage>?

    /// Runs the message on the draining thread, with the mailbox's isolation.
    func run(in mailbox: Mailbox) {}
}

/// A Swift job enqueued on the mailbox by the concurrency runtime (an `await` into the actor).
final class JobMessage: MailboxMessage, @unchecked Sendable {
    // @unchecked Sendable: see `MailboxMessage`; `job` is immutable and runs exactly once.
    let job: UnownedJob

    init(_ job: UnownedJob) {
        self.job = job
    }

    override func run(in mailbox: Mailbox) {
        job.runSynchronously(on: mailbox.asUnownedSerialExecutor())
    }
}

/// A closure handed to a serial executor.
final class ClosureMessage: MailboxMessage, @unchecked Sendable {
    // @unchecked Sendable: see `MailboxMessage`; `body` is immutable and `@Sendable`.
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    override func run(in mailbox: Mailbox) {
        body()
    }
}

/// A lock-free FIFO `SerialExecutor`: every serial executor of the actors backend.
///
/// Any thread may `push` a message without blocking. The push that finds the mailbox idle makes
/// the pushing thread its owner, which schedules a drain on the pool: then messages run one at a
/// time, in push order, until the mailbox is empty (C7.2). A message pushed while a drain is
/// running is run by that drain. Order is the order of the compare-exchanges that publish
/// messages. No job ever runs inside `execute` or `enqueue` (C2.3).
///
/// State is one atomic word: the address of the most recently pushed message (a LIFO stack of
/// messages not yet taken) with bit 0 set while an owner drains. The owner takes the whole stack
/// at once and reverses it, so FIFO order holds across batches.
///
/// The mailbox's isolation is "this thread is draining me": `isIsolatingCurrentContext` answers
/// it from the kit's thread-local `ThreadRuntime.isolation`, so `assumeIsolated` works for actors
/// whose executor this is.
final class Mailbox: SerialExecutor, TaskAPI.AsyncTaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `state` is atomic; `poolExecutor` is immutable.
    /// A schedule point at every operation under a controlled run: the mailbox's races (a push
    /// against the drain giving up ownership) are exactly what it interleaves.
    private let state = ScheduledAtomic<UInt>(0)
    private static let running: UInt = 1

    /// Where the drains run.
    let poolExecutor: PoolExecutor
    #if PlantedBugs
    /// The planted bug the backend was made with (`ActorsPlantedBug`).
    private let plantedBugs: PlantedBugSwitch

    init(poolExecutor: PoolExecutor, plantedBugs: PlantedBugSwitch) {
        self.poolExecutor = poolExecutor
        self.plantedBugs = plantedBugs
    }
    #else
    init(poolExecutor: PoolExecutor) {
        self.poolExecutor = poolExecutor
    }
    #endif

    /// Publishes `message`; returns `true` if the caller now owns the mailbox and must schedule
    /// `drain()`, `false` if a running or scheduled drain will run it.
    func push(_ message: MailboxMessage) -> Bool {
        let bits = UInt(bitPattern: Unmanaged.passRetained(message).toOpaque())
        var old = state.load(ordering: .relaxed)
        while true {
            message.next = Self.message(old)
            let (exchanged, current) = state.compareExchange(
                expected: old, desired: bits | Self.running,
                successOrdering: .acquiringAndReleasing, failureOrdering: .relaxed)
            if exchanged { return old & Self.running == 0 }
            old = current
        }
    }

    /// Runs queued messages in FIFO order until the mailbox is empty, then gives up ownership,
    /// with the mailbox's isolation. Only the owner (see `push`) may call it.
    func drain() {
        let thread = ThreadRuntime.current
        let outer = thread.isolation
        thread.isolation = self
        drainMessages()
        thread.isolation = outer
    }

    private func drainMessages() {
        while true {
            // Take every published message, leaving the running bit set.
            let taken = state.exchange(Self.running, ordering: .acquiringAndReleasing)
            guard var top = Self.message(taken) else {
                #if PlantedBugs
                if plantedBugs.isOn(ActorsPlantedBug.mailboxGivesUpBlindly) { return giveUpBlindly() }
                #endif
                // Nothing left: give up ownership unless a message arrived meanwhile.
                if state.compareExchange(
                    expected: Self.running, desired: 0,
                    successOrdering: .releasing, failureOrdering: .relaxed
                ).exchanged {
                    return
                }
                continue
            }
            #if PlantedBugs
            if plantedBugs.isOn(ActorsPlantedBug.mailboxGivesUpBeforeLastMessage), runAloneAfterGivingUp(top) { return }
            #endif
            // Reverse the stack into FIFO order.
            var fifo: Unmanaged<MailboxMessage>?
            while true {
                let next = top.takeUnretainedValue().next
                top.takeUnretainedValue().next = fifo
                fifo = top
                guard let next else { break }
                top = next
            }
            while let current = fifo {
                let message = current.takeRetainedValue()
                fifo = message.next
                message.next = nil
                message.run(in: self)
            }
        }
    }

    #if PlantedBugs
    /// The planted bug `mailboxGivesUpBlindly`: ownership given up with a plain store, dropping
    /// a message pushed since the drain's empty look.
    private func giveUpBlindly() {
        state.store(0, ordering: .releasing)
    }

    /// The planted bug `mailboxGivesUpBeforeLastMessage`: a single message taken is run after
    /// the drain gave up ownership (if no message arrived meanwhile); `false` if it did not.
    private func runAloneAfterGivingUp(_ top: Unmanaged<MailboxMessage>) -> Bool {
        guard top.takeUnretainedValue().next == nil,
            state.compareExchange(
                expected: Self.running, desired: 0,
                successOrdering: .releasing, failureOrdering: .relaxed
            ).exchanged
        else { return false }
        top.takeRetainedValue().run(in: self)
        return true
    }
    #endif

    /// The message whose address `bits` holds, running bit masked off. Safe: the stack owns one
    /// retain per message, taken by `passRetained` in `push` and given back by
    /// `takeRetainedValue` in the drain, the only place a message leaves the stack.
    private static func message(_ bits: UInt) -> Unmanaged<MailboxMessage>? {
        guard let pointer = UnsafeRawPointer(bitPattern: bits & ~running) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }

    // MARK: SerialExecutor

    /// A Swift job (an `await` into an actor on this mailbox): drained on the pool, never inside
    /// `enqueue`.
    func enqueue(_ job: consuming ExecutorJob) {
        if push(JobMessage(UnownedJob(job))) {
            poolExecutor.execute { self.drain() }
        }
    }

    /// As a serial executor (C7.2): queues `job`; jobs run one at a time, in order, on the pool.
    func execute(_ job: @escaping @Sendable () -> Void) {
        if push(ClosureMessage(job)) {
            poolExecutor.execute { self.drain() }
        }
    }

    func isIsolatingCurrentContext() -> Bool? {
        ThreadRuntime.current.isolation === self
    }
}
