package dev.locksmith.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.testkit.SeveralKeysContract;
import dev.locksmith.testkit.SeveralKeysScenarios;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A woven method whose key names two accounts ({@code key = "{#from, #to}"}) holds one lock per
 * account, on a {@code file:} provider shared with another owner: the {@link SeveralKeysScenarios},
 * plus what the aspect's engine reported.
 */
class SeveralKeysWovenTest implements SeveralKeysContract {
  @RegisterExtension final FileEngines engines = new FileEngines();
  final Transfers transfers = new Transfers();

  /** The scenarios against the provider of the engine the aspect uses in this test. */
  private SeveralKeysScenarios scenarios() {
    return new SeveralKeysScenarios(transfers, AspectLocksmith.engine().providers().get(""));
  }

  @Override
  public Fixture severalKeys() {
    return new Fixture(scenarios(), engines::otherProcess, "Transfers.settle(List)");
  }

  @Test
  void insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider() {
    scenarios().insideTheCallEachAccountHasItsOwnLeaseHeldOnTheProvider();

    assertEachAccountLockedOnceAndReleased("acct:a", "acct:b");
  }

  @Override
  public void whileOneAccountIsHeldElsewhere() {
    List<String> events = engines.listener.events();
    assertThat(events).filteredOn(event -> event.startsWith("busy ")).hasSize(2);
    assertThat(events).filteredOn(event -> event.startsWith("timedOut ")).hasSize(1);
    assertThat(events).doesNotContain("acquired acct:b");
    assertThat(events)
        .as("whatever was taken before the busy key was let go")
        .filteredOn("released acct:a"::equals)
        .hasSameSizeAs(events.stream().filter("acquired acct:a"::equals).toList());
  }

  @Test
  @Override
  public void aNestedCallOnOneAccountRunsUnderTheOuterLease() {
    SeveralKeysContract.super.aNestedCallOnOneAccountRunsUnderTheOuterLease();

    assertEachAccountLockedOnceAndReleased("acct:a", "acct:b", "acct:c");
  }

  /** One grant of each account's lock, and its release: a nested call took nothing more. */
  private void assertEachAccountLockedOnceAndReleased(String... lockIds) {
    List<String> events = engines.listener.events();
    assertThat(events)
        .filteredOn(event -> event.startsWith("acquired "))
        .containsExactlyInAnyOrderElementsOf(prefixed("acquired ", lockIds));
    assertThat(events)
        .filteredOn(event -> event.startsWith("released "))
        .containsExactlyInAnyOrderElementsOf(prefixed("released ", lockIds));
  }

  private static List<String> prefixed(String kind, String... lockIds) {
    return List.of(lockIds).stream().map(id -> kind + id).toList();
  }

  @Test
  @Override
  public void anEmptyListOfAccountsFailsNamingTheMethod() {
    SeveralKeysContract.super.anEmptyListOfAccountsFailsNamingTheMethod();

    assertThat(engines.listener.events()).isEmpty();
  }
}
