package dev.locksmith.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockRequestTest {
  private final LockRequest request =
      new LockRequest("report:eu", "token-1", Duration.ofSeconds(10), "host/1/main");

  @Test
  void aGrantEndsLocallyOneTtlAfterTheRequestWasSent() {
    LeaseGrant grant = request.granted(42, 1_000);

    assertThat(grant)
        .isEqualTo(
            new LeaseGrant("report:eu", "token-1", 42, Duration.ofSeconds(10), 10_000_001_000L));
    assertThat(grant.expiredAt(10_000_000_999L)).isFalse();
    assertThat(grant.expiredAt(10_000_001_000L)).isTrue();
  }

  @Test
  void aRequestNeedsALockIdAndAPositiveTtl() {
    assertThatThrownBy(() -> new LockRequest("", "t", Duration.ofSeconds(1), "o"))
        .hasMessage("lockId is empty");
    assertThatThrownBy(() -> new LockRequest("a", "t", Duration.ZERO, "o"))
        .hasMessage("ttl must be positive, was PT0S");
  }
}
