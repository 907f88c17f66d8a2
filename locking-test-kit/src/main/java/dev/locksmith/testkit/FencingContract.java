package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fencing tokens strictly increase from holder to holder. */
public interface FencingContract extends ContractFixture {

  /**
   * Fencing tokens strictly increase across holders on three clients.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void fencingTokensStrictlyIncreaseAcrossHolders() throws Exception {
    List<LockProvider> clients = List.of(client(), client(), client());
    String id = lockId("fencing");
    long last = Long.MIN_VALUE;
    for (int round = 0; round < 30; round++) {
      LockProvider client = clients.get(round % clients.size());
      LeaseGrant grant = hold(client, id);
      assertThat(grant.fencingToken()).as("round %d", round).isGreaterThan(last);
      last = grant.fencingToken();
      assertThat(client.release(grant)).isTrue();
    }
  }
}
