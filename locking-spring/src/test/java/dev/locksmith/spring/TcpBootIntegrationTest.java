package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.LockBusyException;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.micrometer.MicrometerLockListener;
import dev.locksmith.tcp.server.LockServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** The Boot starter against the TCP lock server running in-process. */
@SpringBootTest(
    classes = TcpBootIntegrationTest.App.class,
    properties = {"test.lock-name=orders", "test.ttl=10s"})
class TcpBootIntegrationTest {
  private static final LockServer SERVER = LockServer.builder().port(0).build();
  private static final int PORT = start(SERVER);

  @Autowired LockedService service;
  @Autowired Locksmith locksmith;
  @Autowired MeterRegistry meters;
  @Autowired ConfigurableApplicationContext context;

  private static int start(LockServer server) {
    try {
      return server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @DynamicPropertySource
  static void lockServer(DynamicPropertyRegistry registry) {
    registry.add("locksmith.url", () -> "tcp://127.0.0.1:" + PORT);
  }

  @AfterAll
  static void stopServer() {
    SERVER.close();
  }

  private LockProvider provider() {
    return locksmith.providers().get("");
  }

  private boolean held(String lockId) {
    return provider().status(lockId).currentHolder().isPresent();
  }

  @Test
  void advisorIsInfrastructureAndNeedsNoAspectjWeaver() {
    BeanDefinition advisor =
        context.getBeanFactory().getBeanDefinition(LockingInfrastructure.ADVISOR_BEAN_NAME);
    assertThat(advisor.getRole()).isEqualTo(BeanDefinition.ROLE_INFRASTRUCTURE);
    assertThat(context.getBean(LockingInfrastructure.ADVISOR_BEAN_NAME))
        .isInstanceOf(Advisor.class);
    assertThat(AopUtils.isAopProxy(service)).isTrue();
    assertThat(ClassUtils.isPresent("org.aspectj.weaver.Advice", getClass().getClassLoader()))
        .isFalse();
  }

  @Test
  void resolvesPlaceholdersAndBeanReferencesInKeys() {
    assertThat(service.lockId("42")).isEqualTo("orders:tenant-42");
  }

  @Test
  void secondCallerIsRefusedWhileTheFirstHolds() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> first =
        CompletableFuture.supplyAsync(() -> service.hold("7", entered, release));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(held("hold:7")).isTrue();

    assertThatThrownBy(() -> service.hold("7", new CountDownLatch(1), new CountDownLatch(0)))
        .isInstanceOf(LockBusyException.class);
    assertThat(
            meters
                .get(MicrometerLockListener.ACQUIRE)
                .tag("name", "hold")
                .tag("outcome", "busy")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(meters.get(MicrometerLockListener.ACTIVE).gauge().value()).isGreaterThanOrEqualTo(1);

    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("hold:7");
    assertThat(held("hold:7")).isFalse();
    assertThat(
            meters
                .get(MicrometerLockListener.ACQUIRE)
                .tag("name", "hold")
                .tag("outcome", "acquired")
                .tag("provider", "default")
                .timer()
                .count())
        .isEqualTo(1);
    // The hold is recorded when the server confirms the release, which may come after the return.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        meters.get(MicrometerLockListener.HELD).tag("name", "hold").timer().count())
                    .isEqualTo(1));
    assertThat(meters.find(MicrometerLockListener.ACQUIRE).tagKeys("key").meters()).isEmpty();
  }

  @Test
  void lostLeaseIsCounted() {
    assertThat(service.outlive()).isFalse();
    // A lease is invalid from its deadline on; the lost event follows on the thread that sees it.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(meters.find(MicrometerLockListener.LOST).tag("name", "short").counters())
                    .singleElement()
                    .satisfies(c -> assertThat(c.count()).isEqualTo(1)));
  }

  @Test
  void completionStageHoldsUntilItCompletes() throws Exception {
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletableFuture<String> result = service.stage(gate);
    assertThat(held("stage")).isTrue();
    gate.complete("done");
    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
    await().atMost(Duration.ofSeconds(10)).until(() -> !held("stage"));
  }

