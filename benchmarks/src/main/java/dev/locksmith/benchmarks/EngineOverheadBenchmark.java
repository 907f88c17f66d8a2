package dev.locksmith.benchmarks;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.memory.MemoryLockProvider;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine's added cost per uncontended annotated call on the in-memory provider, against a
 * direct call of the same method in the same run. The interceptor is simulated as an integration
 * builds it: one {@link LockedInvocation} per call whose {@code proceed} calls the method directly.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class EngineOverheadBenchmark extends BenchmarkDefaults {
  /** The annotated service. */
  public static class Accounts {
    private long balance;

    /** A locked call keyed by an argument: SpEL evaluation on every call. */
    @DistributedLock(key = "#accountId", ttl = "30s")
    public long deposit(String accountId, long cents) {
      balance += cents;
      return balance;
    }

    /** A locked call without a key. */
    @DistributedLock(ttl = "30s")
    public long sweep(long cents) {
      balance += cents;
      return balance;
    }
  }

  private final Accounts accounts = new Accounts();
  private Locksmith locksmith;
  private Method deposit;
  private Method sweep;

  /** Builds the engine and validates the methods up front, as a framework does at start-up. */
  @Setup(Level.Trial)
  public void setUp() throws NoSuchMethodException {
    locksmith = Locksmith.builder().defaultProvider(MemoryLockProvider.isolated()).build();
    deposit = Accounts.class.getMethod("deposit", String.class, long.class);
    sweep = Accounts.class.getMethod("sweep", long.class);
    locksmith.validate(Accounts.class);
  }

  /** Stops the engine. */
  @TearDown(Level.Trial)
  public void tearDown() {
    locksmith.close();
  }

  /** The baseline: the method called directly. */
  @Benchmark
  public long direct() {
    return accounts.deposit("acct-1", 1);
  }

  /** The method through the engine, keyed by SpEL. */
  @Benchmark
  public @Nullable Object lockedWithKey() throws Throwable {
    return locksmith.invoke(new Call(deposit, () -> accounts.deposit("acct-1", 1), "acct-1", 1L));
  }

  /** The method through the engine, without a key. */
  @Benchmark
  public @Nullable Object lockedWithoutKey() throws Throwable {
    return locksmith.invoke(new Call(sweep, () -> accounts.sweep(1), 1L));
  }

  private interface Body {
    Object run() throws Throwable;
  }

  private record Call(Method method, Body body, @Nullable Object... arguments)
      implements LockedInvocation {
    @Override
    public Class<?> targetClass() {
      return Accounts.class;
    }

    @Override
    public @Nullable Object proceed() throws Throwable {
      return body.run();
    }
  }
}
