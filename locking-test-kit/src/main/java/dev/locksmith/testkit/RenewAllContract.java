package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Several leases renewed in one call ({@link LockProvider#renewAll}): one answer per request in
 * request order, the renewed grant with its deadline moved on, empty for a lease no longer held by
 * its owner, and at most {@link LockProvider#MAX_RENEWALS_PER_CALL} leases per call.
 */
public interface RenewAllContract extends ContractFixture {

  /**
   * Each answer is its request's lease, renewed with its own ttl, in request order.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void renewAllAnswersEachLeaseInRequestOrder() throws Exception {
    LockProvider a = client();
    LockProvider other = client();
    LeaseGrant first = hold(a, lockId("renew-all-0"));
    LeaseGrant second = hold(a, lockId("renew-all-1"));
    LeaseGrant third = hold(a, lockId("renew-all-2"));
    List<RenewalRequest> requests =
        List.of(
            new RenewalRequest(third, Duration.ofSeconds(50)),
            new RenewalRequest(first, Duration.ofSeconds(60)),
            new RenewalRequest(second, Duration.ofSeconds(45)));

    List<Optional<LeaseGrant>> answers = a.renewAll(requests);

    assertThat(answers).hasSize(3).allMatch(Optional::isPresent);
    for (int i = 0; i < requests.size(); i++) {
      LeaseGrant before = requests.get(i).lease();
      LeaseGrant after = answers.get(i).orElseThrow();
      assertThat(after.lockId()).as("answer %d", i).isEqualTo(before.lockId());
      assertThat(after.ownerToken()).isEqualTo(before.ownerToken());
      assertThat(after.fencingToken()).isEqualTo(before.fencingToken());
      assertThat(after.deadlineNanos())
          .as("the renewed deadline of %s", before.lockId())
          .isGreaterThan(before.deadlineNanos());
      assertThat(other.tryAcquire(LockRequest.of(before.lockId(), Duration.ofSeconds(5))))
          .isEmpty();
      assertThat(a.release(after)).isTrue();
    }
  }

  /**
   * A lease that expired and was taken over, and a lease its holder released, are answered empty
   * and left as they are; the live lease next to them is renewed.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void renewAllAnswersEmptyForALeaseNoLongerHeld() throws Exception {
    LockProvider a = client();
    LockProvider b = client();
    LeaseGrant live = hold(a, lockId("renew-all-live"));
    String takenId = lockId("renew-all-taken");
    LeaseGrant expired = a.tryAcquire(LockRequest.of(takenId, timings().shortTtl())).orElseThrow();
    LeaseGrant taker = takeAfterExpiry(b, takenId);
    LeaseGrant released = hold(a, lockId("renew-all-released"));
    assertThat(a.release(released)).isTrue();

    List<Optional<LeaseGrant>> answers =
        a.renewAll(
            List.of(
                new RenewalRequest(live, Duration.ofSeconds(30)),
                new RenewalRequest(expired, Duration.ofSeconds(30)),
                new RenewalRequest(released, Duration.ofSeconds(30))));

    assertThat(answers).hasSize(3);
    assertThat(answers.get(0)).as("the live lease").isPresent();
    assertThat(answers.get(1)).as("the lease taken over after it expired").isEmpty();
    assertThat(answers.get(2)).as("the released lease").isEmpty();
    assertThat(Objects.requireNonNull(b.status(takenId).holder(), "a holder").fencingToken())
        .isEqualTo(taker.fencingToken());
    assertThat(b.renew(taker, Duration.ofSeconds(30)))
        .as("the new holder is untouched")
        .isPresent();
    Optional<LeaseGrant> free =
        b.tryAcquire(LockRequest.of(released.lockId(), Duration.ofSeconds(5)));
    assertThat(free).as("the released lock stays free").isPresent();
    b.release(free.get());
    b.release(taker);
    a.release(answers.get(0).orElseThrow());
  }

  /**
   * An empty batch is answered with no answers.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void renewAllOfNothingAnswersNothing() throws Exception {
    assertThat(client().renewAll(List.of())).isEmpty();
  }

  /**
   * More than {@link LockProvider#MAX_RENEWALS_PER_CALL} leases are refused; nothing changes.
   *
   * @throws Exception when a provider call fails
   */
  @Test
  default void renewAllRefusesMoreThanTheMaximumPerCall() throws Exception {
    LockProvider a = client();
    LeaseGrant held =
        a.tryAcquire(LockRequest.of(lockId("renew-all-max"), timings().shortTtl())).orElseThrow();
    List<RenewalRequest> tooMany =
        Collections.nCopies(
            LockProvider.MAX_RENEWALS_PER_CALL + 1,
            new RenewalRequest(held, Duration.ofSeconds(30)));
    assertThatThrownBy(() -> a.renewAll(tooMany))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(LockProvider.MAX_RENEWALS_PER_CALL));
    // Not renewed: the lease still ends by its short ttl.
    takeAfterExpiry(client(), held.lockId());
  }
}
