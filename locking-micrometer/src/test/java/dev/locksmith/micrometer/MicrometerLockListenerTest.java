package dev.locksmith.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.memory.MemoryLockProvider;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The meters, recorded by a real engine on the in-memory provider. */
class MicrometerLockListenerTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void twoEnginesOnOneRegistryAddUpInTheActiveLeasesGauge() {
    try (Locksmith first = engine(new MicrometerLockListener(registry));
        Locksmith second = engine(new MicrometerLockListener(registry))) {
      try (Lease one = second.acquire(LockOptions.named("second-engine"))) {
        assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(1);
        try (Lease other = first.acquire(LockOptions.named("first-engine"))) {
          assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(2);
        }
      }
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isZero();
    }
  }

  @Test
  void theActiveLeasesGaugeIsRegisteredOncePerRegistryWithoutMicrometersDoubleRegistrationLine() {
    String logged =
        stderrOf(
            () -> {
              MicrometerLockListener meters = new MicrometerLockListener(registry);
              try (Locksmith first = engine(meters);
                  Locksmith second = engine(new MicrometerLockListener(registry))) {
                meters.registerProviders(List.of("reports"));
                try (Lease lease = second.acquire(LockOptions.named("counted"))) {
                  assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value())
                      .isEqualTo(1);
                }
              }
            });

    assertThat(logged).doesNotContain("has been already registered");
    assertThat(registry.find(MicrometerLockListener.ACTIVE).gauges()).hasSize(1);
  }

  /** What {@code action} writes to System.err, where slf4j-simple logs. */
  private static String stderrOf(Runnable action) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aLostLeaseLeavesTheActiveLeasesGaugeWhenItIsLostNotWhenItsHolderClosesIt() {
    // The gauge counted a lost lease as held until the holder's method returned, perhaps an hour
    // later, while another process held the lock: summed over a fleet, two holders of one lock.
    AtomicLong nanos = new AtomicLong(System.nanoTime());
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(MemoryLockProvider.isolated())
            .ticker(nanos::get)
            .listener(new MicrometerLockListener(registry))
            .build()) {
      Lease lease = locksmith.acquire(LockOptions.named("report").withTtl(Duration.ofSeconds(3)));
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(1);

      nanos.addAndGet(Duration.ofSeconds(10).toNanos()); // past its deadline, never renewed
      await()
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  registry.get(MicrometerLockListener.LOST).tag("name", "report").counter().count()
                      == 1);
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value())
          .as("leases held once the only one is lost")
          .isZero();

      lease.close();
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value())
          .as("after the lost lease is closed")
          .isZero();
      try (Lease next = locksmith.acquire(LockOptions.named("report"))) {
        assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(1);
      }
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isZero();
    }
  }

  @Test
  void aListenerToldOfEventsByAWrapperThatDoesNotForwardAttachedStillShowsItsGauge() {
    MicrometerLockListener meters = new MicrometerLockListener(registry);
    LockListener wrapper =
        new LockListener() {
          @Override
          public void acquired(LockEvent event, Duration waited) {
            meters.acquired(event, waited);
          }
        };
    try (Locksmith locksmith =
            Locksmith.builder()
                .defaultProvider(MemoryLockProvider.isolated())
                .listener(wrapper)
                .build();
        Lease lease = locksmith.acquire(LockOptions.named("wrapped"))) {
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(1);
    }
  }

  @Test
  void recordsAcquisitionsHoldsBusyAndActiveLeasesTaggedByNameNotKey() {
    try (Locksmith locksmith = engine(new MicrometerLockListener(registry))) {
      LockOptions options = LockOptions.named("invoice").withKey("customer-7");
      try (Lease lease = locksmith.acquire(options)) {
        assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isEqualTo(1);
        CompletableFuture.runAsync(
                () ->
                    assertThatThrownBy(() -> locksmith.acquire(options.withOnBusy(OnBusy.FAIL)))
                        .isInstanceOf(LockBusyException.class))
            .join();
        assertThat(lease.isValid()).isTrue();
      }
      assertThat(registry.get(MicrometerLockListener.ACTIVE).gauge().value()).isZero();
      assertThat(acquisitions("invoice")).isEqualTo(1);
      assertThat(
              registry
                  .get(MicrometerLockListener.ACQUIRE)
                  .tags("outcome", "busy", "name", "invoice")
                  .timer()
                  .count())
          .isEqualTo(1);
      assertThat(registry.get(MicrometerLockListener.HELD).tag("name", "invoice").timer().count())
          .isEqualTo(1);
      assertThat(registry.find(MicrometerLockListener.ACQUIRE).tagKeys("key").meters()).isEmpty();
      assertThat(registry.getMeters())
          .allSatisfy(m -> assertThat(m.getId().getTags().toString()).doesNotContain("customer-7"));
    }
  }

  @Test
  void aBusyAnswerIsTimedAsLongAsTheProviderTookToGiveIt() throws Exception {
    LockProvider memory = MemoryLockProvider.isolated();
    // A provider 100 ms away: each attempt takes that long to learn the lock is busy.
    LockProvider distant =
        (LockProvider)
            Proxy.newProxyInstance(
                LockProvider.class.getClassLoader(),
                new Class<?>[] {LockProvider.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("tryAcquire")) {
                    Thread.sleep(100);
                  }
                  try {
                    return method.invoke(memory, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    memory.tryAcquire(LockRequest.of("far", Duration.ofMinutes(1))).orElseThrow();
    try (Locksmith locksmith =
        Locksmith.builder()
            .defaultProvider(distant)
            .listener(new MicrometerLockListener(registry))
            .build()) {
      assertThat(locksmith.tryAcquire(LockOptions.named("far"))).isEmpty();
    }
    assertThat(
            registry
                .get(MicrometerLockListener.ACQUIRE)
                .tags("outcome", "busy", "name", "far")
                .timer()
                .totalTime(TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(100);
  }

  @Test
  void anEngineBuiltWithTheListenerHasItsProvidersMetersAtZeroAndOneWithoutHasNone() {
    SimpleMeterRegistry elsewhere = new SimpleMeterRegistry();
    try (Locksmith withMeters =
            Locksmith.builder()
                .defaultProvider(MemoryLockProvider.isolated())
                .provider("extra", MemoryLockProvider.isolated())
                .listener(new MicrometerLockListener(registry))
                .build();
        Locksmith without =
            Locksmith.builder()
                .provider("unmetered", MemoryLockProvider.isolated())
                .listener(new MicrometerLockListener(elsewhere))
                .build()) {
      for (String provider : List.of("default", "extra")) {
        assertThat(registry.get(MicrometerLockListener.LOST).tag("provider", provider).counter())
            .as("lost for %s", provider)
            .satisfies(counter -> assertThat(counter.count()).isZero());
      }
      assertThat(registry.find(MicrometerLockListener.LOST).tag("provider", "unmetered").meters())
          .as("an engine that does not report to the listener")
          .isEmpty();
      assertThat(elsewhere.get(MicrometerLockListener.LOST).tag("provider", "unmetered").counter())
          .as("that engine's own registry has them")
          .isNotNull();
    }
  }

  @Test
  void registersEveryMeterAtZeroPerProviderBeforeTheFirstEvent() {
    MicrometerLockListener listener = new MicrometerLockListener(registry);
    listener.registerProviders(List.of("default", "extra"));
    for (String provider : List.of("default", "extra")) {
      for (String meter : List.of(MicrometerLockListener.LOST, MicrometerLockListener.ERRORS)) {
        assertThat(registry.get(meter).tags("provider", provider).counter().count())
            .as("%s for %s", meter, provider)
            .isZero();
      }
      assertThat(
              registry.get(MicrometerLockListener.HELD).tag("provider", provider).timer().count())
          .isZero();
      for (String outcome : List.of("acquired", "busy", "timeout")) {
        assertThat(
                registry
                    .get(MicrometerLockListener.ACQUIRE)
                    .tags("provider", provider, "outcome", outcome)
                    .timer()
                    .count())
            .as("acquire %s for %s", outcome, provider)
            .isZero();
      }
    }
    assertThat(registry.getMeters())
        .allSatisfy(
            m -> assertThat(m.getId().getTag("name")).isIn(MicrometerLockListener.NO_NAME, null));

    try (Locksmith locksmith = engine(listener)) {
      try (Lease lease = locksmith.acquire(LockOptions.named("invoice"))) {
        assertThat(lease.isValid()).isTrue();
      }
    }
    assertThat(acquisitions("invoice")).isOne();
    assertThat(
            registry
                .get(MicrometerLockListener.ACQUIRE)
                .tags("name", MicrometerLockListener.NO_NAME, "outcome", "acquired")
                .timers())
        .as("the zero series stay at zero")
        .allSatisfy(timer -> assertThat(timer.count()).isZero());
  }

  /** An engine on an in-memory provider of its own, reporting to {@code listener}. */
  private static Locksmith engine(MicrometerLockListener listener) {
    return Locksmith.builder()
        .defaultProvider(MemoryLockProvider.isolated())
        .listener(listener)
        .build();
  }

  /** How many times the default provider granted the lock {@code name}. */
  private long acquisitions(String name) {
    return registry
        .get(MicrometerLockListener.ACQUIRE)
        .tags("name", name, "provider", "default", "outcome", "acquired")
        .timer()
        .count();
  }
}
