package dev.locksmith.cli;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Durations;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code locksmith run}: flock(1) for many hosts. */
@Command(
    name = "run",
    description = {
      "Runs COMMAND while holding a lease on KEY, renewed while it runs.",
      "Several --key (with --name) are all held, each as NAME:KEY, taken sorted.",
      "COMMAND gets LOCKSMITH_LOCK, LOCKSMITH_FENCING_TOKEN, LOCKSMITH_OWNER and",
      "LOCKSMITH_LOCKS (one LOCKID=TOKEN line per lock).",
      "COMMAND runs in a session and process group of its own and is done when",
      "every process of that group has exited. On a lost lease, Ctrl-C or SIGTERM",
      "the group is frozen (SIGSTOP), then gets SIGTERM, and SIGKILL after --grace;",
      "a lost lease exits 70 once no process of the group is alive."
    },
    mixinStandardHelpOptions = true)
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProviderOptions providerOptions;

  @Option(
      names = "--key",
      required = true,
      description =
          "The lock's name; repeat it (with --name) to hold several locks, all or nothing.")
  List<String> keys;

  @Option(names = "--name", description = "Locks each --key as NAME:KEY; needed for several --key.")
  @Nullable String name;

  /** The locks, set once the options are checked: first thing in call(), picocli's entry point. */
  @SuppressWarnings("NullAway.Init")
  private RunKeys locks;

  /** How messages name the locks: {@code 'KEY'}, or every lock id; set with {@link #locks}. */
  @SuppressWarnings("NullAway.Init")
  private String locksNamed;

  @Option(
      names = "--ttl",
      defaultValue = "30s",
      description = "Lease length, renewed every third of it (default: ${DEFAULT-VALUE}).")
  Duration ttl;

  @ArgGroup(exclusive = true)
  @Nullable BusyPolicy busy;

  static final class BusyPolicy {
    @Option(
        names = "--wait",
        description = "When busy, wait up to this long (default: 30s), then exit 75.")
    @Nullable Duration wait;

    @Option(names = "--skip", description = "When busy, run nothing and exit 0.")
    boolean skip;

    @Option(names = "--fail", description = "When busy, exit 75 at once.")
    boolean fail;
  }

  @Option(
      names = "--busy-exit-code",
      paramLabel = "N",
      defaultValue = "" + ExitCodes.BUSY,
      description =
          "Exit code when the lock is busy under --fail or --wait runs out, to tell it from"
              + " COMMAND's own codes, as flock's --conflict-exit-code (default: ${DEFAULT-VALUE}).")
  int busyExitCode;

  @Option(
      names = "--lost-exit-code",
      paramLabel = "N",
      defaultValue = "" + ExitCodes.LEASE_LOST,
      description =
          "Exit code when the lease is lost before or while COMMAND runs (default:"
              + " ${DEFAULT-VALUE}).")
  int lostExitCode;

  @Option(
      names = "--until",
      description =
          "After COMMAND's group has exited, keep the lock until this shell test succeeds (for"
              + " work that left the group: setsid, daemons).")
  @Nullable String until;

  @Option(
      names = "--until-interval",
      defaultValue = "5s",
      description = "How often --until is checked (default: ${DEFAULT-VALUE}).")
  Duration untilInterval;

  @Option(
      names = "--grace",
      defaultValue = "10s",
      description =
          "Time between SIGTERM and SIGKILL when COMMAND is stopped (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Parameters(
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments.")
  List<String> command;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    locks = new RunKeys(name, keys);
    locks.check();
    locksNamed = locks.describe();
    checkOptions();
    Launcher launcher = Launcher.detect();
    if (!launcher.isolates()) {
      err.println(
          "locksmith: warning: neither util-linux setsid nor perl found, so COMMAND shares run's"
              + " process group: a step it starts while being stopped can escape, and a"
              + " background job COMMAND leaves behind does not keep the lock (use --until)");
    }
    LockProvider provider = providerOptions.open(p -> p.status(locks.lockIds().get(0))).provider();
    CompletableFuture<String> lost = new CompletableFuture<>();
    LockListener onLost = LockListener.onLost((event, reason) -> lost.complete(reason));
    try (provider;
        Locksmith locksmith =
            Locksmith.builder().defaultProvider(provider).listener(onLost).build()) {
      Runnable closeEngine = closingOnce(locksmith);
      try (SignalStop onSignal =
          SignalStop.install(
              grace,
              message -> LeasedCommand.report(err, message),
              closeEngine,
              () -> {
                // The engine, then the provider, whose close gives up a queue position at once (a
                // ZooKeeper waiter node would otherwise outlive the JVM by the session timeout).
                closeEngine.run();
                provider.close();
              })) {
        Optional<Lease> lease = acquire(locksmith, provider, onSignal);
        if (lease.isEmpty()) {
          err.println("locksmith: skipped: " + describeBusy(provider, null));
          return ExitCodes.SKIPPED;
        }
        try (Lease held = lease.get()) {
          onSignal.hold(held);
          return new LeasedCommand(
                  command, locksNamed, grace, until, untilInterval, lostExitCode, err)
              .run(held, onSignal, lost, launcher);
        } finally {
          // While the hook is still there: the release (sent asynchronously by some providers) is
          // confirmed before a signal could halt the JVM without a hook to wait for it.
          closeEngine.run();
        }
      }
    }
  }

  /**
   * Closes the engine once; a second caller (the signal hook, as the run closes it) waits for the
   * first's close to end, where the engine's own close would return at once and let the JVM halt
   * under the release it waits for.
   */
  private static Runnable closingOnce(Locksmith locksmith) {
    Object closing = new Object();
    return () -> {
      synchronized (closing) {
        locksmith.close();
      }
    };
  }

  /** Fails before anything is locked when an option or COMMAND is wrong. */
  private void checkOptions() {
    if (ttl.isZero()) {
      throw Failure.usage("--ttl must be positive, was 0s");
    }
    providerOptions.check();
    checkExitCode("--busy-exit-code", busyExitCode);
    checkExitCode("--lost-exit-code", lostExitCode);
    if (untilInterval.isZero()) {
      throw Failure.usage("--until-interval must be positive, was 0s");
    }
    if (until != null && LeasedCommand.untilShell().isEmpty()) {
      throw Failure.cannotExecute(
          "cannot run the --until test: sh is neither on PATH nor /bin/sh; nothing was locked or"
              + " run",
          null);
    }
    String program = command.get(0);
    if (Executables.find(program, System.getenv("PATH")).isEmpty()) {
      throw Failure.cannotExecute(
          "cannot run COMMAND '"
              + program
              + "': "
              + Executables.whyNot(program)
              + "; nothing was locked or run",
          null);
    }
  }

  private static void checkExitCode(String option, int code) {
    if (code < 0 || code > 255) {
      throw Failure.usage(option + " must be 0 to 255, was " + code);
    }
  }

  private Optional<Lease> acquire(Locksmith locksmith, LockProvider provider, SignalStop onSignal) {
    Optional<Lease> lease = Optional.empty();
    try {
      lease = acquire(locksmith, provider);
      return lease;
    } catch (RuntimeException e) {
      if (onSignal.isStopping()) {
        // The hook ended the wait, and has said so.
        throw Failure.stoppedBySignal("stopped by a signal while waiting for the lock");
      }
      throw e;
    } finally {
      if (lease.isEmpty()) {
        onSignal.acquireEnded();
      }
    }
  }

  private Optional<Lease> acquire(Locksmith locksmith, LockProvider provider) {
    LockOptions options = locks.options().withTtl(ttl);
    try {
      if (busy != null && busy.skip) {
        return locksmith.tryAcquire(options);
      }
      if (busy != null && busy.fail) {
        return Optional.of(locksmith.acquire(options.withOnBusy(OnBusy.FAIL)));
      }
      Duration wait =
          busy != null && busy.wait != null ? busy.wait : LockOptions.DEFAULT_WAIT_TIMEOUT;
      return Optional.of(locksmith.acquire(options.withWaitTimeout(wait)));
    } catch (LockBusyException e) {
      throw Failure.busy(
          busyExitCode,
          "lock "
              + locksNamed
              + " is busy, "
              + describeBusy(provider, e.lockIds().size() > 1 ? null : e.lockId())
              + "; wait for it with --wait, or skip quietly with --skip",
          e);
    } catch (LockTimeoutException e) {
      String outage = e.outage().orElse(null);
      if (outage != null) {
        // The provider failed until the wait ran out: an outage, not a holder.
        throw Failure.unavailable(
            "lock "
                + locksNamed
                + " not taken: the provider failed until --wait ran out ("
                + Durations.format(e.waited())
                + "): "
                + Errors.clean(outage)
                + "; check --url and that the provider is up and healthy",
            e);
      }
      throw Failure.busy(
          busyExitCode,
          "lock "
              + locksNamed
              + " still busy after waiting "
              + Durations.format(e.waited())
              + ", "
              + describeBusy(provider, e.lockId())
              + "; allow longer with --wait",
          e);
    }
  }

  /**
   * Who holds the lock, for one lock as before; over several, which lock was busy ({@code
   * busyLockId}, or the first one held elsewhere when the engine does not say) and who holds it.
   */
  private String describeBusy(LockProvider provider, @Nullable String busyLockId) {
    List<String> ids = locks.lockIds();
    if (ids.size() == 1) {
      return Holders.describe(provider, ids.get(0));
    }
    String busyId = busyLockId;
    if (busyId == null || !ids.contains(busyId)) {
      busyId =
          ids.stream()
              .filter(id -> Holders.named(Holders.describe(provider, id)))
              .findFirst()
              .orElse(null);
    }
    return busyId == null
        ? "one of them " + Holders.UNKNOWN
        : "'" + busyId + "' " + Holders.describe(provider, busyId);
  }
}
