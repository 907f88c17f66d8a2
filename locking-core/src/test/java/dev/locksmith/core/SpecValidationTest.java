package dev.locksmith.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.AnnotatedMethods;
import dev.locksmith.core.memory.MemoryLockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class SpecValidationTest {
  private final Locksmith locksmith =
      Locksmith.builder()
          .keyLanguage(ConcatKeys.LANGUAGE)
          .defaultProvider(MemoryLockProvider.isolated())
          .provider("backup", MemoryLockProvider.isolated())
          .build();

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @DistributedLock(name = "orders", ttl = "1s", onBusy = OnBusy.SKIP)
  @interface OrderLock {}

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @DistributedLock(name = "billing", ttl = "5m", onBusy = OnBusy.FAIL)
  @interface BillingLock {}

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @OrderLock
  @interface AlsoOrderLock {}

  static class TwoLocks {
    @OrderLock
    @BillingLock
    void both() {}
  }

  static class DirectAndComposed {
    @DistributedLock(name = "direct")
    @BillingLock
    void both() {}
  }

  static class OneLockTwoWays {
    @OrderLock
    @AlsoOrderLock
    void same() {}
  }

  static class BadTtl {
    @DistributedLock(ttl = "10x")
    void run() {}
  }

  static class BadWaitTimeout {
    @DistributedLock(waitTimeout = "forever")
    void run() {}
  }

  static class HugeTtl {
    @DistributedLock(ttl = "200000d")
    void run() {}
  }

  static class OverflowingWait {
    @DistributedLock(waitTimeout = "9999999999999999d")
    void run() {}
  }

  static class ZeroTtl {
    @DistributedLock(ttl = "0s")
    void run() {}
  }

  static class SubMillisecondTtl {
    @DistributedLock(ttl = "PT0.0005S")
    void run() {}
  }

  static class UnparsableKey {
    @DistributedLock(key = "#id +")
    void run(String id) {}
  }

  static class UnknownParameter {
    @DistributedLock(key = "#acountId")
    void transfer(String accountId, long cents) {}
  }

  static class SkipOnPrimitive {
    @DistributedLock(onBusy = OnBusy.SKIP)
    int count() {
      return 1;
    }
  }

  static class UnknownProvider {
    @DistributedLock(provider = "archive")
    void run() {}
  }

  static class MinHoldBeyondTtl {
    @DistributedLock(ttl = "1s", renew = false, minHold = "5s")
    void run() {}
  }

  static class DefaultOnly {
    @DistributedLock
    void sweep() {}
  }

  static class PlainFuture {
    @DistributedLock
    java.util.concurrent.Future<String> submit() {
      return java.util.concurrent.CompletableFuture.completedFuture("x");
    }
  }

  static class JdkPublisher {
    @DistributedLock
    java.util.concurrent.SubmissionPublisher<String> items() {
      return new java.util.concurrent.SubmissionPublisher<>();
    }
  }

  /** What {@code @DistributedLock suspend fun settle(id: String): String} compiles to. */
  static class SuspendFunction {
    @DistributedLock(key = "#id")
    @Nullable Object settle(String id, kotlin.coroutines.Continuation<? super String> completion) {
      return "settled " + id;
    }
  }

  static class Reactive {
    @DistributedLock
    org.reactivestreams.Publisher<String> stream() {
      return subscriber -> {};
    }
  }

  interface Billing {
    @DistributedLock(name = "billing", key = "#account")
    String bill(String account);
  }

  static class BillingImpl implements Billing {
    @Override
    public String bill(String account) {
      return Locks.current().lockId();
    }
  }

  @Test
  void aMethodWithTwoDifferentLocksIsRefusedNamingBoth() {
    // The first one found was used and the other silently ignored.
    assertThatThrownBy(() -> locksmith.validate(TwoLocks.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("TwoLocks.both()")
        .hasMessageContaining("@OrderLock")
        .hasMessageContaining("@BillingLock");
    assertThatThrownBy(() -> locksmith.validate(DirectAndComposed.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("through @DistributedLock and @BillingLock");
    assertThat(locksmith.validate(OneLockTwoWays.class)).as("one lock, reached twice").isEqualTo(1);
  }

  @Test
  void plainFutureIsRefusedAtValidation() {
    assertThatThrownBy(() -> locksmith.validate(PlainFuture.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("PlainFuture.submit(): returns java.util.concurrent.Future")
        .hasMessageContaining("return a CompletableFuture or CompletionStage");
  }

  @Test
  void aLazyResultOfAnotherKindThroughInvokeFailsInsteadOfRunningUnlocked() {
    // Its work runs when it is subscribed to, after the method returned.
    assertThat(locksmith.validate(JdkPublisher.class)).isEqualTo(1);
    assertThatThrownBy(() -> Calls.call(locksmith, new JdkPublisher(), "items"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("JdkPublisher.items(): returns a reactive SubmissionPublisher")
        .hasMessageContaining("release the lock before the work");
  }

  @Test
  void aLazyResultOfAnotherKindIsRefusedByTheValidationForInvoke() {
    assertThatThrownBy(() -> locksmith.validateForInvoke(JdkPublisher.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("JdkPublisher.items(): returns a reactive SubmissionPublisher")
        .hasMessageContaining("return a Mono, a Flux or a CompletionStage");
    assertThatThrownBy(() -> locksmith.validateForInvoke(Reactive.class))
        .as("a Publisher that is not a Mono or a Flux")
        .hasMessageContaining("Reactive.stream(): returns a reactive Publisher");
    assertThat(locksmith.validateForInvoke(MonoAndFlux.class)).isEqualTo(2);
  }

  static class MonoAndFlux {
    @DistributedLock
    reactor.core.publisher.Mono<String> one() {
      return reactor.core.publisher.Mono.just("x");
    }

    @DistributedLock
    reactor.core.publisher.Flux<String> many() {
      return reactor.core.publisher.Flux.just("x");
    }
  }

  @Test
  void kotlinSuspendFunctionIsRefusedAtValidation() {
    assertThatThrownBy(() -> locksmith.validate(SuspendFunction.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("SuspendFunction.settle(")
        .hasMessageContaining("is a Kotlin suspend function, whose lock would end at its first");
  }

  @Test
  void publisherThroughInvokeFailsInsteadOfRunningUnlocked() {
    assertThat(locksmith.validate(Reactive.class)).isEqualTo(1);
    assertThatThrownBy(() -> Calls.call(locksmith, new Reactive(), "stream"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Reactive.stream(): returns a reactive Publisher")
        .hasMessageContaining("release the lock before the work");
  }

  @Test
  void annotationOnAnInterfaceMethodGovernsTheImplementation() throws Exception {
    assertThat(AnnotatedMethods.isAnnotated(BillingImpl.class.getMethod("bill", String.class)))
        .isTrue();
    assertThat(locksmith.validate(BillingImpl.class)).isEqualTo(1);
    assertThat(Calls.call(locksmith, new BillingImpl(), "bill", "acct-3"))
        .isEqualTo("billing:acct-3");
  }

  interface Nightly {
    @DistributedLock(name = "nightly", ttl = "soon")
    default void run() {}

    @DistributedLock(name = "nightly-report")
    default void report() {}
  }

  static class NightlyJob implements Nightly {
    @Override
    public void report() {}
  }

  @Test
  void anInheritedDefaultMethodIsValidatedWithTheClassThatDoesNotOverrideIt() throws Exception {
    assertThat(AnnotatedMethods.of(NightlyJob.class))
        .containsExactly(NightlyJob.class.getMethod("report"), Nightly.class.getMethod("run"));
    assertThatThrownBy(() -> locksmith.validate(NightlyJob.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("Nightly.run(), attribute ttl: 'soon'");
  }

  static class Valid {
    @DistributedLock(key = "#accountId + ':' + #p1", provider = "backup")
    void transfer(String accountId, long cents) {}

    @DistributedLock(onBusy = OnBusy.SKIP)
    void sweep() {}

    void notLocked() {}
  }

  @Test
  void badDurationNamesClassMethodAttributeAndText() {
    assertThatThrownBy(() -> locksmith.validate(BadTtl.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageStartingWith(
            "@DistributedLock on dev.locksmith.core.SpecValidationTest$BadTtl.run(), attribute ttl:")
        .hasMessageContaining("'10x' is not a duration");
    assertThatThrownBy(() -> locksmith.validate(BadWaitTimeout.class))
        .hasMessageContaining("BadWaitTimeout.run(), attribute waitTimeout: 'forever'");
    assertThatThrownBy(() -> locksmith.validate(ZeroTtl.class))
        .hasMessageContaining("ZeroTtl.run(), attribute ttl: must be longer than zero");
    // Accepted, it printed as 0ms and every call ran on a lease lost before it started.
    assertThatThrownBy(() -> locksmith.validate(SubMillisecondTtl.class))
        .hasMessageContaining(
            "SubMillisecondTtl.run(), attribute ttl: duration 'PT0.0005S' has a part under a"
                + " millisecond");
    assertThatThrownBy(() -> LockOptions.named("n").withTtl(Duration.ofNanos(500_000)))
        .hasMessage("ttl must be at least 1ms, was PT0.0005S");
  }

  @Test
  void durationsOverAYearAreRefusedAtValidationNamingTheAttribute() {
    assertThatThrownBy(() -> locksmith.validate(HugeTtl.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.core.SpecValidationTest$HugeTtl.run(), attribute"
                + " ttl: '200000d' is longer than the longest duration Locksmith accepts, 365d");
    assertThatThrownBy(() -> locksmith.validate(OverflowingWait.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("OverflowingWait.run(), attribute waitTimeout: '9999999999999999d'");
  }

  @Test
  void unparsableKeyNamesTheExpression() {
    assertThatThrownBy(() -> locksmith.validate(UnparsableKey.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("UnparsableKey.run(String), attribute key: '#id +'")
        .hasMessageContaining(
            "is not a valid concat expression: '' is neither #variable nor 'text'");
  }

  @Test
  void unknownParameterListsTheRealOnes() {
    assertThatThrownBy(() -> locksmith.validate(UnknownParameter.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessage(
            "@DistributedLock on dev.locksmith.core.SpecValidationTest$UnknownParameter"
                + ".transfer(String, long), attribute key: '#acountId' refers to #acountId, which"
                + " is not a parameter; parameters are [accountId, cents] (or #p0..#p1 /"
                + " #a0..#a1)");
  }

  @Test
  void skipOnPrimitiveReturnIsRefused() {
    assertThatThrownBy(() -> locksmith.validate(SkipOnPrimitive.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("SkipOnPrimitive.count(), attribute onBusy: SKIP cannot be used")
        .hasMessageContaining("returning int");
  }

  @Test
  void unknownProviderListsConfiguredOnes() {
    assertThatThrownBy(() -> locksmith.validate(UnknownProvider.class))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("UnknownProvider.run(), attribute provider: no provider named")
        .hasMessageContaining("'archive'")
        .hasMessageContaining("configured: [backup]")
        .hasMessageContaining("locksmith.providers.archive.url");
  }

  @Test
  void missingDefaultProviderSaysHowToConfigureIt() {
    try (Locksmith none = Locksmith.builder().keyLanguage(ConcatKeys.LANGUAGE).build()) {
      assertThatThrownBy(() -> none.validate(DefaultOnly.class))
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("DefaultOnly.sweep(): no default provider is configured")
          .hasMessageContaining("LOCKSMITH_URL");
    }
  }

  @Test
  void minHoldLongerThanUnrenewedTtlIsRefused() {
    assertThatThrownBy(() -> locksmith.validate(MinHoldBeyondTtl.class))
        .hasMessageContaining(
            "MinHoldBeyondTtl.run(), attribute minHold: 5s is longer than ttl 1s");
  }

  @Test
  void validClassCountsItsAnnotatedMethods() {
    assertThat(locksmith.validate(Valid.class)).isEqualTo(2);
  }

  @Test
  void attributeResolverRunsBeforeParsing() {
    try (Locksmith resolving =
        Locksmith.builder()
            .keyLanguage(ConcatKeys.LANGUAGE)
            .defaultProvider(MemoryLockProvider.isolated())
            .attributeResolver(
                value -> {
                  if (value.contains("${missing}")) {
                    throw new IllegalArgumentException("has an unresolvable placeholder");
                  }
                  return value;
                })
            .build()) {
      assertThatThrownBy(() -> resolving.validate(Placeholder.class))
          .hasMessageContaining("Placeholder.run(), attribute ttl: '${missing}'")
          .hasMessageContaining("unresolvable placeholder");
    }
  }

  static class Placeholder {
    @DistributedLock(ttl = "${missing}")
    void run() {}
  }
}
