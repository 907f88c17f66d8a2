package dev.locksmith.testkit;

import dev.locksmith.core.Locksmith;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The {@link SeveralKeysScenarios} that every integration runs the same way, as JUnit 5 tests: an
 * integration's test class implements this interface, gives its {@link Fixture} (its scenarios,
 * another host's engine, how errors name its settle method), and adds the scenarios it runs its own
 * way.
 *
 * <pre>{@code
 * class SeveralKeysInterceptorTest implements SeveralKeysContract {
 *   public Fixture severalKeys() {
 *     return new Fixture(scenarios, () -> elsewhere, "AccountTransfers.settle(List)");
 *   }
 * }
 * }</pre>
 */
public interface SeveralKeysContract {
  /**
   * What the tests run against.
   *
   * @param scenarios the scenarios on the integration's bean and the provider its engine uses
   * @param elsewhere another engine on the same lock store, standing for another host (asked for
   *     only by the test that needs it)
   * @param settleMethod how an error names the bean's {@code settle} method, e.g. {@code
   *     "Transfers.settle(List)"}
   */
  record Fixture(
      SeveralKeysScenarios scenarios, Supplier<Locksmith> elsewhere, String settleMethod) {}

  /**
   * The integration's fixture, asked for by each test.
   *
   * @return the fixture
   */
  Fixture severalKeys();

  /** Further checks of the integration while one account is held elsewhere; none by default. */
  default void whileOneAccountIsHeldElsewhere() {}

  /**
   * See {@link
   * SeveralKeysScenarios#transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate}.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate() throws Exception {
    severalKeys().scenarios().transfersInOppositeDirectionsRaceWithoutDeadlockAndLoseNoUpdate();
  }

  /**
   * See {@link
   * SeveralKeysScenarios#withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld}.
   */
  @Test
  default void withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld() {
    Fixture fixture = severalKeys();
    fixture
        .scenarios()
        .withOneAccountHeldElsewhereNoPolicyTakesTheOtherAndNothingIsLeftHeld(
            fixture.elsewhere().get(), this::whileOneAccountIsHeldElsewhere);
  }

  /** See {@link SeveralKeysScenarios#aNestedCallOnOneAccountRunsUnderTheOuterLease}. */
  @Test
  default void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    severalKeys().scenarios().aNestedCallOnOneAccountRunsUnderTheOuterLease();
  }

  /** See {@link SeveralKeysScenarios#anEmptyListOfAccountsFailsNamingTheMethod}. */
  @Test
  default void anEmptyListOfAccountsFailsNamingTheMethod() {
    Fixture fixture = severalKeys();
    fixture.scenarios().anEmptyListOfAccountsFailsNamingTheMethod(fixture.settleMethod());
  }
}
