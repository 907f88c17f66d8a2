package dev.locksmith.aspectj.ltw;

import static org.awaitility.Awaitility.await;

import dev.locksmith.aspectj.AspectLocksmith;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The child JVM of the load-time weaving test: runs every scenario against the provider named by
 * {@code -Dlocksmith.url} and writes {@code scenario=outcome} lines to the file named by its first
 * argument. The aspect's engine comes from settings, as in a plain application.
 */
public final class LtwMain {
  private LtwMain() {}

  /** Runs the scenarios. */
  public static void main(String[] args) throws Exception {
    Map<String, String> results = new TreeMap<>();
    // At start, before any class below is used: the weaver weaves what the check loads.
    results.put("verified", String.valueOf(AspectLocksmith.verifyWeaving()));
    LtwJobs jobs = new LtwJobs();
    results.put("woven", String.valueOf(isWoven(LtwJobs.class)));
    results.put("plain", jobs.plain());
    results.put("selfInvocation", jobs.callsOwnPublic());
    results.put("private", jobs.callsPrivate());
    results.put("static", LtwJobs.staticLocked());
    results.put("key", jobs.keyed("acct-7", 3));
    long[] tokens = jobs.reentrant();
    results.put("reentrantSameToken", String.valueOf(tokens[0] == tokens[1]));

    String url = Objects.requireNonNull(System.getProperty("locksmith.url"), "locksmith.url");
    try (LockProvider provider = LockProviders.create(url);
        Locksmith otherProcess = Locksmith.builder().defaultProvider(provider).build()) {
      busyPaths(jobs, otherProcess, results);
    }

    AtomicInteger evaluations = new AtomicInteger();
    results.put(
        "twiceWovenLockId", new dev.locksmith.aspectj.LoadTimeWovenToo().locked(evaluations));
    results.put("twiceWovenEvaluations", String.valueOf(evaluations.get()));
    AtomicInteger twiceAdvised = new AtomicInteger();
    results.put("twiceAdvisedLockId", new LtwTwice().locked(twiceAdvised));
    results.put("twiceAdvisedEvaluations", String.valueOf(twiceAdvised.get()));

    Files.writeString(
        Path.of(args[0]),
        results.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    // Closes the engine created from settings: the tcp:// client's I/O thread is not a daemon.
    AspectLocksmith.reset();
  }

  private static void busyPaths(LtwJobs jobs, Locksmith otherProcess, Map<String, String> results)
      throws Exception {
    int runsBefore = jobs.runs.get();
    try (Lease held = otherProcess.acquire(LockOptions.named("ltw.busy"))) {
      results.put("skip", String.valueOf(jobs.skipping()));
      results.put("fail", outcome(jobs::failing));
      results.put("waitTimeout", outcome(jobs::waitingBriefly));
    }
    results.put("busyRuns", String.valueOf(jobs.runs.get() - runsBefore));

    Lease held = otherProcess.acquire(LockOptions.named("ltw.busy"));
    AtomicReference<Thread> caller = new AtomicReference<>();
    CompletableFuture<Long> waited =
        CompletableFuture.supplyAsync(
            () -> {
              caller.set(Thread.currentThread());
              return jobs.waiting();
            });
    awaitWaiting(caller);
    long heldToken = held.fencingToken();
    boolean doneWhileHeld = waited.isDone();
    held.close();
    long token = waited.get(30, TimeUnit.SECONDS);
    results.put("waitDoneWhileHeld", String.valueOf(doneWhileHeld));
    results.put("waitTokenAfterHolder", String.valueOf(token > heldToken));
  }

  private static void awaitWaiting(AtomicReference<Thread> caller) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Thread thread = caller.get();
              return thread != null
                  && (thread.getState() == Thread.State.WAITING
                      || thread.getState() == Thread.State.TIMED_WAITING);
            });
  }

  private static String outcome(Callable<?> call) {
    try {
      return "returned " + call.call();
    } catch (Exception e) {
      return e.getClass().getSimpleName();
    }
  }

  private static boolean isWoven(Class<?> type) {
    return Arrays.stream(type.getDeclaredMethods())
        .map(Method::getName)
        .anyMatch(name -> name.startsWith("plain_aroundBody"));
  }
}
