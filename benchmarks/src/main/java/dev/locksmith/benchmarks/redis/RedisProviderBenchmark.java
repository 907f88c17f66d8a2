package dev.locksmith.benchmarks.redis;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.internal.LockedInvocation;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.redis.RedisLockOptions;
import dev.locksmith.redis.RedisLockProvider;
import dev.locksmith.testkit.redis.RedisServerProcess;
import dev.locksmith.testkit.redis.TestRedis;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * One uncontended lock+unlock, side by side against the same local {@code redis-server} (started by
 * the benchmark on a free port): Locksmith through the engine on a {@code @DistributedLock} method,
 * the raw floor of the provider's two scripts over the same Redisson client, Redisson {@code
 * RLock}, ShedLock's Spring Data Redis provider (default and {@code safeUpdate}) and Spring
 * Integration's {@code RedisLockRegistry}, both over Lettuce. The floor is the baseline.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisProviderBenchmark {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final String PREFIX = "bench";

  /** The annotated service. */
  public static class Jobs {
    private long runs;

    /** A locked call without a key, leased for 30 s and renewed while it runs. */
    @DistributedLock(name = "locksmith", ttl = "30s")
    public long run() {
      return ++runs;
    }
  }

  private final Jobs jobs = new Jobs();
  private @Nullable RedisServerProcess redis;
  private @Nullable RedissonClient redisson;
  private @Nullable LettuceConnectionFactory lettuce;
  private @Nullable Locksmith locksmith;
  private @Nullable RedisLockRegistry registry;
  private Method run;
  private FloorScripts floor;

  /** How many lock ids {@link #rawFloorReleaseAsync} takes turns over (a power of two). */
  static final int ASYNC_FLOOR_LOCKS = 64;

  private final FloorScripts[] asyncFloors = new FloorScripts[ASYNC_FLOOR_LOCKS];
  private final @Nullable CompletableFuture<Boolean>[] asyncFloorReleases =
      newReleases(ASYNC_FLOOR_LOCKS);
  private int asyncFloorTurn;
  private String floorOwner;
  private RLock rlock;
  private Lock registryLock;
  private net.javacrumbs.shedlock.core.LockProvider shedLock;
  private net.javacrumbs.shedlock.core.LockProvider shedLockSafe;

  /** Starts redis-server and every client, once per fork. */
  @Setup(Level.Trial)
  public void setUp() throws NoSuchMethodException {
    RedisServerProcess server = TestRedis.startDedicated();
    redis = server;
    RedissonClient client = RedisClients.create(server.url(), 4);
    redisson = client;
    locksmith =
        Locksmith.builder()
            .defaultProvider(RedisLockProvider.create(client, new RedisLockOptions(PREFIX)))
            .build();
    run = Jobs.class.getMethod("run");
    locksmith.validate(Jobs.class);
    floor = new FloorScripts(client, PREFIX, "floor");
    for (int i = 0; i < ASYNC_FLOOR_LOCKS; i++) {
      asyncFloors[i] = new FloorScripts(client, PREFIX, "async-floor-" + i);
    }
    floorOwner = OwnerTokens.describeCaller();
    rlock = client.getLock("bench:rlock");

    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(server.host(), server.port()));
    factory.afterPropertiesSet();
    factory.start();
    lettuce = factory;
    shedLock =
        new net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider.Builder(factory)
            .environment("bench")
            .build();
    shedLockSafe =
        new net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider.Builder(factory)
            .environment("bench-safe")
            .safeUpdate(true)
            .build();
    RedisLockRegistry lockRegistry = new RedisLockRegistry(factory, "bench-registry", TTL);
    registry = lockRegistry;
    registryLock = lockRegistry.obtain("registry");
  }

  /** The server every lock of this benchmark uses, once set up. */
  RedisServerProcess server() {
    return requireNonNull(redis);
  }

  /** Stops the clients and redis-server. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (registry != null) {
      registry.destroy();
    }
    if (lettuce != null) {
      lettuce.destroy();
    }
    if (locksmith != null) {
      locksmith.close();
    }
    if (redisson != null) {
      redisson.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  /** The baseline: the provider's acquire script, then its release script. */
  @Benchmark
  public boolean rawFloor() {
    String token = OwnerTokens.newToken();
    long fence = floor.acquire(token, TTL.toMillis(), floorOwner);
    if (fence < 0) {
      throw new IllegalStateException("floor lock is held by another owner");
    }
    return floor.release(token, fence);
  }

  /**
   * The least a lock whose release is off the caller's path can cost over this client: the
   * provider's acquire script, awaited, then its release script sent without waiting, with nothing
   * around them. The locks take turns over {@link #ASYNC_FLOOR_LOCKS} lock ids; one whose last
   * release is still unanswered is waited for first, as the engine orders an acquire after an
   * in-flight release of the same lock.
   */
  @Benchmark
  public CompletableFuture<Boolean> rawFloorReleaseAsync() {
    int slot = asyncFloorTurn++ & (ASYNC_FLOOR_LOCKS - 1);
    CompletableFuture<Boolean> previous = asyncFloorReleases[slot];
    if (previous != null) {
      previous.join();
    }
    String token = OwnerTokens.newToken();
    FloorScripts lock = asyncFloors[slot];
    long fence = lock.acquire(token, TTL.toMillis(), floorOwner);
    if (fence < 0) {
      throw new IllegalStateException("floor lock is held by another owner");
    }
    CompletableFuture<Boolean> release = lock.releaseAsync(token, fence);
    asyncFloorReleases[slot] = release;
    return release;
  }

  /**
   * One round trip through the same Redisson client (a {@code GET} of a missing key): the floor of
   * any Redis call from Java here. A lock+unlock that waits for both replies costs at least two;
   * one whose release is off the caller's path, one.
   */
  @Benchmark
  public @Nullable Object oneRoundTrip() {
    return requireNonNull(redisson).getBucket("bench:round-trip").get();
  }

  /** Locksmith: an annotated call through the engine, as an interceptor makes it. */
  @Benchmark
  public @Nullable Object locksmithAnnotated() throws Throwable {
    return requireNonNull(locksmith).invoke(new Call(run, jobs));
  }

  /** Redisson {@code RLock.lock()} (watchdog renewal) and {@code unlock()}. */
  @Benchmark
  public void redissonRLock() {
    rlock.lock();
    rlock.unlock();
  }

  /** ShedLock's Redis provider with its defaults: {@code SET NX PX}, then {@code DEL}. */
  @Benchmark
  public void shedLock() {
    lockShed(shedLock);
  }

  /** ShedLock's Redis provider with {@code safeUpdate}: owner-checked unlock. */
  @Benchmark
  public void shedLockSafeUpdate() {
    lockShed(shedLockSafe);
  }

  /** Spring Integration {@code RedisLockRegistry} lock and unlock (default spin-lock type). */
  @Benchmark
  public void springIntegrationRegistry() {
    registryLock.lock();
    registryLock.unlock();
  }

  private static void lockShed(net.javacrumbs.shedlock.core.LockProvider provider) {
    SimpleLock lock =
        provider
            .lock(new LockConfiguration(Instant.now(), "shedlock", TTL, Duration.ZERO))
            .orElseThrow(() -> new IllegalStateException("shedlock lock is held"));
    lock.unlock();
  }

  private static <T> T requireNonNull(@Nullable T value) {
    if (value == null) {
      throw new IllegalStateException("not set up");
    }
    return value;
  }

  private record Call(Method method, Jobs jobs) implements LockedInvocation {
    @Override
    public Class<?> targetClass() {
      return Jobs.class;
    }

    @Override
    public @Nullable Object[] arguments() {
      return new Object[0];
    }

    @Override
    public @Nullable Object proceed() {
      return jobs.run();
    }
  }

  @SuppressWarnings("unchecked")
  private static @Nullable CompletableFuture<Boolean>[] newReleases(int size) {
    return (@Nullable CompletableFuture<Boolean>[]) new CompletableFuture<?>[size];
  }
}
