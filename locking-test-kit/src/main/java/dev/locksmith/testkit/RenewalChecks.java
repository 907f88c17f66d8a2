package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import java.time.Duration;
import java.util.Optional;

/** Checks of a provider's answer to a renewal, for a provider's own tests. */
public final class RenewalChecks {
  private RenewalChecks() {}

  /**
   * Checks that {@code answer} renews {@code before}: present, for the same lock with the same
   * fencing token, and with a deadline no earlier than {@code ttl} after {@code sentNanos} (the
   * {@link System#nanoTime()} read before the request was sent).
   *
   * @param before the lease renewed
   * @param answer the renewal's answer
   * @param sentNanos {@link System#nanoTime()} read before the request was sent
   * @param ttl the ttl asked for
   * @param description names the lease in a failure, e.g. {@code "lease 17"}
   * @return the renewed lease, for the caller's further checks
   */
  public static LeaseGrant assertRenewed(
      LeaseGrant before,
      Optional<LeaseGrant> answer,
      long sentNanos,
      Duration ttl,
      String description) {
    assertThat(answer).as(description).isPresent();
    LeaseGrant lease = answer.orElseThrow();
    assertThat(lease.lockId()).as(description).isEqualTo(before.lockId());
    assertThat(lease.fencingToken()).as(description).isEqualTo(before.fencingToken());
    assertThat(lease.deadlineNanos())
        .as(description)
        .isGreaterThanOrEqualTo(sentNanos + ttl.toNanos());
    return lease;
  }
}
