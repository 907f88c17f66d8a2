package dev.locksmith.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 10,000 virtual threads contend for 100 locks through one engine over one provider client, each
 * taking its key's lock once (WAIT) and giving it back: every one is granted with no error, no two
 * holders of a key overlap, each key's fencing tokens rise grant after grant, no virtual thread
 * pins its carrier (JFR's {@code jdk.VirtualThreadPinned}, any duration), and the run adds at most
 * {@value #PLATFORM_THREAD_BOUND} platform threads. A smaller run first loads the classes of most
 * paths; a pin while loading or initialising a class, while waiting for another thread to
 * initialise one, or while linking an {@code invokedynamic} call site (a string concatenation or a
 * lambda met for the first time: JDK limitations, once per class or call site) is counted apart and
 * allowed.
 */
class VirtualThreadsTest {
  private static final int THREADS = 10_000;
  private static final int KEYS = 100;
  private static final int PLATFORM_THREAD_BOUND = 64;
  private static final Duration BOUND = Duration.ofMinutes(4);
  private static final LockOptions OPTIONS =
      LockOptions.named("vt")
          .withTtl(Duration.ofSeconds(30))
          .withOnBusy(OnBusy.WAIT)
          .withWaitTimeout(BOUND);

  @TempDir Path dir;

  /** What one run of contending threads saw. */
  private record Outcome(
      int granted,
      int overlaps,
      int lostUpdates,
      int tokenFaults,
      List<String> errors,
      long millis) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(Store.class)
  void tenThousandVirtualThreadsOnAHundredKeysAreAllGranted(Store store) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    List<String> pinned = new ArrayList<>();
    Outcome outcome;
    int linkingPins = 0;
    int platformBefore;
    int platformPeak;
    try (Store.Running running = store.start(Files.createDirectories(dir));
        Locksmith locksmith =
            Locksmith.builder().defaultProvider(LockProviders.create(running.url())).build();
        Recording pins = new Recording()) {
      Outcome warmUp = contend(locksmith, "warm-up-", 200, 10);
      assertThat(warmUp.errors()).as("errors of the warm-up run").isEmpty();
      // A virtual thread that needs a class another thread is loading waits pinned, and JFR's
      // stack then ends at the instruction that needs it, which the filter below cannot tell from
      // a wait of Locksmith's: the warm-up's background work (Redis channels lingering after their
      // last waiter) ends first, so that its classes are loaded before the measured run.
      running.settle();
      pins.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      pins.start();
      platformBefore = threads.getThreadCount();
      threads.resetPeakThreadCount();
      outcome = contend(locksmith, "k", THREADS, KEYS);
      platformPeak = threads.getPeakThreadCount();
      pins.stop();
      Path recorded = dir.resolve("pins.jfr");
      pins.dump(recorded);
      for (RecordedEvent event : RecordingFile.readAllEvents(recorded)) {
        if (event.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
          if (linking(event)) {
            linkingPins++;
          } else {
            pinned.add(describe(event));
          }
        }
      }
    }
    System.out.printf(
        "virtual threads on %s: %d of %d granted on %d keys in %d ms, platform threads %d ->"
            + " peak %d, %d pinned (and %d while linking a class or call site), %d errors%n",
        store,
        outcome.granted(),
        THREADS,
        KEYS,
        outcome.millis(),
        platformBefore,
        platformPeak,
        pinned.size(),
        linkingPins,
        outcome.errors().size());
    assertThat(outcome.errors()).as("errors").isEmpty();
    assertThat(outcome.granted()).isEqualTo(THREADS);
    assertThat(outcome.overlaps()).as("overlapping holders of a key").isZero();
    assertThat(outcome.lostUpdates()).as("updates lost under a key's lock").isZero();
    assertThat(outcome.tokenFaults()).as("fencing tokens not rising per key").isZero();
    assertThat(pinned).as("carriers pinned").isEmpty();
    assertThat(platformPeak - platformBefore)
        .as("platform threads added (peak %d, before %d)", platformPeak, platformBefore)
        .isLessThanOrEqualTo(PLATFORM_THREAD_BOUND);
  }

  /** {@code count} virtual threads, thread i taking key {@code prefix + i % keys} once. */
  private static Outcome contend(Locksmith locksmith, String prefix, int count, int keys)
      throws InterruptedException {
    Queue<String> errors = new ConcurrentLinkedQueue<>();
    AtomicIntegerArray inside = new AtomicIntegerArray(keys);
    AtomicLongArray lastToken = new AtomicLongArray(keys);
    int[] updates = new int[keys];
    AtomicInteger granted = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger tokenFaults = new AtomicInteger();
    long started = System.nanoTime();
    ExecutorService virtual = VirtualThreads.perTaskExecutor();
    for (int i = 0; i < count; i++) {
      int key = i % keys;
      virtual.execute(
          () -> {
            try (Lease lease = locksmith.acquire(OPTIONS.withKey(prefix + key))) {
              if (inside.incrementAndGet(key) != 1) {
                overlaps.incrementAndGet();
              }
              // A read-modify-write with a yield inside: a second holder of the key would run in
              // between and an update would be lost.
              int seen = updates[key];
              Thread.yield();
              updates[key] = seen + 1;
              if (lease.fencingToken() <= lastToken.get(key)) {
                tokenFaults.incrementAndGet();
              }
              lastToken.set(key, lease.fencingToken());
              granted.incrementAndGet();
              inside.decrementAndGet(key);
            } catch (RuntimeException | Error e) {
              errors.add(e.toString());
            }
          });
    }
    virtual.shutdown();
    if (!virtual.awaitTermination(BOUND.toSeconds() + 60, TimeUnit.SECONDS)) {
      errors.add("not every thread finished within " + BOUND + " and a minute");
      virtual.shutdownNow();
    }
    int lostUpdates = 0;
    for (int key = 0; key < keys; key++) {
      int holders = count / keys + (key < count % keys ? 1 : 0);
      lostUpdates += holders - updates[key];
    }
    return new Outcome(
        granted.get(),
        overlaps.get(),
        lostUpdates,
        tokenFaults.get(),
        List.copyOf(errors),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  /**
   * Whether the thread pinned while loading or initialising a class, while waiting for another
   * thread to initialise one (JFR's pinned reason says so; the stack then ends at the {@code new}
   * that needs the class), or while linking an {@code invokedynamic} call site, whose bootstrap
   * runs in a critical section of the JDK's: limitations met once per class or call site, not waits
   * of Locksmith's.
   */
  private static boolean linking(RecordedEvent event) {
    String reason = pinnedReason(event);
    if (reason.startsWith("Waited for initialization of") || reason.contains(".<clinit>")) {
      return true;
    }
    var stack = event.getStackTrace();
    return stack != null
        && stack.getFrames().stream()
            .anyMatch(
                frame -> {
                  String type = frame.getMethod().getType().getName();
                  String method = frame.getMethod().getName();
                  return method.equals("<clinit>")
                      || type.equals("java.lang.ClassLoader") && method.equals("loadClass")
                      || type.equals("java.lang.invoke.MethodHandleNatives")
                          && method.startsWith("link")
                      || type.equals("java.lang.invoke.BootstrapMethodInvoker");
                });
  }

  private static String pinnedReason(RecordedEvent event) {
    return event.hasField("pinnedReason") && event.getString("pinnedReason") != null
        ? event.getString("pinnedReason")
        : "";
  }

  private static String describe(RecordedEvent event) {
    var stack = event.getStackTrace();
    return event.getDuration()
        + " ("
        + pinnedReason(event)
        + ") at "
        + (stack == null
            ? "?"
            : stack.getFrames().stream().limit(12).map(Object::toString).toList()
                + " ... first Locksmith frame "
                + stack.getFrames().stream()
                    .filter(f -> f.getMethod().getType().getName().startsWith("dev.locksmith"))
                    .findFirst()
                    .map(Object::toString)
                    .orElse("none"));
  }
}
