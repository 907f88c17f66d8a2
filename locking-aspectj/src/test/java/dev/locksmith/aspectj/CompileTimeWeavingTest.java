package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockKeyException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locks;
import dev.locksmith.core.Locksmith;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Classes woven at compile time by ajc run their annotated methods under locks of a real provider.
 */
class CompileTimeWeavingTest {
  @RegisterExtension final FileEngines engines = new FileEngines();
  final Jobs jobs = new Jobs();

  @Test
  void surefireRunsTheClassesAjcWove() {
    assertThat(Arrays.stream(Jobs.class.getDeclaredMethods()).map(Method::getName))
        .anyMatch(name -> name.startsWith("plain_aroundBody"))
        .anyMatch(name -> name.startsWith("privateLocked_aroundBody"))
        .anyMatch(name -> name.startsWith("staticLocked_aroundBody"))
        .noneMatch(name -> name.startsWith("callsPrivate_aroundBody"));
  }

  @Test
  void runsAnAnnotatedMethodUnderItsLockAndReleasesIt() {
    assertThat(Locks.currentIfAny()).isEmpty();

    Lease lease = jobs.plain();

    assertThat(lease.lockId()).isEqualTo("jobs.plain");
    assertThat(lease.fencingToken()).isPositive();
    assertThat(lease.isValid()).as("released after the method returned").isFalse();
    assertThat(Locks.currentIfAny()).isEmpty();
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.plain", "released jobs.plain");
    assertThat(jobs.runs).hasValue(1);
  }

  @Test
  void anInheritedDefaultMethodRunsUnderItsLockAndPassesTheWeavingCheck() {
    assertThat(Weaving.problems(DailyDefaults.DailyJob.class)).isEmpty();

    Lease lease = new DailyDefaults.DailyJob().daily();

    assertThat(lease.lockId()).isEqualTo("jobs.daily");
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.daily", "released jobs.daily");
  }

  @Test
  void eachCallTakesTheLockAgainWithAHigherFencingToken() {
    long first = jobs.plain().fencingToken();
    long second = jobs.plain().fencingToken();

    assertThat(second).isGreaterThan(first);
  }

  /**
   * Calls that a proxy-based integration would not lock, or would name otherwise: each takes its
   * lock, named as expected, and releases it.
   */
  static Stream<Arguments> lockedCalls() {
    return Stream.of(
        row("default name: simple class name and method name", Jobs::unnamed, "Jobs.unnamed"),
        row("self-invocation", Jobs::callsOwnPublic, "jobs.plain"),
        row("private method", Jobs::callsPrivate, "jobs.private"),
        row("static method", jobs -> Jobs.staticLocked(), "jobs.static"));
  }

  private static Arguments row(String what, Function<Jobs, Lease> call, String lockId) {
    return Arguments.of(what, call, lockId);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lockedCalls")
  void locksTheCallUnderItsName(String what, Function<Jobs, Lease> call, String lockId) {
    assertThat(call.apply(jobs).lockId()).isEqualTo(lockId);
    assertThat(engines.listener.events())
        .containsExactly("acquired " + lockId, "released " + lockId);
  }

  @Test
  void aRecursiveCallWithOtherArgumentsTakesItsOwnLock() {
    assertThat(jobs.descend(2)).containsExactly("tree:2", "tree:1", "tree:0");
    assertThat(engines.listener.events())
        .containsExactly(
            "acquired tree:2",
            "acquired tree:1",
            "acquired tree:0",
            "released tree:0",
            "released tree:1",
            "released tree:2");
  }

  @Test
  void locksMethodsCarryingAnAnnotationThatStandsForDistributedLock() {
    assertThat(jobs.nightly().lockId()).isEqualTo("nightly");
    assertThat(jobs.weekly().lockId()).isEqualTo("nightly");
  }

  @Test
  void evaluatesKeysFromParameterNamesIndexesAndRecordComponents() {
    assertThat(jobs.keyed("acct-7", 3)).isEqualTo("account:acct-7/3");
    assertThat(jobs.keyedByRecord(new Jobs.Order("c-42"))).isEqualTo("account:c-42");
    assertThat(engines.listener.events())
        .containsExactly(
            "acquired account:acct-7/3",
            "released account:acct-7/3",
            "acquired account:c-42",
            "released account:c-42");
  }

  @Test
  void aKeyThatEvaluatesToNullFailsTheCall() {
    assertThatThrownBy(() -> jobs.keyedOrNull(null))
        .isInstanceOf(LockKeyException.class)
        .hasMessageContaining("Jobs.keyedOrNull")
        .hasMessageContaining("null");
    assertThat(engines.listener.events()).isEmpty();
  }

  @Test
  void aNestedCallOnTheSameLockReentersWithTheSameFencingToken() {
    long[] tokens = jobs.reentrant();

    assertThat(tokens[1]).isEqualTo(tokens[0]);
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.reentrant", "released jobs.reentrant");
  }

  @Test
  void aCompletionStageHoldsTheLockUntilItCompletes() {
    CompletableFuture<String> pending = new CompletableFuture<>();
    Locksmith other = engines.otherProcess();

    CompletableFuture<String> result = jobs.async(pending);

    assertThat(other.tryAcquire(LockOptions.named("jobs.async")))
        .as("held while pending")
        .isEmpty();
    pending.complete("done");
    assertThat(result).isCompletedWithValue("done");
    try (Lease lease = other.tryAcquire(LockOptions.named("jobs.async")).orElseThrow()) {
      assertThat(lease.fencingToken()).isPositive();
    }
  }

  @Test
  void theMethodsOwnExceptionPassesThroughAndTheLockIsReleased() {
    assertThatThrownBy(jobs::throwing)
        .isInstanceOf(IOException.class)
        .hasMessage("from the method");
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.throws", "released jobs.throws");
  }
}
