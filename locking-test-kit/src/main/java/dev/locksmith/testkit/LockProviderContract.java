package dev.locksmith.testkit;

import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;

/**
 * The base of a provider's conformance test: it supplies clients onto the store through {@link
 * #newProvider()} and closes everything a test opened. The checks themselves are in capability
 * contracts, interfaces whose default methods are the tests; the provider's test implements those
 * it can pass:
 *
 * <ul>
 *   <li>{@link BasicLeaseContract}: acquire, release, owner checks, expiry, status;
 *   <li>{@link WaitingContract}: waiting, wake-ups on release, timeouts, interruption, busy
 *       policies;
 *   <li>{@link RenewalContract}: renewal and leases shortened to their minimum hold;
 *   <li>{@link FencingContract}: fencing tokens increase across holders;
 *   <li>{@link FaultContract}: the engine's timing rules on a frozen or lossy path ({@link
 *       #newFaultyClient()});
 *   <li>{@link ShortTtlContract}: TTLs of 10 to 50 ms on a free lock;
 *   <li>{@link StoreLifecycleContract}: fencing tokens across restarts and lost state;
 *   <li>{@link FullContract}: all of them.
 * </ul>
 *
 * <pre>{@code
 * class TcpConformanceTest extends LockProviderContract implements FullContract {
 *   protected LockProvider newProvider() { return LockProviders.create(server.url()); }
 *   public StoreLifecycle storeLifecycle() { ... }
 * }
 * }</pre>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockProviderContract implements ContractFixture {
  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final String prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  /** Creates the subclass. */
  protected LockProviderContract() {}

  /**
   * A new client of the provider under test onto the shared lock store.
   *
   * @return a new client of the provider under test onto the shared lock store
   * @throws Exception when a provider call fails
   */
  protected abstract LockProvider newProvider() throws Exception;

  /**
   * Extra time past a TTL before the provider frees an abandoned lock, such as a file provider's
   * clock-skew allowance. Default: none.
   *
   * @return extra time past a TTL before the provider frees an abandoned lock, such as a file
   *     provider's clock-skew allowance
   */
  protected Duration expiryGrace() {
    return Duration.ZERO;
  }

  /**
   * The shortest TTL the provider handles well in tests. Default: 500 ms.
   *
   * @return the shortest TTL the provider handles well in tests. Default: 500 ms
   */
  protected Duration shortTtl() {
    return Duration.ofMillis(500);
  }

  /**
   * The upper bound asserted for a hand-off from a release to a waiter. Default: 1 s.
   *
   * @return the upper bound asserted for a hand-off from a release to a waiter. Default: 1 s
   */
  protected Duration maxHandOff() {
    return Duration.ofSeconds(1);
  }

  /**
   * A new client onto the shared lock store whose path a fault test controls. Network providers
   * return one behind a {@link FaultProxy} ({@link FaultyPath#through}); the default stalls the
   * answers of {@link #newProvider()} ({@link FaultyPath#stalling}), the equivalent for a provider
   * with no network. Used by {@link FaultContract}.
   *
   * @return a new client onto the shared lock store whose path a fault test controls
   * @throws Exception when a provider call fails
   */
  protected FaultyPath newFaultyClient() throws Exception {
    return FaultyPath.stalling(newProvider());
  }

  @Override
  public final ContractTimings timings() {
    return new ContractTimings(shortTtl(), expiryGrace(), maxHandOff());
  }

  @Override
  public final FaultyPath faultyClient() throws Exception {
    FaultyPath path = newFaultyClient();
    opened.add(0, path);
    return path;
  }

  // Engines probe their provider at start-up: done in build() here, so that no probe still in
  // flight takes a fault a test arms right after (a lost reply, a frozen path).

  @Override
  public final Locksmith engine(LockProvider provider, LockListener listener) {
    Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(provider)
            .listener(listener)
            .requireProvidersAtStartup(true)
            .build();
    opened.add(0, locksmith);
    return locksmith;
  }

  @Override
  public final LockProvider client() throws Exception {
    LockProvider provider = newProvider();
    opened.add(0, provider);
    return provider;
  }

  @Override
  public final LockProvider unmanagedClient() throws Exception {
    return newProvider();
  }

  @Override
  public final Locksmith engine(LockProvider provider) {
    Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).requireProvidersAtStartup(true).build();
    opened.add(0, locksmith);
    return locksmith;
  }

  @Override
  public final String lockId(String name) {
    return prefix + name;
  }

  @Override
  public final ExecutorService pool() {
    return pool;
  }

  @AfterEach
  void closeClients() throws Exception {
    pool.shutdownNow();
    // A test that failed mid-freeze leaves calls stuck on a frozen path; thawed first, the engines
    // that use it close without waiting out their shutdown timeout.
    for (AutoCloseable closeable : opened) {
      if (closeable instanceof FaultyPath path) {
        path.thaw();
      }
    }
    // Last opened, first closed (an engine before the clients it uses, so that its releases are
    // answered); each one closed even when one before it fails.
    Exception failure = null;
    for (AutoCloseable closeable : opened) {
      try {
        closeable.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
