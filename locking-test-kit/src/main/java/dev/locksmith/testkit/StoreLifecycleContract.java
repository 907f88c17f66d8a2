package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fencing tokens across the store's restarts, added persistence and lost state, through {@link
 * #storeLifecycle()}.
 */
public interface StoreLifecycleContract extends ContractFixture {

  /**
   * Restarts and state loss of the store under test. The suite calls it from one test at a time.
   *
   * @return the store's restarts and state loss
   * @throws Exception when a provider call fails
   */
  StoreLifecycle storeLifecycle() throws Exception;

  /**
   * Fencing tokens of one lock id never go back across restarts, added persistence and lost state.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void fencingTokensNeverGoBackAcrossRestartsAddedPersistenceAndLostState()
      throws Exception {
    StoreLifecycle store = storeLifecycle();
    String id = lockId("tokens-across-restarts");
    List<Long> tokens = new ArrayList<>();
    tokens.add(grantAndRelease(id));
    tokens.add(grantAndRelease(id));
    store.restart();
    tokens.add(grantAndRelease(id));
    store.restartWithPersistenceAdded();
    tokens.add(grantAndRelease(id));
    store.restart();
    tokens.add(grantAndRelease(id));
    store.restartLosingState();
    tokens.add(grantAndRelease(id));
    tokens.add(grantAndRelease(id));
    assertThat(tokens)
        .as(
            "tokens of one lock id: first, second, after a restart, after persistence was added,"
                + " after another restart, after the persisted state was lost, and one more")
        .isSortedAccordingTo(Long::compare)
        .doesNotHaveDuplicates();
  }

  /** Takes and releases {@code id} through a new client and returns the grant's token. */
  private long grantAndRelease(String id) throws Exception {
    LockProvider provider = client();
    LeaseGrant grant =
        provider.tryAcquire(LockRequest.of(id, Duration.ofSeconds(10))).orElseThrow();
    assertThat(provider.release(grant)).isTrue();
    return grant.fencingToken();
  }
}
