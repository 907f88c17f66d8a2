package dev.locksmith.testkit;

import dev.locksmith.core.Locksmith;
import org.junit.jupiter.api.Test;

/**
 * The {@link SeveralKeysScenarios} that every integration runs the same way, as JUnit 5 tests: an
 * integration's test class implements this interface, names its scenarios, another host's engine
 * and how errors name its settle method, and adds the scenarios it runs its own way.
 *
 * <pre>{@code
 * class SeveralKeysInterceptorTest implements SeveralKeysContract {
 *   public SeveralKeysScenarios scenarios() { return scenarios; }
 *   public Locksmith elsewhere() { return elsewhere; }
 *   public String settleMethod() { return "AccountTransfers.settle(List)"; }
 * }
 * }</pre>
 */
public interface SeveralKeysContract {
  /** The scenarios on the integration's bean and the provider its engine uses. */
  SeveralKeysScenarios scenarios();

  /** Another engine on the same lock store, standing for another host. */
  Locksmith elsewhere();

  /** How an error names the bean's {@code settle} method, e.g. {@code "Transfers.settle(List)"}. */
  String settleMethod();

  /** Further checks of the integration while one account is held elsewhere; none by default. */
  default void whileOneAccountIsHeldElsewhere() {}

  /**
   * See {@link
   * SeveralKeysScenarios#transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate}.
   */
  @Test
  default void transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate() throws Exception {
    scenarios().transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate();
  }

  /**
   * See {@link
   * SeveralKeysScenarios#withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld}.
   */
  @Test
  default void withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld() {
    scenarios()
        .withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld(
            elsewhere(), this::whileOneAccountIsHeldElsewhere);
  }

  /** See {@link SeveralKeysScenarios#aNestedCallOnOneAccountRunsUnderTheOuterLease}. */
  @Test
  default void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    scenarios().aNestedCallOnOneAccountRunsUnderTheOuterLease();
  }

  /** See {@link SeveralKeysScenarios#anEmptyListOfAccountsFailsNamingTheMethod}. */
  @Test
  default void anEmptyListOfAccountsFailsNamingTheMethod() {
    scenarios().anEmptyListOfAccountsFailsNamingTheMethod(settleMethod());
  }
}
