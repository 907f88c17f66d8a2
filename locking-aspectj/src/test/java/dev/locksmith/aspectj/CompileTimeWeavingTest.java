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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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
  void eachCallTakesTheLockAgainWithAHigherFencingToken() {
    long first = jobs.plain().fencingToken();
    long second = jobs.plain().fencingToken();

    assertThat(second).isGreaterThan(first);
  }

  @Test
  void defaultNameIsTheSimpleClassNameAndMethodName() {
    assertThat(jobs.unnamed().lockId()).isEqualTo("Jobs.unnamed");
  }

  @Test
  void locksOnSelfInvocation() {
    assertThat(jobs.callsOwnPublic().lockId()).isEqualTo("jobs.plain");
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.plain", "released jobs.plain");
  }

  @Test
  void locksPrivateMethods() {
    assertThat(jobs.callsPrivate().lockId()).isEqualTo("jobs.private");
  }

  @Test
  void locksStaticMethods() {
    assertThat(Jobs.staticLocked().lockId()).isEqualTo("jobs.static");
    assertThat(engines.listener.events())
        .containsExactly("acquired jobs.static", "released jobs.static");
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
