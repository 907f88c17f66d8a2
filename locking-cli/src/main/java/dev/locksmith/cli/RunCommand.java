package dev.locksmith.cli;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.LockTimeoutException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code locksmith run}: flock(1) for many hosts. */
@Command(
    name = "run",
    description = {
      "Runs COMMAND while holding a lease on KEY, renewed while it runs.",
      "COMMAND gets LOCKSMITH_LOCK, LOCKSMITH_FENCING_TOKEN and LOCKSMITH_OWNER in its environment.",
      "If the lease is lost, COMMAND gets SIGTERM, then SIGKILL after --grace, and run exits 70."
    },
    mixinStandardHelpOptions = true,
    exitCodeOnInvalidInput = ExitCodes.USAGE)
final class RunCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--url",
      required = true,
      description = "Provider URL: file:///dir, tcp://host:7420, redis://host:6379, mem:")
  String url;

  @Option(names = "--key", required = true, description = "The lock's name.")
  String key;

  @Option(
      names = "--ttl",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description = "Lease length, renewed every third of it (default: ${DEFAULT-VALUE}).")
  Duration ttl;

  @ArgGroup(exclusive = true)
  @Nullable BusyPolicy busy;

  static final class BusyPolicy {
    @Option(
        names = "--wait",
        converter = DurationConverter.class,
        description = "When busy, wait up to this long (default: 30s), then exit 75.")
    @Nullable Duration wait;

    @Option(names = "--skip", description = "When busy, run nothing and exit 0.")
    boolean skip;

    @Option(names = "--fail", description = "When busy, exit 75 at once.")
    boolean fail;
  }

  @Option(
      names = "--until",
      description =
          "After COMMAND exits, keep the lock until this shell test succeeds"
              + " (for work that finishes in the background).")
  @Nullable String until;

  @Option(
      names = "--until-interval",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How often --until is checked (default: ${DEFAULT-VALUE}).")
  Duration untilInterval;

  @Option(
      names = "--grace",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description =
          "Time between SIGTERM and SIGKILL when the lease is lost (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Parameters(
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments.")
  List<String> command;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    LockProvider provider;
    try {
      provider = LockProviders.create(url);
    } catch (LockConfigurationException e) {
      err.println("locksmith: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (LockProviderException e) {
      err.println("locksmith: provider unreachable: " + e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
    CompletableFuture<String> lost = new CompletableFuture<>();
    LockListener onLost =
        new LockListener() {
          @Override
          public void lost(LockEvent event, String reason) {
            lost.complete(reason);
          }
        };
    try (provider;
        Locksmith locksmith =
            Locksmith.builder().defaultProvider(provider).listener(onLost).build()) {
      Optional<Lease> lease;
      try {
        lease = acquire(locksmith);
      } catch (LockBusyException | LockTimeoutException e) {
        err.println("locksmith: " + e.getMessage() + Holders.describe(provider, key));
        return ExitCodes.BUSY;
      } catch (LockProviderException e) {
        err.println("locksmith: provider unreachable: " + e.getMessage());
        return ExitCodes.UNAVAILABLE;
      }
      if (lease.isEmpty()) {
        err.println("skipped:" + Holders.describe(provider, key));
        return ExitCodes.SKIPPED;
      }
      try (Lease held = lease.get()) {
        return runHolding(held, lost, err);
      }
    }
  }

  private Optional<Lease> acquire(Locksmith locksmith) {
    LockOptions options = LockOptions.named(key).withTtl(ttl);
    if (busy != null && busy.skip) {
      return locksmith.tryAcquire(options);
    }
    if (busy != null && busy.fail) {
      return Optional.of(locksmith.acquire(options.withOnBusy(OnBusy.FAIL)));
    }
    Duration wait =
        busy != null && busy.wait != null ? busy.wait : LockOptions.DEFAULT_WAIT_TIMEOUT;
    return Optional.of(locksmith.acquire(options.withWaitTimeout(wait)));
  }

  private int runHolding(Lease lease, CompletableFuture<String> lost, PrintWriter err) {
    Process process;
    try {
      ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
      Map<String, String> env = builder.environment();
      env.put("LOCKSMITH_LOCK", lease.lockId());
      env.put("LOCKSMITH_FENCING_TOKEN", Long.toString(lease.fencingToken()));
      env.put("LOCKSMITH_OWNER", lease.ownerToken());
      process = builder.start();
    } catch (IOException e) {
      err.println("locksmith: cannot run " + command.get(0) + ": " + e.getMessage());
      return ExitCodes.CANNOT_EXECUTE;
    }
    // Stopped ourselves (Ctrl-C, SIGTERM): stop COMMAND, then release so other hosts need not
    // wait out the TTL.
    Thread hook =
        new Thread(
            () -> {
              ChildProcesses.terminate(process, grace);
              lease.close();
            },
            "locksmith-run-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      CompletableFuture.anyOf(process.onExit(), lost).join();
      if (lost.isDone()) {
        err.println("locksmith: lease on '" + key + "' lost (" + lost.join() + "); stopping");
        ChildProcesses.terminate(process, grace);
        return ExitCodes.LEASE_LOST;
      }
      int exit = process.exitValue();
      if (until != null && !holdUntil(lost, err)) {
        return ExitCodes.LEASE_LOST;
      }
      return exit;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running already.
      }
    }
  }

  /** Keeps the lease until {@code --until} succeeds; false if the lease is lost first. */
  private boolean holdUntil(CompletableFuture<String> lost, PrintWriter err) {
    while (true) {
      try {
        Process test = new ProcessBuilder("sh", "-c", until).inheritIO().start();
        if (test.waitFor() == 0) {
          return true;
        }
      } catch (IOException e) {
        err.println("locksmith: cannot run --until test: " + e.getMessage());
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return true;
      }
      try {
        String reason = lost.get(untilInterval.toNanos(), TimeUnit.NANOSECONDS);
        err.println("locksmith: lease on '" + key + "' lost while waiting for --until: " + reason);
        return false;
      } catch (TimeoutException stillHeld) {
        // Check the test again.
      } catch (InterruptedException | ExecutionException e) {
        Thread.currentThread().interrupt();
        return true;
      }
    }
  }
}
