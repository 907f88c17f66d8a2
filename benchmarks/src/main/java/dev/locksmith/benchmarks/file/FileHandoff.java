package dev.locksmith.benchmarks.file;

import static dev.locksmith.benchmarks.file.FileProviderBenchmark.LOCK_ID;
import static dev.locksmith.benchmarks.file.FileProviderBenchmark.OWNER;
import static dev.locksmith.benchmarks.file.FileProviderBenchmark.TTL;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.testkit.ChildJvm;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code FileProviderBenchmark handoff [rounds] [holdMillis] [urlQuery]}: hand-off time between two
 * processes under {@code WAIT}. A second JVM (a {@code ChildJvm} on this class path running {@code
 * FileProviderBenchmark holder}, its errors in a temporary log) acquires, holds for {@code
 * holdMillis}, notes the time and releases, in a loop; this JVM waits in {@code acquire} meanwhile
 * and notes when it is granted; the first tenth of the rounds is warm-up. The two JVMs take turns
 * through the second one's standard input and output, so the first is always waiting when the
 * second releases. Logs p50/p90/p99/max of release to grant. Both processes read {@link
 * System#nanoTime()}, which on Linux is {@code CLOCK_MONOTONIC} and so comparable between processes
 * of one host; a negative hand-off aborts the run.
 */
final class FileHandoff {
  private static final Logger LOG = LoggerFactory.getLogger(FileProviderBenchmark.class);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int GO = 'g';
  private static final int HELD = 'h';
  private static final int WAITING = 'w';

  private FileHandoff() {}

  /** This JVM waits while a second JVM holds and releases; logs release-to-grant percentiles. */
  static void run(int rounds, int holdMillis, String query) throws Exception {
    if (rounds < 1 || holdMillis < 0) {
      throw new IllegalArgumentException(
          "handoff needs rounds >= 1 and holdMillis >= 0, got " + rounds + " and " + holdMillis);
    }
    Path dir = Files.createTempDirectory("locksmith-file-handoff");
    String url = "file://" + dir + (query.isEmpty() ? "" : "?" + query);
    Path times = dir.resolve("release-times.txt");
    Path holderLog = Files.createTempFile("locksmith-file-holder", ".log");
    long[] granted = new long[rounds];
    long[] released;
    try (ChildJvm child =
        ChildJvm.builder(FileProviderBenchmark.class)
            .args(
                "holder",
                url,
                Integer.toString(rounds),
                Integer.toString(holdMillis),
                times.toString())
            .output(holderLog)
            .pipeStdout()
            .pipeStdin()
            .start()) {
      try (LockProvider provider = LockProviders.create(url);
          OutputStream toHolder = child.process().getOutputStream();
          InputStream fromHolder = child.process().getInputStream()) {
        for (int round = 0; round < rounds; round++) {
          signal(toHolder, GO);
          expect(fromHolder, HELD, round);
          if (provider.tryAcquire(request()).isPresent()) {
            throw new IllegalStateException("round " + round + ": the holder JVM did not hold");
          }
          // The holder waits holdMillis after this before it releases: time to start waiting.
          signal(toHolder, WAITING);
          LeaseGrant lease =
              provider
                  .acquire(request(), WAIT)
                  .orElseThrow(() -> new IllegalStateException("no grant within " + WAIT));
          granted[round] = System.nanoTime();
          if (!provider.release(lease)) {
            throw new IllegalStateException("release of " + lease + " failed");
          }
        }
      }
      if (child.awaitExit(Duration.ofSeconds(60)) != 0) {
        throw new IllegalStateException("the holder JVM failed; see its log " + holderLog);
      }
      released = Files.readAllLines(times).stream().mapToLong(Long::parseLong).toArray();
    } finally {
      FileProviderBenchmark.deleteTree(dir);
    }
    Files.delete(holderLog);
    if (released.length != rounds) {
      throw new IllegalStateException(
          "holder reported " + released.length + " releases, expected " + rounds);
    }
    // The first tenth of the rounds warms both JVMs up (JIT) and is left out of the figures.
    int warmup = rounds / 10;
    long[] handoffs = new long[rounds - warmup];
    for (int i = 0; i < rounds; i++) {
      long handoff = granted[i] - released[i];
      if (handoff < 0) {
        throw new IllegalStateException(
            "grant before release in round "
                + i
                + ": System.nanoTime() is not comparable between processes on this platform");
      }
      if (i >= warmup) {
        handoffs[i - warmup] = handoff;
      }
    }
    Arrays.sort(handoffs);
    LOG.info(
        String.format(
            "file provider hand-off (release in JVM 2 -> grant in waiting JVM 1), %d rounds"
                + " after %d warm-up rounds, hold %d ms, url query '%s': p50 %.1f us, p90 %.1f us,"
                + " p99 %.1f us, max %.1f us",
            handoffs.length,
            warmup,
            holdMillis,
            query,
            micros(percentile(handoffs, 50)),
            micros(percentile(handoffs, 90)),
            micros(percentile(handoffs, 99)),
            micros(handoffs[handoffs.length - 1])));
  }

  /** A request of its own for each provider call: a refused one is not sent again. */
  private static LockRequest request() {
    return new LockRequest(LOCK_ID, OwnerTokens.newToken(), TTL, OWNER);
  }

  private static void signal(OutputStream out, int code) throws IOException {
    out.write(code);
    out.flush();
  }

  private static void expect(InputStream in, int code, int round) throws IOException {
    int got = in.read();
    if (got != code) {
      throw new IllegalStateException(
          "round "
              + round
              + ": expected signal "
              + (char) code
              + " from the other JVM, got "
              + got);
    }
  }

  /**
   * The second JVM, driven through its standard input and output: per round, on {@code g} acquires
   * and answers {@code h}; on {@code w} (the first JVM is about to wait) holds for {@code
   * holdMillis}, notes the time and releases. Writes the release times to {@code times} at the end.
   */
  static void holder(String url, int rounds, int holdMillis, Path times) throws IOException {
    long[] released = new long[rounds];
    InputStream fromWaiter = System.in;
    try (LockProvider provider = LockProviders.create(url);
        OutputStream toWaiter = new FileOutputStream(FileDescriptor.out)) {
      for (int round = 0; round < rounds; round++) {
        expect(fromWaiter, GO, round);
        LeaseGrant lease =
            provider
                .acquire(new LockRequest(LOCK_ID, OwnerTokens.newToken(), TTL, OWNER), WAIT)
                .orElseThrow(() -> new IllegalStateException("holder got no grant"));
        signal(toWaiter, HELD);
        expect(fromWaiter, WAITING, round);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(holdMillis));
        released[round] = System.nanoTime();
        if (!provider.release(lease)) {
          throw new IllegalStateException("release of " + lease + " failed");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    StringBuilder text = new StringBuilder(rounds * 20);
    for (long time : released) {
      text.append(time).append('\n');
    }
    Files.writeString(times, text, StandardCharsets.UTF_8);
  }

  private static long percentile(long[] sorted, int percent) {
    int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static double micros(long nanos) {
    return nanos / 1_000.0;
  }
}
