package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Leases due together on one provider are renewed in batches ({@code renewAll}) from one thread per
 * provider, and a provider whose renewals hang delays only its own leases.
 */
class RenewalBatchingTest {
  private static final Duration TTL = Duration.ofMillis(300);

  @Test
  void aThousandLeasesRenewInBatchesFromOneThreadWithoutALoss() throws Exception {
    RoundTrips provider = new RoundTrips(MemoryLockProvider.isolated());
    Losses losses = new Losses();
    List<Lease> leases = new ArrayList<>();
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).listener(losses).build()) {
      for (int i = 0; i < 1_000; i++) {
        leases.add(locksmith.acquire(LockOptions.named("lease").withKey("k" + i).withTtl(TTL)));
      }
      int tripsBefore = provider.trips.get();
      int peakThreads = 0;
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(3);
      // Measures for 3 s, looking at the renewal threads every 10 ms.
      for (int look = 0; look < 1_000 && System.nanoTime() < end; look++) {
        peakThreads = Math.max(peakThreads, renewalThreads());
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      double tripsPerSecond = (provider.trips.get() - tripsBefore) / seconds;

      assertThat(losses.lost).as("leases lost").isEmpty();
      assertThat(leases).allMatch(Lease::isValid);
      assertThat(provider.renewed.get() / seconds)
          .as("renewals per second: each lease renews every 100 ms")
          .isGreaterThan(5_000);
      assertThat(tripsPerSecond)
          .as("renewal round trips per second, for 1,000 leases")
          .isLessThanOrEqualTo(100);
      assertThat(peakThreads).as("peak of renewal threads, one provider").isEqualTo(1);
      leases.forEach(Lease::close);
    }
  }

  @Test
  void aProviderWhoseRenewalsHangLosesOnlyItsOwnLeasesAtTheirDeadlines() throws Exception {
    RoundTrips healthy = new RoundTrips(MemoryLockProvider.isolated());
    Hanging stalled = new Hanging(MemoryLockProvider.isolated());
    Losses losses = new Losses();
    Duration ttl = Duration.ofMillis(600);
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(healthy)
            .provider("stalled", stalled)
            .listener(losses)
            .build()) {
      List<Lease> healthyLeases = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        healthyLeases.add(locksmith.acquire(LockOptions.named("ok").withKey("k" + i).withTtl(ttl)));
      }
      Map<String, Long> deadlines = new ConcurrentHashMap<>();
      List<Lease> stalledLeases = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Lease lease =
            locksmith.acquire(
                LockOptions.named("stalled").withKey("k" + i).withTtl(ttl).withProvider("stalled"));
        deadlines.put(lease.lockId(), System.nanoTime() + lease.timeLeft().toNanos());
        stalledLeases.add(lease);
      }
      try {
        await().atMost(Duration.ofSeconds(5)).until(() -> losses.lost.size() >= 10);
        int renewedBefore = healthy.renewed.get();
        // Three more ttls: the healthy provider's leases go on renewing.
        long end = System.nanoTime() + ttl.multipliedBy(3).toNanos();
        while (System.nanoTime() < end) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        assertThat(healthy.renewed.get() - renewedBefore).isGreaterThanOrEqualTo(300);
        assertThat(losses.lost.keySet()).isEqualTo(deadlines.keySet());
        for (Map.Entry<String, Long> lost : losses.lost.entrySet()) {
          long late = lost.getValue() - deadlines.get(lost.getKey());
          // At its deadline, not when the stalled call gives up: within one ttl, for a sweeper
          // thread that a loaded machine deschedules now and then.
          assertThat(Duration.ofNanos(late))
              .as("%s lost after its deadline", lost.getKey())
              .isBetween(Duration.ofMillis(-1), ttl);
        }
        assertThat(healthyLeases).allMatch(Lease::isValid);
        assertThat(stalledLeases).noneMatch(Lease::isValid);
      } finally {
        stalled.answer.countDown();
      }
      healthyLeases.forEach(Lease::close);
      stalledLeases.forEach(Lease::close);
    }
  }

  @Test
  void nineProvidersWhoseRenewalsHangDoNotStarveAHealthyOne() {
    // The engine's pool stopped at 8 threads: with eight providers hanging in a renewal, every
    // other provider's batches queued behind them and its leases were lost at their deadlines.
    RoundTrips healthy = new RoundTrips(MemoryLockProvider.isolated());
    List<Hanging> stalled = new ArrayList<>();
    LocksmithBuilder builder = Locksmith.builder().defaultProvider(healthy);
    for (int i = 0; i < 9; i++) {
      Hanging provider = new Hanging(MemoryLockProvider.isolated());
      stalled.add(provider);
      builder.provider("stalled" + i, provider);
    }
    Losses losses = new Losses();
    Duration ttl = Duration.ofMillis(600);
    try (Locksmith locksmith = builder.listener(losses).build()) {
      List<Lease> stalledLeases = new ArrayList<>();
      for (int i = 0; i < stalled.size(); i++) {
        stalledLeases.add(
            locksmith.acquire(
                LockOptions.named("stalled" + i).withTtl(ttl).withProvider("stalled" + i)));
      }
      List<Lease> healthyLeases = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        healthyLeases.add(locksmith.acquire(LockOptions.named("ok").withKey("k" + i).withTtl(ttl)));
      }
      try {
        await().atMost(Duration.ofSeconds(5)).until(() -> losses.lost.size() >= stalled.size());
        await()
            .during(ttl.multipliedBy(3))
            .atMost(ttl.multipliedBy(5))
            .until(() -> healthyLeases.stream().allMatch(Lease::isValid));
        assertThat(losses.lost.keySet())
            .containsExactlyInAnyOrderElementsOf(
                stalledLeases.stream().map(Lease::lockId).toList());
      } finally {
        stalled.forEach(provider -> provider.answer.countDown());
      }
      healthyLeases.forEach(Lease::close);
      stalledLeases.forEach(Lease::close);
    }
  }

  private static int renewalThreads() {
    return (int)
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith(EngineThreads.RENEWAL_PREFIX))
            .count();
  }

  @Test
  void anErrorThrownByABatchRenewalLeavesNoLeaseStuck() throws Exception {
    ThrowsOnce provider = new ThrowsOnce(MemoryLockProvider.isolated());
    List<Lease> leases = new ArrayList<>();
    try (Locksmith locksmith = Locksmith.builder().defaultProvider(provider).build()) {
      for (int i = 0; i < 50; i++) {
        leases.add(locksmith.acquire(LockOptions.named("lease").withKey("k" + i).withTtl(TTL)));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> provider.thrown.getCount() == 0);
      int batchesBefore = provider.batches.get();
      await("renewing in batches again")
          .atMost(Duration.ofSeconds(10))
          .until(() -> provider.batches.get() > batchesBefore);

      // A lease whose renewal was under way when the error escaped kept its provider-call lock
      // forever, so closing it hung.
      CompletableFuture<Void> closed =
          CompletableFuture.runAsync(() -> leases.forEach(Lease::close));
      closed.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anErrorThrownByAListenerAsABatchIsAnsweredLeavesNoLeaseStuck() throws Exception {
    VirtualTicker ticker = new VirtualTicker();
    ScriptedProvider provider = new ScriptedProvider(ticker);
    provider.renewAnswers.add(false); // the first lease of the batch is gone: told as lost
    LockListener failing =
        LockListener.onLost(
            (event, reason) -> {
              throw new AssertionError("a listener's bug");
            });
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).ticker(ticker).listener(failing).build()) {
      Lease first = locksmith.acquire(LockOptions.named("first").withTtl(Duration.ofSeconds(3)));
      Lease second = locksmith.acquire(LockOptions.named("second").withTtl(Duration.ofSeconds(3)));
      ticker.advance(Duration.ofMillis(1100)); // both due in one sweep: one batch
      await().atMost(Duration.ofSeconds(10)).until(() -> !first.isValid() || !second.isValid());
      Lease kept = first.isValid() ? first : second;
      // The listener's error left the batch before the other lease's renewal was ended: that
      // lease was never renewed again and lost at its first deadline, 3 s after its grant...
      await().atMost(Duration.ofSeconds(10)).until(() -> kept.timeLeft().toMillis() > 2000);
      ticker.advance(Duration.ofMillis(2400));
      assertThat(kept.isValid()).as("renewed past its first deadline").isTrue();
      // ...and it kept its provider-call lock, held by a thread that had moved on, so closing it
      // hung.
      CompletableFuture<Void> closed =
          CompletableFuture.runAsync(
              () -> {
                first.close();
                second.close();
              });
      closed.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBatchFailingOnOneLeasesRecordLosesOnlyThatLeaseAndLeavesTheProviderUp() {
    OneFaultyRecord provider = new OneFaultyRecord(MemoryLockProvider.isolated());
    Losses losses = new Losses();
    try (Locksmith locksmith =
        Locksmith.builder().defaultProvider(provider).listener(losses).build()) {
      List<Lease> healthy = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        healthy.add(locksmith.acquire(LockOptions.named("healthy").withKey("k" + i).withTtl(TTL)));
      }
      Lease faulty = locksmith.acquire(LockOptions.named("faulty").withTtl(TTL));

      await().atMost(Duration.ofSeconds(5)).until(() -> !faulty.isValid());
      // The batch's failure opened the provider's circuit: every lease of the batch went without
      // renewal and was lost, and calls on other locks failed fast.
      await()
          .during(TTL.multipliedBy(3))
          .atMost(TTL.multipliedBy(5))
          .until(() -> healthy.stream().allMatch(Lease::isValid));

      assertThat(provider.failedBatches.get()).as("batches that failed on the record").isPositive();
      assertThat(losses.lost.keySet()).containsExactly(faulty.lockId());
      assertThat(locksmith.health()).allMatch(ProviderHealth::up);
      try (Lease other = locksmith.acquire(LockOptions.named("other").withTtl(TTL))) {
        assertThat(other.isValid()).isTrue();
      }
      healthy.forEach(Lease::close);
      faulty.close();
    }
  }

  /**
   * The record of lock {@code faulty} cannot be written: its renewals fail with a {@link
   * LockRecordException}, alone or in a batch; everything else goes through.
   */
  static final class OneFaultyRecord extends ForwardingProvider {
    final AtomicInteger failedBatches = new AtomicInteger();

    OneFaultyRecord(LockProvider delegate) {
      super(delegate);
    }

    private static LockRecordException unwritable() {
      return new LockRecordException(
          "Could not renew lock 'faulty': permission denied", new java.io.IOException("EACCES"));
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      if (lease.lockId().equals("faulty")) {
        throw unwritable();
      }
      return delegate.renew(lease, ttl);
    }

    @Override
    public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
      if (requests.stream().anyMatch(r -> r.lease().lockId().equals("faulty"))) {
        failedBatches.incrementAndGet();
        throw unwritable();
      }
      return delegate.renewAll(requests);
    }
  }

  /** The first batch renewal throws an {@link Error}; everything else goes through. */
  static final class ThrowsOnce extends ForwardingProvider {
    final CountDownLatch thrown = new CountDownLatch(1);
    final AtomicInteger batches = new AtomicInteger();

    ThrowsOnce(LockProvider delegate) {
      super(delegate);
    }

    @Override
    public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
      batches.incrementAndGet();
      if (thrown.getCount() > 0) {
        thrown.countDown();
        throw new LinkageError("a class the provider needs is missing, say");
      }
      return delegate.renewAll(requests);
    }
  }

  /** Counts the renewal round trips (single or batched) and the leases renewed. */
  static final class RoundTrips extends ForwardingProvider {
    final AtomicInteger trips = new AtomicInteger();
    final AtomicInteger renewed = new AtomicInteger();

    RoundTrips(LockProvider delegate) {
      super(delegate);
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      trips.incrementAndGet();
      renewed.incrementAndGet();
      return delegate.renew(lease, ttl);
    }

    @Override
    public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
      trips.incrementAndGet();
      renewed.addAndGet(requests.size());
      return delegate.renewAll(requests);
    }
  }

  /** Renewals hang until the test answers them (at most 30 s); everything else goes through. */
  static final class Hanging extends ForwardingProvider {
    final CountDownLatch answer = new CountDownLatch(1);

    Hanging(LockProvider delegate) {
      super(delegate);
    }

    private void hang() {
      try {
        answer.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
      hang();
      return delegate.renew(lease, ttl);
    }

    @Override
    public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
      hang();
      return delegate.renewAll(requests);
    }
  }

  /** When each lock was reported lost, by lock id. */
  static final class Losses implements LockListener {
    final Map<String, Long> lost = new ConcurrentHashMap<>();

    @Override
    public void lost(LockEvent event, String reason) {
      lost.put(event.lockId(), System.nanoTime());
    }
  }
}
