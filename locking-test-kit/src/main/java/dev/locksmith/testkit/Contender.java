package dev.locksmith.testkit;

import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The main class of a contender JVM started by {@link MultiProcessHarness}: takes a lock through a
 * provider URL again and again, and in each critical section does a read-modify-write of a plain
 * counter file, appending {@code pid token start end} to its own record file.
 *
 * <p>Arguments: {@code URL LOCK_ID ITERATIONS COUNTER_FILE RECORD_FILE TTL}.
 */
public final class Contender {
  private Contender() {}

  /**
   * Runs the contender; exits 0 when every section ran, 1 otherwise.
   *
   * @param args {@code URL} and the contender's settings, as the harness passes them
   * @throws Exception when a provider call fails
   */
  public static void main(String[] args) throws Exception {
    String url = args[0];
    String lockId = args[1];
    int iterations = Integer.parseInt(args[2]);
    Path counter = Path.of(args[3]);
    Path records = Path.of(args[4]);
    Duration ttl = Duration.parse(args[5]);
    long pid = ProcessHandle.current().pid();
    LockOptions options =
        LockOptions.named(lockId).withTtl(ttl).withWaitTimeout(Duration.ofMinutes(2));
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(LockProviders.create(url)).build()) {
      for (int i = 0; i < iterations; i++) {
        locksmith.run(
            options,
            () -> {
              long start = System.nanoTime();
              long token = Locks.current().fencingToken();
              increment(counter);
              Locks.current().checkValid();
              long end = System.nanoTime();
              Files.writeString(
                  records,
                  new CriticalSection(pid, token, start, end).toLine() + "\n",
                  StandardCharsets.UTF_8,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.APPEND);
            });
      }
    }
    System.exit(0);
  }

  /** A deliberately unsafe read-modify-write: only the lock keeps updates from being lost. */
  static void increment(Path counter) throws IOException {
    String text = Files.exists(counter) ? Files.readString(counter).strip() : "";
    long value = text.isEmpty() ? 0 : Long.parseLong(text);
    LockSupport.parkNanos(100_000);
    Files.writeString(counter, Long.toString(value + 1));
  }
}