  @Test
  void monoHoldsFromSubscriptionToItsValue() throws Exception {
    Sinks.One<String> sink = Sinks.one();
    Mono<String> mono = service.mono(sink);
    assertThat(held("mono")).as("nothing is taken before subscription").isFalse();
    CompletableFuture<String> result = mono.toFuture();
    await().atMost(Duration.ofSeconds(10)).until(() -> held("mono"));
    sink.tryEmitValue("value");
    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("value");
    await().atMost(Duration.ofSeconds(10)).until(() -> !held("mono"));
  }

  @Test
  void monoReleasesOnCancellation() {
    Disposable subscription = service.mono(Sinks.one()).subscribe();
    await().atMost(Duration.ofSeconds(10)).until(() -> held("mono"));
    subscription.dispose();
    await().atMost(Duration.ofSeconds(10)).until(() -> !held("mono"));
  }

  @Test
  void fluxHoldsUntilItCompletes() throws Exception {
    Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer();
    CompletableFuture<java.util.List<Integer>> result = service.flux(sink).collectList().toFuture();
    await().atMost(Duration.ofSeconds(10)).until(() -> held("flux"));
    sink.tryEmitNext(1);
    sink.tryEmitNext(2);
    assertThat(held("flux")).isTrue();
    sink.tryEmitComplete();
    assertThat(result.get(10, TimeUnit.SECONDS)).containsExactly(1, 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> !held("flux"));
  }

  @Test
  void asyncStaysOutsideTheLock() throws Exception {
    String caller = Thread.currentThread().getName();
    CompletableFuture<String> seenBy = new CompletableFuture<>();
    service.async(seenBy);
    String seen = seenBy.get(10, TimeUnit.SECONDS);
    assertThat(seen).startsWith("async@").doesNotEndWith("@" + caller);
  }

  @Test
  void healthIsUpPerProvider() {
    CompositeHealthContributor health =
        context.getBean("locksmithHealthContributor", CompositeHealthContributor.class);
    HealthIndicator indicator = (HealthIndicator) health.getContributor("default");
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
    assertThat(indicator.health().getDetails().get("provider").toString()).contains("127.0.0.1");
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableAsync
  static class App {
    @Bean
    LockedService lockedService() {
      return new LockedService();
    }

    @Bean
    Keys keys() {
      return new Keys();
    }
  }

  /** Referenced from key expressions as {@code @keys}. */
  public static class Keys {
    public String prefix() {
      return "tenant-";
    }
  }

  /** The locked bean. */
  public static class LockedService {
    @DistributedLock(name = "${test.lock-name}", key = "@keys.prefix() + #id", ttl = "${test.ttl}")
    public String lockId(String id) {
      return Locks.current().lockId();
    }

    @DistributedLock(name = "hold", key = "#id", onBusy = OnBusy.FAIL)
    public String hold(String id, CountDownLatch entered, CountDownLatch release) {
      entered.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Locks.current().lockId();
    }

    /** Runs past its unrenewed lease; returns whether the lease was still valid at the end. */
    @DistributedLock(name = "short", ttl = "300ms", renew = false)
    public boolean outlive() {
      Lease lease = Locks.current();
      await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
      return lease.isValid();
    }

    @DistributedLock(name = "stage", onBusy = OnBusy.FAIL)
    public CompletableFuture<String> stage(CompletableFuture<String> gate) {
      return gate.thenApply(v -> v);
    }

    @DistributedLock(name = "mono", onBusy = OnBusy.FAIL)
    public Mono<String> mono(Sinks.One<String> sink) {
      return sink.asMono();
    }

    @DistributedLock(name = "flux", onBusy = OnBusy.FAIL)
    public Flux<Integer> flux(Sinks.Many<Integer> sink) {
      return sink.asFlux();
    }

    @Async
    @DistributedLock(name = "async", onBusy = OnBusy.FAIL)
    public void async(CompletableFuture<String> seenBy) {
      Optional<Lease> lease = Locks.currentIfAny();
      seenBy.complete(
          lease.map(Lease::name).orElse("none") + "@" + Thread.currentThread().getName());
    }
  }
}
