package dev.locksmith.tcp.server;

import dev.locksmith.benchmarks.BenchmarkDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The lock server's search for the lease that ends last, which its core thread runs every 5 s to
 * lower the stored lease horizon ({@code locking-tcp/README.md}, "A restart waits"): {@link
 * ExpiryHeap#last()} against a scan of every held lease, the same entries in the same run. It sits
 * in the server's package to reach the package-private heap; the report's default {@code --include}
 * leaves it out, so it runs only when named.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class LeaseHorizonScanBenchmark extends BenchmarkDefaults {
  /** How many leases the server holds. */
  @Param({"10000", "1000000"})
  public int leases;

  private final ExpiryHeap heap = new ExpiryHeap();
  private LockEntry[] entries = new LockEntry[0];

  /**
   * Holds the leases, with ends spread over a minute, in the heap and in an array in the heap's
   * order, so the baseline reads memory as a scan of the whole heap would.
   */
  @Setup
  public void holdLeases() {
    SplittableRandom random = new SplittableRandom(18);
    List<LockEntry> held = new ArrayList<>(leases);
    for (int i = 0; i < leases; i++) {
      LockEntry entry = new LockEntry("lock-" + i);
      entry.expiresAt = random.nextLong(60_000_000_000L);
      held.add(entry);
      heap.add(entry);
    }
    entries = new LockEntry[leases];
    for (LockEntry entry : held) {
      entries[entry.heapIndex] = entry;
    }
  }

  /** What the server runs: the heap's leaves only. */
  @Benchmark
  public @Nullable LockEntry heapLast() {
    return heap.last();
  }

  /** The baseline: every held lease looked at, as before the server looked at the leaves only. */
  @Benchmark
  public @Nullable LockEntry everyLease() {
    LockEntry last = null;
    for (LockEntry entry : entries) {
      if (last == null || entry.expiresAt - last.expiresAt > 0) {
        last = entry;
      }
    }
    return last;
  }
}
