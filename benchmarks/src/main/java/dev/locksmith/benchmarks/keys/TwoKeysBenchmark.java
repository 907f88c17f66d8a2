package dev.locksmith.benchmarks.keys;

import dev.locksmith.benchmarks.BenchmarkDefaults;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One uncontended lock+unlock of two accounts, as a transfer takes them: one engine call over both
 * keys ({@link LockOptions#withKeys}) against the baseline of two nested single-key calls, the way
 * users wrote it before several keys were one annotation. A subclass names the provider.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class TwoKeysBenchmark extends BenchmarkDefaults {
  private static final LockOptions TRANSFER = LockOptions.named("transfer");
  private static final LockOptions FROM = TRANSFER.withKey("account-1");
  private static final LockOptions TO = TRANSFER.withKey("account-2");
  private static final LockOptions BOTH = TRANSFER.withKeys("account-1", "account-2");

  private @Nullable Locksmith locksmith;

  /** Starts the provider's server and returns a client of it. */
  abstract LockProvider startProvider() throws Exception;

  /** Stops what {@link #startProvider} started, after the engine closed the client. */
  abstract void stopServer() throws Exception;

  /** Starts the server and an engine over it, once per fork. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    locksmith = Locksmith.builder().defaultProvider(startProvider()).build();
  }

  /** Closes the engine (and its client), then the server. */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (locksmith != null) {
      locksmith.close();
    }
    stopServer();
  }

  /** The baseline: the first account's lock, then inside it the second's. */
  @Benchmark
  public long nestedBaseline() {
    Locksmith engine = engine();
    try (Lease from = engine.acquire(FROM);
        Lease to = engine.acquire(TO)) {
      return from.fencingToken() + to.fencingToken();
    }
  }

  /** Both accounts' locks in one call over two keys. */
  @Benchmark
  public long twoKeys() {
    try (Lease both = engine().acquire(BOTH)) {
      return both.lease("account-1").fencingToken() + both.lease("account-2").fencingToken();
    }
  }

  private Locksmith engine() {
    Locksmith engine = locksmith;
    if (engine == null) {
      throw new IllegalStateException("not set up");
    }
    return engine;
  }
}
