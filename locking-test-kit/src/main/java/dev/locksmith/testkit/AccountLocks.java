package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.Lease;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockStatus;
import java.util.List;
import java.util.Optional;

/**
 * The {@code acct} locks of {@link SeveralKeysScenarios} as the provider sees them: which are free,
 * who holds one, and checks that exactly the expected ones are held.
 */
final class AccountLocks {
  /** The name of every lock of the scenarios; the lock ids are {@code acct:<account>}. */
  static final String NAME = "acct";

  private static final List<String> IDS = List.of("acct:a", "acct:b", "acct:c");

  private final LockProvider provider;

  /** The locks on {@code provider}. */
  AccountLocks(LockProvider provider) {
    this.provider = provider;
  }

  /**
   * No lock of the scenarios' accounts has a holder, and where the provider lists what it holds, it
   * lists none of them.
   */
  void assertNothingHeld() {
    for (String id : IDS) {
      assertThat(isFree(id)).as("%s is free", id).isTrue();
    }
    assertHeldExactly();
  }

  /** After a transfer from b to a gave up: a was let go, and b is held only by {@code b}. */
  void assertOnlyHeldElsewhere(Lease b) {
    assertThat(isFree("acct:a")).as("a was let go").isTrue();
    assertThat(holderToken("acct:b")).isEqualTo(b.fencingToken());
    assertHeldExactly("acct:b");
  }

  /**
   * Where the provider lists what it holds, the {@code acct} locks it lists are exactly {@code
   * ids}; a provider that cannot list is checked through {@link LockProvider#status} instead.
   */
  void assertHeldExactly(String... ids) {
    Optional<List<LockStatus>> listed = provider.listHeld();
    listed.ifPresent(
        all ->
            assertThat(all.stream().map(LockStatus::lockId).filter(id -> id.startsWith(NAME + ":")))
                .as("held acct locks")
                .containsExactlyInAnyOrder(ids));
  }

  /** The fencing token of the current holder of {@code lockId}, which must have one. */
  long holderToken(String lockId) {
    return provider.status(lockId).currentHolder().orElseThrow().fencingToken();
  }

  /** Whether {@code lockId} has no holder. */
  boolean isFree(String lockId) {
    return provider.status(lockId).currentHolder().isEmpty();
  }
}
